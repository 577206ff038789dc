@_spi(Engine) @_spi(Storage) @testable import DiarySDK
import DiarySDKConformance
import Foundation
import Testing

/// ``WireJSON/streamEncode(_:)``, the file store's journal writer: the JSON `JSONEncoder.persisted()` writes without
/// sorted keys (which writes members in no particular order), members in encoding order, and a refusal (never
/// different JSON) for what it does not write.
@Suite("Wire JSON stream writer")
struct WireStreamEncoderTests {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The journal's own encoder when the stream writer gives up.
    private static func unsortedEncoder() -> JSONEncoder {
        let encoder = JSONEncoder.persisted()
        encoder.outputFormatting.remove(.sortedKeys)
        return encoder
    }

    private func json(_ data: Data) throws -> NSObject {
        try #require(JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? NSObject)
    }

    @Test func everyKindOfRowIsWrittenAsTheJournalsEncoderWritesItAndReadsBack() throws {
        var random = RandomStoreRecords(seed: 51)
        var kinds: Set<RecordKind> = []
        for _ in 0..<3_000 {
            let record = random.record()
            kinds.insert(record.kind)
            let streamed = try WireJSON.streamEncode(record)
            let expected = try Self.unsortedEncoder().encode(record)
            // The same JSON (`JSONEncoder` without sorted keys writes members in no particular order).
            #expect(try json(streamed) == json(expected), "\(String(decoding: streamed, as: UTF8.self))")
            #expect(try JSONDecoder.persisted().decode(StoreRecord.self, from: streamed) == record)
            #expect(try WireJSON.fastDecode(StoreRecord.self, from: streamed) == record)
        }
        #expect(kinds == Set(RecordKind.allCases))
        // Many rows in one array, as a journal record holds them.
        let batch = (0..<200).map { _ in random.record() }
        #expect(try json(WireJSON.streamEncode(batch)) == json(Self.unsortedEncoder().encode(batch)))
    }

    @Test func membersAreWrittenInEncodingOrderAndNestedContainersCloseInPlace() throws {
        struct Ordered: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encode(2, forKey: AnyKey("zeta"))
                var nested = container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("inner"))
                try nested.encode("x", forKey: AnyKey("b"))
                var list = nested.nestedUnkeyedContainer(forKey: AnyKey("list"))
                try list.encode(true)
                try list.encodeNil()
                var deep = list.nestedContainer(keyedBy: AnyKey.self)
                try deep.encode(-7, forKey: AnyKey("n"))
                try list.encode([Int]())
                try nested.encode("y", forKey: AnyKey("a"))
                try container.encodeIfPresent(nil as Int?, forKey: AnyKey("skipped"))
                try container.encode(nil as Int?, forKey: AnyKey("null"))
                try container.encode(UInt64.max, forKey: AnyKey("alpha"))
            }
        }
        let bytes = String(decoding: try WireJSON.streamEncode(Ordered()), as: UTF8.self)
        #expect(bytes == #"{"zeta":2,"inner":{"b":"x","list":[true,null,{"n":-7},[]],"a":"y"},"null":null,"alpha":18446744073709551615}"#)
        #expect(try json(Data(bytes.utf8)) == json(Self.unsortedEncoder().encode(Ordered())))
    }

    @Test func scalarsAndEmptyValuesAreWrittenAsJSONEncoderWritesThem() throws {
        struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }
        struct Holder: Encodable {
            var nothing = Nothing()
            var nothings = [Nothing(), Nothing()]
            var text = "quote \" backslash \\ slash / tab \t newline \n control \u{01} 🎉 e\u{301}"
            var url = URL(string: "https://velog.io/@minji/%ED%95%9C%EA%B8%80?x=1&y=2#top")!
            var flags = [true, false]
            var small: Int8 = -128
        }
        let streamed = try WireJSON.streamEncode(Holder())
        #expect(try json(streamed) == json(Self.unsortedEncoder().encode(Holder())))
        #expect(String(decoding: streamed, as: UTF8.self).hasPrefix(#"{"nothing":{},"nothings":[{},{}],"#))
        #expect(try WireJSON.streamEncode([String: Int]()) == Data("{}".utf8))
        #expect(try WireJSON.streamEncode("top") == Data(#""top""#.utf8))
        // JSONEncoder refuses a top-level value that encodes nothing; so does the stream writer.
        #expect(throws: WireWriterGaveUp.self) { try WireJSON.streamEncode(Nothing()) }
    }

    @Test func whatItDoesNotWriteItRefusesInsteadOfWritingSomethingElse() throws {
        struct Measured: Encodable { var seconds = 1.5 }
        struct Blob: Encodable { var bytes = Data([1, 2, 3]) }
        // The journal's encoder writes a date by its date strategy (the rows write theirs as strings themselves).
        struct Dated: Encodable { var day = Date(timeIntervalSince1970: 1_780_000_000) }
        struct WrittenThroughASuperEncoder: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encode(1, forKey: AnyKey("a"))
                var inherited = container.superEncoder().container(keyedBy: AnyKey.self)
                try inherited.encode(2, forKey: AnyKey("b"))
                var list = container.superEncoder(forKey: AnyKey("c")).unkeyedContainer()
                try list.encode(3)
            }
        }
        struct Refusing: Encodable {
            struct Failure: Error {}
            func encode(to encoder: any Encoder) throws { throw Failure() }
        }
        // A member whose conformance throws, caught by the conformance around it: its key is already written.
        struct CatchingAMember: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encode(1, forKey: AnyKey("a"))
                try? container.encode(Refusing(), forKey: AnyKey("b"))
            }
        }
        struct CatchingAnElement: Encodable {
            func encode(to encoder: any Encoder) throws {
                var list = encoder.unkeyedContainer()
                try list.encode(1)
                try? list.encode(Refusing())
            }
        }
        struct Inherited: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encode(1, forKey: AnyKey("a"))
                _ = container.superEncoder()
            }
        }
        struct BackToAnInnerContainer: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                var first = container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("first"))
                try container.encode(1, forKey: AnyKey("second"))
                // The stream has closed `first` and moved on: writing to it now is refused.
                try first.encode(2, forKey: AnyKey("late"))
            }
        }
        struct Swallowed: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encode(1, forKey: AnyKey("a"))
                try? container.encode(2.5, forKey: AnyKey("b"))
            }
        }
        struct TwoValuesInOnePlace: Encodable {
            func encode(to encoder: any Encoder) throws {
                var single = encoder.singleValueContainer()
                try single.encode(1)
                try single.encode(2)
            }
        }
        let refused: [any Encodable] = [
            Measured(), Blob(), Dated(), Inherited(), WrittenThroughASuperEncoder(), BackToAnInnerContainer(),
            Swallowed(), TwoValuesInOnePlace(), CatchingAMember(), CatchingAnElement(), [CatchingAMember()],
        ]
        for value in refused {
            #expect(throws: WireWriterGaveUp.self, "\(type(of: value))") { try WireJSON.streamEncode(value) }
        }
    }

    @Test func aSecondContainerFromTheSameEncoderIsTheFirst() throws {
        struct Split: Encodable {
            func encode(to encoder: any Encoder) throws {
                var first = encoder.container(keyedBy: AnyKey.self)
                try first.encode(1, forKey: AnyKey("a"))
                var second = encoder.container(keyedBy: AnyKey.self)
                try second.encode(2, forKey: AnyKey("b"))
            }
        }
        #expect(String(decoding: try WireJSON.streamEncode([Split()]), as: UTF8.self) == #"[{"a":1,"b":2}]"#)
    }
}
