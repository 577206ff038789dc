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
        var encoder = try Encoder(records: records, generation: generation, sequence: sequence)
        var body = Data()
        while let piece = try encoder.nextPiece(minimumSize: .max) { body.append(piece) }
        var file = try encoder.headerLine()
        file.append(body)
        return file
    }

    /// Encodes a snapshot a piece at a time, so that a compaction can write it out as it goes (and pace itself)
    /// instead of holding the whole file in memory: the body's pieces in order (``nextPiece(minimumSize:)``), each
    /// to be written at ``headerLength`` plus the body bytes before it, then ``headerLine()``, at offset 0.
    ///
    /// The header lists every section's byte range and checksum, which are known only once the body is written, so
    /// its line is reserved up front at the longest it can be (every offset and length as wide as `Int.max`), and
    /// padded with spaces, which are JSON whitespace, to that length at the end.
    struct Encoder {
        private struct Section {
            var kind: RecordKind
            var rows: Range<Int>
        }

        private let records: [StoreRecord]
        private let generation: Int
        private let sequence: UInt64?
        private var rowEncoder = JSONEncoder.persisted()
        private let sections: [Section]
        /// The length of the header line, its newline included: where the body starts.
        let headerLength: Int
        /// The body's bytes produced so far.
        private(set) var bodyLength = 0
        /// The rows encoded so far.
        private(set) var rowsEncoded = 0
        private var framingCRC: UInt32 = 0
        private var ranges: [Header.Section] = []
        private var nextSection = 0
        /// Whether the opening of section `nextSection` has been written.
        private var isSectionOpen = false
        private var isFinished = false

        init(records: [StoreRecord], generation: Int, sequence: UInt64?) throws {
            self.records = records
            self.generation = generation
            self.sequence = sequence
            var sections: [Section] = []
            var index = 0
            while index < records.count {
                let kind = records[index].kind
                var end = index
                while end < records.count, end - index < sectionSize, records[end].kind == kind { end += 1 }
                sections.append(Section(kind: kind, rows: index..<end))
                index = end
            }
            self.sections = sections
            let widest = Self.header(
                generation: generation, recordCount: records.count, sequence: sequence.map { _ in .max },
                bodyLength: .max, framingCRC32: 0,
                sections: sections.map {
                    Header.Section(
                        kind: $0.kind.rawValue, offset: .max, length: .max, count: $0.rows.count, crc32: hex(0))
                })
            headerLength = try rowEncoder.encode(widest).count + 1
        }

        /// A copy that shares no mutable reference with this one (its own `JSONEncoder`), to go on encoding on
        /// another thread while this one may be used too.
        func detached() -> Encoder {
            var copy = self
            copy.rowEncoder = JSONEncoder.persisted()
            return copy
        }

        /// The next piece of the body: whole rows, at least one, and at least `minimumSize` bytes unless the body
        /// ends first.
        /// - Returns: `nil` once the whole body has been returned.
        mutating func nextPiece(minimumSize: Int) throws -> Data? {
            guard !isFinished else { return nil }
            var piece = Data()
            piece.reserveCapacity(minimumSize == .max ? records.count * 512 + 64 : minimumSize + 4096)
            if bodyLength == 0 { emit([0x5B], to: &piece, framing: true) }
            let rowsBefore = rowsEncoded
            // At least one row per piece, so that every piece moves the snapshot on.
            while piece.count < minimumSize || rowsEncoded == rowsBefore, nextSection < sections.count {
                let section = sections[nextSection]
                if !isSectionOpen {
                    isSectionOpen = true
                    let opening = (nextSection == 0 ? "\n" : ",\n") + #"{"kind":"\#(section.kind.rawValue)","records":"#
                    emit(Array(opening.utf8), to: &piece, framing: true)
                    ranges.append(
                        Header.Section(
                            kind: section.kind.rawValue, offset: headerLength + bodyLength + piece.count, length: 0,
                            count: section.rows.count, crc32: ""))
                    crc = 0
                    emit([0x5B, 0x0A], to: &piece, section: true)
                }
                while piece.count < minimumSize || rowsEncoded == rowsBefore, rowsEncoded < section.rows.upperBound {
                    if rowsEncoded > section.rows.lowerBound { emit([0x2C, 0x0A], to: &piece, section: true) }
                    emit(try records[rowsEncoded].encodeRow(with: rowEncoder), to: &piece, section: true)
                    rowsEncoded += 1
                }
                if rowsEncoded == section.rows.upperBound {
                    emit([0x0A, 0x5D], to: &piece, section: true)
                    let last = ranges.count - 1
                    ranges[last].length = headerLength + bodyLength + piece.count - ranges[last].offset
                    ranges[last].crc32 = hex(crc)
                    emit([0x7D], to: &piece, framing: true)
                    nextSection += 1
                    isSectionOpen = false
                }
            }
            if nextSection == sections.count {
                emit(Array("\n]\n".utf8), to: &piece, framing: true)
                isFinished = true
            }
            bodyLength += piece.count
            return piece
        }

        /// The checksum of the section being written.
        private var crc: UInt32 = 0

        private mutating func emit<Bytes: ContiguousBytes & Collection<UInt8>>(
            _ bytes: Bytes, to piece: inout Data, framing isFraming: Bool = false, section: Bool = false
        ) {
            piece.append(contentsOf: bytes)
            bytes.withUnsafeBytes { raw in
                if isFraming { framingCRC = CRC32.checksum(raw, continuing: framingCRC) }
                if section { crc = CRC32.checksum(raw, continuing: crc) }
            }
        }

        /// The header line, padded to ``headerLength``: once every piece has been returned.
        func headerLine() throws -> Data {
            precondition(isFinished, "the header is known once the whole body has been encoded")
            var line = try rowEncoder.encode(
                Self.header(
                    generation: generation, recordCount: records.count, sequence: sequence, bodyLength: bodyLength,
                    framingCRC32: framingCRC, sections: ranges))
            // Numbers only ever narrow from the widest header: pad with spaces (JSON whitespace).
            line.append(contentsOf: [UInt8](repeating: 0x20, count: headerLength - 1 - line.count))
            line.append(0x0A)
            return line
        }

        private static func header(
            generation: Int, recordCount: Int, sequence: UInt64?, bodyLength: Int, framingCRC32: UInt32,
            sections: [Header.Section]
        ) -> Header {
            Header(
                format: formatName, schemaVersion: FileStoreSchema.currentVersion, generation: generation,
                recordCount: recordCount, layout: PersistedLayout.current.rawValue, sequence: sequence,
                bodyLength: bodyLength, framingCRC32: SnapshotFormat.hex(framingCRC32), sections: sections)
        }
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
