@_spi(Engine) @_spi(Storage) @testable import DiarySDK
import DiarySDKConformance
import Foundation
import Testing

/// ``StoreRecord/decodePersisted(from:)`` and ``StoreRecord/encodePersisted()``: the fast reading and writing of a
/// stored row that the PostgreSQL store uses for every row it reads and writes. They must read what `JSONDecoder`
/// reads and write what `JSONEncoder` writes, and must not fall back to them on ordinary rows, or they would be no
/// faster.
@Suite("Persisted row decoding")
struct PersistedRowDecodingTests {
    @Test func everyKindOfRowIsReadByTheFastPathAsJSONDecoderReadsIt() throws {
        var random = RandomStoreRecords(seed: 41)
        var kinds: Set<RecordKind> = []
        for _ in 0..<3_000 {
            let record = random.record()
            kinds.insert(record.kind)
            let data = try JSONEncoder.persisted().encode(record)
            let fast = try WireJSON.fastDecode(StoreRecord.self, from: data)
            #expect(fast == record, "\(String(decoding: data, as: UTF8.self))")
            #expect(try StoreRecord.decodePersisted(from: data) == record)
        }
        #expect(kinds == Set(RecordKind.allCases))
    }

    @Test func everyKindOfRowIsWrittenByTheFastPathWithJSONEncodersBytes() throws {
        // ``StoreRecord/encodePersisted()``, which the PostgreSQL store writes every row with: the same bytes as
        // the persisted encoder, and without falling back to it on ordinary rows.
        var random = RandomStoreRecords(seed: 45)
        var kinds: Set<RecordKind> = []
        for _ in 0..<3_000 {
            let record = random.record()
            kinds.insert(record.kind)
            let expected = String(decoding: try JSONEncoder.persisted().encode(record), as: UTF8.self)
            let fast = String(decoding: try WireJSON.fastEncode(record), as: UTF8.self)
            #expect(fast == expected)
            #expect(String(decoding: try record.encodePersisted(), as: UTF8.self) == expected)
        }
        #expect(kinds == Set(RecordKind.allCases))
    }

    @Test func rowsAsPostgreSQLPrintsThemAreReadByTheFastPath() throws {
        // `jsonb` prints `{"a": 1, "b": [1, 2]}`: a blank after each colon and comma, members in its own order.
        var random = RandomStoreRecords(seed: 42)
        for _ in 0..<500 {
            let record = random.record()
            let compact = String(decoding: try JSONEncoder.persisted().encode(record), as: UTF8.self)
            let object = try JSONSerialization.jsonObject(with: Data(compact.utf8))
            var spaced = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes]), as: UTF8.self)
            spaced = Self.spaced(spaced)
            #expect(try WireJSON.fastDecode(StoreRecord.self, from: Data(spaced.utf8)) == record, "\(spaced)")
        }
    }

    @Test func damagedRowsFailAsJSONDecoderFailsAndNeverCrash() throws {
        var random = RandomStoreRecords(seed: 43)
        var generator = SeededRandomGenerator(seed: 44)
        var rejected = 0
        for _ in 0..<1_000 {
            var bytes = Array(try JSONEncoder.persisted().encode(random.record()))
            switch generator.next() % 3 {
            case 0: bytes.removeLast(Int(generator.next() % UInt64(bytes.count)))
            case 1: bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            default: bytes.insert(contentsOf: Array(#"{"x":"#.utf8), at: Int(generator.next() % UInt64(bytes.count)))
            }
            let data = Data(bytes)
            let expected = try? JSONDecoder.persisted().decode(StoreRecord.self, from: data)
            let fast = try? StoreRecord.decodePersisted(from: data)
            #expect(fast == expected, "\(String(decoding: data, as: UTF8.self))")
            if expected == nil { rejected += 1 }
        }
        #expect(rejected > 500)
    }

    /// Writes JSON text the way `jsonb` prints it: `": "` and `", "` between members and elements.
    static func spaced(_ json: String) -> String {
        var output = ""
        var inString = false
        var escaped = false
        for character in json {
            output.append(character)
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == ":" || character == "," {
                output.append(" ")
            }
        }
        return output
    }
}
