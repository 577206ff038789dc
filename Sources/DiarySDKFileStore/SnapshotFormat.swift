import DiarySDK
import Foundation

/// The layout of `snapshot-<generation>.json`: one header line of JSON, then the body, a JSON array with one
/// record per line. The header carries a CRC-32 for every block of ``blockSize`` bytes of the body, so damage is
/// reported with the byte offset of the block it is in.
enum SnapshotFormat {
    /// The bytes covered by one checksum.
    static let blockSize = 1 << 20

    /// The header line.
    struct Header: Codable {
        var format: String
        var schemaVersion: Int
        var generation: Int
        var recordCount: Int
        var bodyLength: Int
        var blockSize: Int
        /// CRC-32 of each block of the body, as 8 lowercase hex digits.
        var blockChecksums: [String]
    }

    static let formatName = "diarysdk-snapshot"

    /// Encodes records as a snapshot file.
    static func encode(_ records: [StoreRecord], generation: Int) throws -> Data {
        let encoder = JSONEncoder.diary()
        var body = Data("[".utf8)
        body.reserveCapacity(records.count * 512)
        for (index, record) in records.enumerated() {
            body.append(contentsOf: index == 0 ? [0x0A] : [0x2C, 0x0A])
            body.append(try encoder.encode(WireRecord(record)))
        }
        body.append(contentsOf: Array("\n]\n".utf8))
        var checksums: [String] = []
        body.withUnsafeBytes { bytes in
            var start = 0
            while start < bytes.count {
                let end = min(start + blockSize, bytes.count)
                checksums.append(hex(CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))))
                start = end
            }
        }
        let header = Header(
            format: formatName, schemaVersion: FileStoreSchema.currentVersion, generation: generation,
            recordCount: records.count, bodyLength: body.count, blockSize: blockSize, blockChecksums: checksums)
        var file = try encoder.encode(header)
        file.append(0x0A)
        file.append(body)
        return file
    }

    /// Checks and decodes a snapshot file.
    /// - Throws: ``DiaryError`` `.storageCorrupted` naming the file and the byte offset of the damage.
    static func decode(_ data: Data, file: String) throws -> [StoreRecord] {
        func corrupted(_ offset: Int, _ what: String, _ error: (any Error & Sendable)? = nil) -> DiaryError {
            DiaryError(
                .storageCorrupted, "the snapshot \(file) is damaged at byte offset \(offset): \(what)", underlying: error)
        }
        guard let newline = data.firstIndex(of: 0x0A) else { throw corrupted(0, "no header line") }
        let headerLength = newline - data.startIndex
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: data[data.startIndex..<newline])
        } catch {
            throw corrupted(0, "the header line is not a snapshot header", error)
        }
        guard header.format == formatName, header.blockSize > 0 else { throw corrupted(0, "not a snapshot header") }
        let bodyStart = headerLength + 1
        let body = data[(data.startIndex + bodyStart)...]
        guard body.count == header.bodyLength else {
            throw corrupted(
                bodyStart + min(body.count, header.bodyLength),
                "the body is \(body.count) bytes; the header says \(header.bodyLength)")
        }
        let expectedBlocks = (header.bodyLength + header.blockSize - 1) / header.blockSize
        guard header.blockChecksums.count == expectedBlocks else { throw corrupted(0, "the header's block count") }
        try body.withUnsafeBytes { bytes in
            for (index, expected) in header.blockChecksums.enumerated() {
                let start = index * header.blockSize
                let end = min(start + header.blockSize, bytes.count)
                let actual = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                guard hex(actual) == expected else {
                    throw corrupted(
                        bodyStart + start, "the block of bytes \(bodyStart + start)..<\(bodyStart + end) fails its checksum")
                }
            }
        }
        let records: [WireRecord]
        do {
            records = try JSONDecoder.diary().decode([WireRecord].self, from: body)
        } catch {
            throw corrupted(bodyStart, "the records do not decode", error)
        }
        guard records.count == header.recordCount else {
            throw corrupted(bodyStart, "\(records.count) records; the header says \(header.recordCount)")
        }
        return records.map(\.record)
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
