@_spi(Storage) import DiarySDK
import Foundation
import Testing

@testable import DiarySDKFileStore

@Suite("File store formats")
struct FormatTests {
    @Test func crc32MatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(of: Data("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum(of: Data()) == 0)
        let long = Data((0..<1_000).map { UInt8($0 % 251) })
        var bytewise: UInt32 = 0xFFFF_FFFF
        for byte in long {
            bytewise ^= UInt32(byte)
            for _ in 0..<8 { bytewise = (bytewise & 1) != 0 ? (bytewise >> 1) ^ 0xEDB8_8320 : bytewise >> 1 }
        }
        #expect(CRC32.checksum(of: long) == bytewise ^ 0xFFFF_FFFF)
    }

    @Test func journalRecordsAreLengthPrefixedAndChecksummed() throws {
        let payloads = [Data(#"{"a":1}"#.utf8), Data(#"{"b":22}"#.utf8)]
        let journal = payloads.map(JournalFormat.frame).reduce(Data(), +)
        #expect(journal.prefix(4) == Data([7, 0, 0, 0]))
        let scan = try JournalFormat.scan(journal, file: "journal-1.log", allowTornTail: false)
        #expect(scan.payloads == payloads)
        #expect(scan.offsets == [0, 15])
        #expect(scan.validLength == journal.count)
        #expect(scan.tornBytes == 0)
    }

    /// Since schema 5 a journal ends in space reserved for the records to come: zero bytes, in any journal, are
    /// neither a record nor damage.
    @Test func zeroBytesAfterTheLastRecordAreReservedSpace() throws {
        let record = JournalFormat.frame(Data(#"{"a":1}"#.utf8))
        for allowTornTail in [true, false] {
            let scan = try JournalFormat.scan(record + Data(count: 64), file: "journal-1.log", allowTornTail: allowTornTail)
            #expect(scan.payloads.count == 1)
            #expect(scan.validLength == record.count)
            #expect(scan.tornBytes == 0)
        }
        let empty = try JournalFormat.scan(Data(count: 4_096), file: "journal-1.log", allowTornTail: false)
        #expect(empty.payloads.isEmpty && empty.validLength == 0 && empty.tornBytes == 0)
    }

    /// An append torn inside the reserved space is a torn tail, counted up to its last byte that is not zero; the
    /// same bytes with an intact record after them are damage.
    @Test func aRecordTornInsideTheReservedSpaceIsATornTail() throws {
        let first = JournalFormat.frame(Data(#"{"a":1}"#.utf8))
        let second = JournalFormat.frame(Data(#"{"b":22}"#.utf8))
        let torn = first + second.prefix(second.count - 3) + Data(count: 100)
        let scan = try JournalFormat.scan(torn, file: "journal-1.log", allowTornTail: true)
        #expect(scan.payloads.count == 1)
        #expect(scan.validLength == first.count)
        #expect(scan.tornBytes == second.count - 3)
        #expect(throws: DiaryError.self) { try JournalFormat.scan(torn, file: "journal-1.log", allowTornTail: false) }
        let damaged = first + second.prefix(second.count - 3) + Data(count: 100) + first
        #expect(throws: DiaryError.self) { try JournalFormat.scan(damaged, file: "journal-1.log", allowTornTail: true) }
    }

    /// A torn append whose header page never reached the disk while a later page of it did: zeros where the header
    /// should be, then bytes of the payload, then reserved space. With nothing intact after it, it is a torn tail.
    @Test func anAppendTornBeforeItsHeaderReachedTheDiskIsATornTail() throws {
        let first = JournalFormat.frame(Data(#"{"a":1}"#.utf8))
        let second = JournalFormat.frame(Data((#"{"b":""# + String(repeating: "x", count: 5_000) + #""}"#).utf8))
        var torn = first + second + Data(count: 4_096)
        torn.replaceSubrange(first.count..<4_096, with: Data(count: 4_096 - first.count))
        let scan = try JournalFormat.scan(torn, file: "journal-1.log", allowTornTail: true)
        #expect(scan.payloads.count == 1)
        #expect(scan.validLength == first.count)
        #expect(scan.tornBytes > 0)
        #expect(throws: DiaryError.self) { try JournalFormat.scan(torn, file: "journal-1.log", allowTornTail: false) }
    }

    /// Reserved space grows with the journal, in whole pages, from 64 KiB to 1 MiB at a time.
    @Test func reservedSpaceGrowsWithTheJournalWithinItsBounds() {
        #expect(JournalFormat.preallocation(after: 0) == 64 << 10)
        #expect(JournalFormat.preallocation(after: 100_001) == (100_001 + 4_095) & ~4_095)
        #expect(JournalFormat.preallocation(after: 10 << 20) == 1 << 20)
        for length in [0, 1, 70_000, 500_000, 5_000_000] {
            #expect(JournalFormat.preallocation(after: length) % 4_096 == 0)
        }
    }

    @Test func snapshotsRoundTripEveryKindAndStayReadableJSON() throws {
        let user = User(
            id: User.ID(UUID()), nickname: "alice", email: "alice@example.com",
            createdAt: Date(timeIntervalSince1970: 1_767_225_600))
        let entries = (0..<(SnapshotFormat.sectionSize + 10)).map { index in
            StoreRecord.diary(
                Diary(
                    id: Diary.ID(UUID()), authorID: user.id, day: LocalDate(year: 2026, month: 1, day: 1)!,
                    title: "\(index)", body: "body", createdAt: user.createdAt, updatedAt: user.createdAt))
        }
        let records = [StoreRecord.user(user)] + entries
        let data = try SnapshotFormat.encode(records, generation: 7, sequence: 41)
        #expect(try SnapshotFormat.decode(data, file: "snapshot-7.json") == records)

        let newline = try #require(data.firstIndex(of: 0x0A))
        let header = try JSONDecoder().decode(SnapshotFormat.Header.self, from: data[..<newline])
        #expect(header.sequence == 41)
        #expect(header.sections.map(\.kind) == ["user", "diary", "diary"])
        #expect(header.sections.map(\.count) == [1, SnapshotFormat.sectionSize, 10])
        let body = try JSONSerialization.jsonObject(with: data[(newline + 1)...]) as? [[String: Any]]
        #expect(body?.count == 3)
        for section in header.sections {
            #expect(data[section.offset] == UInt8(ascii: "["))
            #expect(data[section.offset + section.length - 1] == UInt8(ascii: "]"))
        }
    }

    /// A compaction writes its snapshot as it encodes it: the pieces, whatever their size, laid out after the header
    /// reserved up front, are the same file as the snapshot encoded whole, and each piece holds whole rows.
    @Test func aSnapshotEncodedInPiecesIsTheSnapshotEncodedWhole() throws {
        let user = User(
            id: User.ID(UUID()), nickname: "alice", createdAt: Date(timeIntervalSince1970: 1_767_225_600))
        let entries = (0..<(SnapshotFormat.sectionSize + 10)).map { index in
            StoreRecord.diary(
                Diary(
                    id: Diary.ID(UUID()), authorID: user.id, day: LocalDate(year: 2026, month: 1, day: 1)!,
                    title: "\(index)", body: String(repeating: "b", count: index % 700), createdAt: user.createdAt,
                    updatedAt: user.createdAt))
        }
        let other = User(id: User.ID(UUID()), nickname: "bob", createdAt: user.createdAt)
        let cases: [(records: [StoreRecord], sequence: UInt64?)] = [
            // Three kinds of section (the last one short), a section boundary inside a piece.
            ([StoreRecord.user(user)] + entries + [StoreRecord.user(other)], UInt64.max - 1),
            ([StoreRecord.user(user)], nil),
            ([], 0),
        ]
        for (records, sequence) in cases {
            try expectPiecesMakeTheWhole(records, sequence: sequence)
        }
    }

    private func expectPiecesMakeTheWhole(_ records: [StoreRecord], sequence: UInt64?) throws {
        let whole = try SnapshotFormat.encode(records, generation: 3, sequence: sequence)
        #expect(try SnapshotFormat.decode(whole, file: "snapshot-3.json") == records)

        for minimumSize in [1, 1_000, 64 * 1024] {
            var encoder = try SnapshotFormat.Encoder(records: records, generation: 3, sequence: sequence)
            var file = Data(count: encoder.headerLength)
            var pieces = 0
            var rowsBefore = 0
            while let piece = try encoder.nextPiece(minimumSize: minimumSize) {
                #expect(encoder.rowsEncoded > rowsBefore || encoder.rowsEncoded == records.count)
                rowsBefore = encoder.rowsEncoded
                #expect(file.count == encoder.headerLength + encoder.bodyLength - piece.count)
                file.append(piece)
                pieces += 1
            }
            #expect(try encoder.nextPiece(minimumSize: minimumSize) == nil)
            #expect(encoder.rowsEncoded == records.count)
            file.replaceSubrange(0..<encoder.headerLength, with: try encoder.headerLine())
            #expect(file == whole, "pieces of at least \(minimumSize) bytes")
            #expect(pieces >= (minimumSize == 1 ? records.count : whole.count / (minimumSize + 4096)))
        }
    }

    /// A checksum taken piece by piece is the checksum of the whole.
    @Test func aChecksumContinuedPieceByPieceIsTheChecksumOfTheWhole() {
        let bytes = Data((0..<10_000).map { UInt8(($0 * 7) % 256) })
        var crc: UInt32 = 0
        for start in stride(from: 0, to: bytes.count, by: 333) {
            crc = bytes[start..<min(bytes.count, start + 333)].withUnsafeBytes { CRC32.checksum($0, continuing: crc) }
        }
        #expect(crc == CRC32.checksum(of: bytes))
    }

    /// A `Set` iterates in an order that depends on the process's hash seed and the set's history, so settings must be
    /// encoded sorted for a snapshot to be a function of its rows.
    @Test func aSnapshotIsAFunctionOfItsRowsWhateverTheSetsHistory() throws {
        let kinds = NotificationKind.allCases
        var forward = Set<NotificationKind>()
        for kind in kinds { forward.insert(kind) }
        var backward = Set<NotificationKind>(minimumCapacity: 64)
        for kind in kinds.reversed() { backward.insert(kind) }
        #expect(forward == backward)
        let created = Date(timeIntervalSince1970: 1_767_225_600)
        let id = User.ID(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)
        func snapshot(_ notifications: Set<NotificationKind>) throws -> Data {
            let user = User(
                id: id, nickname: "alice", createdAt: created, settings: UserSettings(notifications: notifications))
            return try SnapshotFormat.encode([.user(user)], generation: 1, sequence: 0)
        }
        #expect(try snapshot(forward) == snapshot(backward))

        let settings = try JSONEncoder.diary().encode(UserSettings(notifications: backward))
        let object = try JSONSerialization.jsonObject(with: settings) as? [String: Any]
        let encoded = try #require(object?["notifications"] as? [String])
        #expect(encoded == kinds.map(\.rawValue).sorted())
    }
}
