import DiarySDK
import Foundation

/// The layout of `snapshot-<generation>.json`: one header line of JSON, then the body, a JSON array of sections,
/// `{"kind": "diary", "records": [...]}`, each holding up to ``sectionSize`` rows of one kind, one row per line.
///
/// The header lists every section's byte range, row count and CRC-32, plus a CRC-32 of the bytes between the
/// sections, so damage is reported with the byte offset of the section it is in. Sections decode in parallel.
enum SnapshotFormat {
    /// The most rows in one section.
    static let sectionSize = 4096
    static let formatName = "diarysdk-snapshot"

    /// The header line.
    struct Header: Codable {
        struct Section: Codable {
            /// The kind of every row in the section (`diary`, `user`, …).
            var kind: String
            /// The byte offset, from the start of the file, of the section's `records` array.
            var offset: Int
            /// The array's length in bytes.
            var length: Int
            /// How many rows the array holds.
            var count: Int
            /// CRC-32 of the array's bytes, as 8 lowercase hex digits.
            var crc32: String
        }

        var format: String
        var schemaVersion: Int
        var generation: Int
        var recordCount: Int
        /// The body's length in bytes, from the byte after the header's newline to the end of the file.
        var bodyLength: Int
        /// CRC-32 of the body's bytes outside every section, in order.
        var framingCRC32: String
        var sections: [Section]
    }

    /// Encodes records (in ``DiaryDatabase/allRecords`` order: grouped by kind) as a snapshot file.
    static func encode(_ records: [StoreRecord], generation: Int) throws -> Data {
        let encoder = JSONEncoder.diary()
        var body = Data("[".utf8)
        body.reserveCapacity(records.count * 512)
        var framing = Data("[".utf8)
        var ranges: [(kind: String, start: Int, length: Int, count: Int)] = []
        var index = 0
        while index < records.count {
            let kind = WireRecord.kind(of: records[index])
            var end = index
            while end < records.count, end - index < sectionSize, WireRecord.kind(of: records[end]) == kind { end += 1 }
            let opening = Data(((ranges.isEmpty ? "\n" : ",\n") + #"{"kind":"\#(kind.rawValue)","records":"#).utf8)
            body.append(opening)
            framing.append(opening)
            let start = body.count
            body.append(contentsOf: [0x5B, 0x0A])
            for position in index..<end {
                if position > index { body.append(contentsOf: [0x2C, 0x0A]) }
                body.append(try WireRecord.encodeValue(of: records[position], with: encoder))
            }
            body.append(contentsOf: [0x0A, 0x5D])
            ranges.append((kind.rawValue, start, body.count - start, end - index))
            body.append(0x7D)
            framing.append(0x7D)
            index = end
        }
        body.append(contentsOf: Array("\n]\n".utf8))
        framing.append(contentsOf: Array("\n]\n".utf8))
        // The header's length shifts every offset; encode it once with placeholders to learn its size, since every
        // field but the offsets has its final width, then again with the offsets.
        func header(shift: Int) -> Header {
            let sections = ranges.map { range in
                body.withUnsafeBytes { bytes in
                    Header.Section(
                        kind: range.kind, offset: shift + range.start, length: range.length, count: range.count,
                        crc32: hex(CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[range.start..<(range.start + range.length)]))))
                }
            }
            return Header(
                format: formatName, schemaVersion: FileStoreSchema.currentVersion, generation: generation,
                recordCount: records.count, bodyLength: body.count, framingCRC32: hex(CRC32.checksum(of: framing)),
                sections: sections)
        }
        var shift = try encoder.encode(header(shift: 0)).count + 1
        var line = try encoder.encode(header(shift: shift))
        while line.count + 1 > shift {
            shift = line.count + 1
            line = try encoder.encode(header(shift: shift))
        }
        // Offsets only ever grow the header, so it now fits; spaces (valid JSON whitespace) fill any gap.
        line.append(contentsOf: [UInt8](repeating: 0x20, count: shift - 1 - line.count))
        line.append(0x0A)
        line.append(body)
        return line
    }

    /// Checks and decodes a snapshot file, decoding its sections on every core.
    /// - Throws: ``DiaryError`` `.storageCorrupted` naming the file and the byte offset of the damage.
    static func decode(_ data: Data, file: String) throws -> [StoreRecord] {
        let data = data.startIndex == 0 ? data : Data(data)
        @Sendable func corrupted(_ offset: Int, _ what: String, _ error: (any Error)? = nil) -> DiaryError {
            DiaryError(
                .storageCorrupted, "the snapshot \(file) is damaged at byte offset \(offset): \(what)", underlying: error)
        }
        guard let newline = data.firstIndex(of: 0x0A) else { throw corrupted(0, "no header line") }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: data[0..<newline])
        } catch {
            throw corrupted(0, "the header line is not a snapshot header", error)
        }
        guard header.format == formatName else { throw corrupted(0, "not a snapshot header") }
        let bodyStart = newline + 1
        guard data.count - bodyStart == header.bodyLength else {
            throw corrupted(
                bodyStart + min(data.count - bodyStart, header.bodyLength),
                "the body is \(data.count - bodyStart) bytes; the header says \(header.bodyLength)")
        }
        var framing = Data()
        var position = bodyStart
        for section in header.sections {
            guard section.offset >= position, section.length >= 0, section.offset + section.length <= data.count,
                WireRecord.Kind(rawValue: section.kind) != nil
            else { throw corrupted(position, "the header's section table does not match the body") }
            framing.append(data[position..<section.offset])
            position = section.offset + section.length
        }
        framing.append(data[position..<data.count])
        guard hex(CRC32.checksum(of: framing)) == header.framingCRC32 else {
            throw corrupted(bodyStart, "the bytes between the sections fail their checksum")
        }

        let results = Locked([Result<[StoreRecord], DiaryError>?](repeating: nil, count: header.sections.count))
        DispatchQueue.concurrentPerform(iterations: header.sections.count) { index in
            let section = header.sections[index]
            let range = section.offset..<(section.offset + section.length)
            let outcome: Result<[StoreRecord], DiaryError>
            let checksum = data.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[range])) }
            if hex(checksum) != section.crc32 {
                outcome = .failure(corrupted(section.offset, "the \(section.kind) rows in bytes \(range) fail their checksum"))
            } else {
                do {
                    let records = try WireRecord.decodeArray(
                        of: WireRecord.Kind(rawValue: section.kind)!, from: data[range], with: JSONDecoder.diary())
                    outcome = records.count == section.count
                        ? .success(records)
                        : .failure(corrupted(section.offset, "\(records.count) rows; the header says \(section.count)"))
                } catch {
                    outcome = .failure(corrupted(section.offset, "the \(section.kind) rows do not decode", error))
                }
            }
            results.withLock { $0[index] = outcome }
        }
        var records: [StoreRecord] = []
        records.reserveCapacity(header.recordCount)
        for result in results.current { records += try result!.get() }
        guard records.count == header.recordCount else {
            throw corrupted(bodyStart, "\(records.count) rows; the header says \(header.recordCount)")
        }
        return records
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
