@_spi(Storage) import DiarySDK
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
        /// The ``PersistedLayout`` of the rows; absent in snapshots written before schema 4
        /// (``PersistedLayout/synthesized``).
        var layout: Int?
        /// The sequence of the last journal record the snapshot includes: the next journal's records start after
        /// it. Absent in snapshots written before schema 3.
        var sequence: UInt64?
        /// The body's length in bytes, from the byte after the header's newline to the end of the file.
        var bodyLength: Int
        /// CRC-32 of the body's bytes outside every section, in order.
        var framingCRC32: String
        var sections: [Section]
    }

    /// Encodes records (in ``LocalDatabase/allRecords`` order: grouped by kind) as a snapshot file that includes
    /// every journal record up to `sequence` (`nil` when that is not known: the store was written before schema 3
    /// and had no record yet that said).
    static func encode(_ records: [StoreRecord], generation: Int, sequence: UInt64?) throws -> Data {
        let encoder = JSONEncoder.persisted()
        var body = Data("[".utf8)
        body.reserveCapacity(records.count * 512)
        var framing = Data("[".utf8)
        var ranges: [(kind: String, start: Int, length: Int, count: Int)] = []
        var index = 0
        while index < records.count {
            let kind = records[index].kind
            var end = index
            while end < records.count, end - index < sectionSize, records[end].kind == kind { end += 1 }
            let opening = Data(((ranges.isEmpty ? "\n" : ",\n") + #"{"kind":"\#(kind.rawValue)","records":"#).utf8)
            body.append(opening)
            framing.append(opening)
            let start = body.count
            body.append(contentsOf: [0x5B, 0x0A])
            for position in index..<end {
                if position > index { body.append(contentsOf: [0x2C, 0x0A]) }
                body.append(try records[position].encodeRow(with: encoder))
            }
            body.append(contentsOf: [0x0A, 0x5D])
            ranges.append((kind.rawValue, start, body.count - start, end - index))
            body.append(0x7D)
            framing.append(0x7D)
            index = end
        }
        body.append(contentsOf: Array("\n]\n".utf8))
        framing.append(contentsOf: Array("\n]\n".utf8))
        // The header's own length shifts every offset: encode it with offsets relative to the body to learn its
        // size, then again with absolute offsets until the size no longer grows.
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
                recordCount: records.count, layout: PersistedLayout.current.rawValue, sequence: sequence, bodyLength: body.count, framingCRC32: hex(CRC32.checksum(of: framing)),
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

    /// Checks and decodes a snapshot file.
    /// - Throws: ``DiaryError`` `.storageCorrupted` naming the file and the byte offset of the damage.
    static func decode(_ data: Data, file: String) throws -> [StoreRecord] {
        var records: [StoreRecord] = []
        try decode(data, file: file) { records += $0 }
        return records
    }

    /// Checks and decodes a snapshot file, handing its rows to `consume` in file order, section by section.
    /// - Returns: The snapshot's header.
    /// - Throws: ``DiaryError`` `.storageCorrupted` naming the file and the byte offset of the damage. Rows may have
    ///   been consumed before the damage was found; the caller discards them.
    @discardableResult
    static func decode(_ data: Data, file: String, consume: ([StoreRecord]) -> Void) throws -> Header {
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
        let layout: PersistedLayout
        do {
            layout = try PersistedLayout(reading: header.layout)
        } catch {
            throw DiaryError(.storageCorrupted, "the snapshot \(file) holds \(error); update the app to open it")
        }
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
                StoreRecord.Kind(rawValue: section.kind) != nil
            else { throw corrupted(position, "the header's section table does not match the body") }
            framing.append(data[position..<section.offset])
            position = section.offset + section.length
        }
        framing.append(data[position..<data.count])
        guard hex(CRC32.checksum(of: framing)) == header.framingCRC32 else {
            throw corrupted(bodyStart, "the bytes between the sections fail their checksum")
        }

        // Sections are checked and decoded on every core; the caller consumes them in order as they finish, so
        // building the database overlaps with decoding the rest.
        let results = Locked([Result<[StoreRecord], DiaryError>?](repeating: nil, count: header.sections.count))
        let finished = header.sections.map { _ in DispatchSemaphore(value: 0) }
        for (index, section) in header.sections.enumerated() {
            DispatchQueue.global(qos: .userInitiated).async {
                let outcome = decodeSection(section, of: data, layout: layout, corrupted: corrupted)
                results.withLock { $0[index] = outcome }
                finished[index].signal()
            }
        }
        var total = 0
        var failure: DiaryError?
        for index in header.sections.indices {
            finished[index].wait()
            guard failure == nil else { continue }
            switch results.withLock({ state in defer { state[index] = nil }; return state[index]! }) {
            case .success(let records):
                total += records.count
                consume(records)
            case .failure(let error):
                failure = error
            }
        }
        if let failure { throw failure }
        guard total == header.recordCount else {
            throw corrupted(bodyStart, "\(total) rows; the header says \(header.recordCount)")
        }
        return header
    }

    private static func decodeSection(
        _ section: Header.Section, of data: Data, layout: PersistedLayout, corrupted: @Sendable (Int, String, (any Error)?) -> DiaryError
    ) -> Result<[StoreRecord], DiaryError> {
        let range = section.offset..<(section.offset + section.length)
        let checksum = data.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[range])) }
        guard hex(checksum) == section.crc32 else {
            return .failure(corrupted(section.offset, "the \(section.kind) rows in bytes \(range) fail their checksum", nil))
        }
        do {
            let records = try StoreRecord.decodeRows(
                of: StoreRecord.Kind(rawValue: section.kind)!, from: data[range], with: JSONDecoder.persisted(layout))
            guard records.count == section.count else {
                return .failure(corrupted(section.offset, "\(records.count) rows; the header says \(section.count)", nil))
            }
            return .success(records)
        } catch {
            return .failure(corrupted(section.offset, "the \(section.kind) rows do not decode", error))
        }
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
