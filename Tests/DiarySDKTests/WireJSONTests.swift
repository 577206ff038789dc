@_spi(Engine) @testable import DiarySDK
import DiarySDKConformance
import Foundation
import Testing

/// The fast path (each type's own `Decodable` conformance over ``WireDocument``) builds exactly what `JSONDecoder`
/// builds from the same bytes, and where it gives up, ``WireJSON/decode(_:from:)`` answers exactly as `JSONDecoder`
/// does.
@Suite("Wire JSON reader")
struct WireJSONTests {
    private static let texts = [
        "", "Today I learned", "오늘 배운 것: async/await 🎉", "quote \" backslash \\ slash / tab \t newline \n",
        "control \u{01}\u{1F} and DEL \u{7F}", "é (precomposed) and e\u{301} (combining)", "\u{2028}\u{2029}", "😀👨‍👩‍👧",
    ]

    private func fastDecode<Value: Decodable>(_ type: Value.Type, _ data: Data) throws -> Value {
        try WireJSON.fastDecode(type, from: data)
    }

    private func post(_ generator: inout SeededRandomGenerator) -> Post {
        let pick = { (generator: inout SeededRandomGenerator, count: Int) in Int(generator.next() % UInt64(count)) }
        let image = { (generator: inout SeededRandomGenerator) in
            ImageReference(
                id: Attachment.ID(UUID()), contentType: ["image/png", "image/jpeg"][pick(&generator, 2)],
                byteCount: Int(generator.next() % 5_000_000))
        }
        let author: AuthorSummary? =
            switch pick(&generator, 3) {
            case 0: nil
            case 1: AuthorSummary(id: User.ID(UUID()), nickname: Self.texts[pick(&generator, Self.texts.count)])
            default: AuthorSummary(id: User.ID(UUID()), nickname: "몽실", avatar: image(&generator))
            }
        let source: PostSource =
            switch pick(&generator, 5) {
            case 0, 1: .original
            case 2: .diary(Diary.ID(UUID()))
            case 3: .blog(BlogImport(blogID: Blog.ID(UUID()), guid: nil, url: nil))
            default:
                .blog(
                    BlogImport(
                        blogID: Blog.ID(UUID()), guid: "tag:velog.io,2026:\(generator.next())",
                        url: URL(string: "https://velog.io/@minji/%ED%95%9C%EA%B8%80?x=1&y=2#top")))
            }
        let created = WireDate.normalized(Date(timeIntervalSince1970: Double(generator.next() % 4_000_000_000) / 1.7))
        return Post(
            id: Post.ID(UUID()), author: author, isMine: pick(&generator, 2) == 0, isAnonymous: pick(&generator, 2) == 0,
            title: Self.texts[pick(&generator, Self.texts.count)],
            body: (0..<pick(&generator, 4)).map { _ in Self.texts[pick(&generator, Self.texts.count)] }.joined(separator: "\n"),
            tags: (0..<pick(&generator, 3)).map { "tag\($0)" }, images: (0..<pick(&generator, 5)).map { _ in image(&generator) },
            source: source, day: LocalDate(created, in: TimeZone(identifier: "Asia/Seoul")!),
            likeCount: pick(&generator, 3) == 0 ? Int.max : Int(generator.next() % 1_000), commentCount: -pick(&generator, 2),
            isLiked: pick(&generator, 2) == 0, createdAt: created,
            updatedAt: WireDate.normalized(created.addingTimeInterval(0.000001)))
    }

    @Test(arguments: [1 as UInt64, 2, 3, 4])
    func pagesOfPostsReadExactlyAsJSONDecoderReadsThem(seed: UInt64) throws {
        var generator = SeededRandomGenerator(seed: seed)
        for pageIndex in 0..<25 {
            let posts = (0..<Int(generator.next() % 21)).map { _ in post(&generator) }
            let page =
                pageIndex % 2 == 0
                ? Page(items: posts, nextCursor: PageCursor(rawValue: "djE6MTIz"), isLastPage: false, size: 20)
                : Page(items: posts, pageNumber: 3, totalPages: 7, isLastPage: pageIndex % 4 == 1, size: 20)
            let data = try JSONEncoder.diary().encode(page)
            let fast = try fastDecode(Page<Post>.self, data)
            // Booleans, so a failure does not print whole pages.
            let sameAsJSONDecoder = fast == (try JSONDecoder.diary().decode(Page<Post>.self, from: data))
            let sameAsEncoded = fast == page
            #expect(sameAsJSONDecoder, "page \(pageIndex)")
            #expect(sameAsEncoded, "page \(pageIndex)")
            let viaWireJSON = try WireJSON.decode(Page<Post>.self, from: data) == page
            #expect(viaWireJSON)
        }
    }

    @Test(arguments: [5 as UInt64, 6])
    func pagesOfDiaryEntriesReadExactlyAsJSONDecoderReadsThem(seed: UInt64) throws {
        var generator = SeededRandomGenerator(seed: seed)
        for _ in 0..<25 {
            let entries = (0..<Int(generator.next() % 21)).map { index -> Diary in
                let created = WireDate.normalized(Date(timeIntervalSince1970: Double(generator.next() % 4_000_000_000) / 1.3))
                let inBook = generator.next() % 3 == 0
                return Diary(
                    id: Diary.ID(UUID()), authorID: User.ID(UUID()), bookID: inBook ? DiaryBook.ID(UUID()) : nil,
                    day: LocalDate(created, in: TimeZone(identifier: "Asia/Seoul")!),
                    title: Self.texts[Int(generator.next() % UInt64(Self.texts.count))],
                    body: Self.texts[Int(generator.next() % UInt64(Self.texts.count))],
                    mood: generator.next() % 2 == 0 ? nil : Mood.happy, tags: index % 2 == 0 ? ["til", "몽실"] : [],
                    images: index % 3 == 0 ? [ImageReference(id: Attachment.ID(UUID()), contentType: "image/png", byteCount: 12)] : [],
                    visibility: inBook ? .members : (generator.next() % 2 == 0 ? .private : .shared),
                    isHidden: generator.next() % 2 == 0, isFavourite: generator.next() % 2 == 0, createdAt: created,
                    updatedAt: created, deletedAt: inBook && generator.next() % 2 == 0 ? created : nil)
            }
            let page = Page(items: entries, nextCursor: nil, isLastPage: true, size: 20)
            let data = try JSONEncoder.diary().encode(page)
            let fast = try fastDecode(Page<Diary>.self, data)
            let sameAsJSONDecoder = fast == (try JSONDecoder.diary().decode(Page<Diary>.self, from: data))
            let sameAsEncoded = fast == page
            #expect(sameAsJSONDecoder)
            #expect(sameAsEncoded)
        }
        let unknownVisibility = Data(
            #"{"items":[{"id":"8a1c0a4e-2b3d-4c5e-8f60-718293a4b5c6","authorID":"8a1c0a4e-2b3d-4c5e-8f60-718293a4b5c6","day":"2026-03-01","title":"","body":"b","tags":[],"images":[],"visibility":"friends","isHidden":false,"isFavourite":false,"createdAt":"2026-03-01T00:00:00Z","updatedAt":"2026-03-01T00:00:00Z"}],"isLastPage":true,"size":20}"#
                .utf8)
        #expect(throws: WireReaderGaveUp.self) { try fastDecode(Page<Diary>.self, unknownVisibility) }
        #expect(throws: DecodingError.self) { try WireJSON.decode(Page<Diary>.self, from: unknownVisibility) }
    }

    @Test func whitespaceKeyOrderEscapesAndUnknownFieldsReadAsJSONDecoderReadsThem() throws {
        let json = #"""
             {  "size" : 20 , "isLastPage":true,"extra":{"nested":[1,-2.5e+3,true,null,"\u00e9",{}]},
               "items" : [ { "updatedAt":"2026-03-01T00:00:00.5Z","createdAt":"2026-03-01T09:00:00+09:00",
               "isLiked":false,"commentCount":0,"likeCount":-0,"day":"2026-03-01","source":{"blogID":
               "8A1C0A4E-2B3D-4C5E-8F60-718293A4B5C6","url":null,"unknown":[],"type":"blog"},"images":[],"tags":["\ud83d\ude00",
               "caf\u00E9"],"body":"line\/one\r\nline two \"quoted\" \\ \b\f\t","title":"\uD55C\uAE00","isAnonymous":true,
               "isMine":false,"id":"8a1c0a4e-2b3d-4c5e-8f60-718293a4b5c6","author":null,"score":1.5 } ] }
            """#
        let data = Data(json.utf8)
        let fast = try fastDecode(Page<Post>.self, data)
        #expect(fast == (try JSONDecoder.diary().decode(Page<Post>.self, from: data)))
        #expect(fast.items.first?.tags == ["😀", "café"])
        #expect(fast.items.first?.title == "한글")
        #expect(fast.items.first?.body == "line/one\r\nline two \"quoted\" \\ \u{08}\u{0C}\t")
    }

    /// Documents the reader gives up on: `WireJSON.decode` must then answer exactly as `JSONDecoder` does, value or
    /// error.
    @Test(arguments: [
        #"{"items":[],"isLastPage":true}"#,  // missing field
        #"{"items":[],"isLastPage":true,"size":20.0}"#,  // number form the reader leaves to JSONDecoder
        #"{"items":[],"isLastPage":true,"size":2e1}"#,
        #"{"items":[],"isLastPage":true,"size":020}"#,  // invalid JSON
        #"{"items":[],"isLastPage":true,"size":99999999999999999999}"#,
        #"{"items":[],"isLastPage":true,"size":20,"size":21}"#,  // repeated field
        #"{"items":[],"isLastPage":true,"size":20} x"#,  // data after the document
        #"{"items":[],"isLastPage":true,"size":20,"nextCursor":"\ud800"}"#,  // lone surrogate
        "{\"items\":[],\"isLastPage\":true,\"size\":20,\"nextCursor\":\"a\u{01}b\"}",  // raw control character
        #"{"items":[],"isLastPage":true,"size":20,"x":[1,]}"#,
        #"{"items":[],"isLastPage":"yes","size":20}"#,
        #"{"items":[{"id":"not-a-uuid"}],"isLastPage":true,"size":20}"#,
        #"{"items":null,"isLastPage":true,"size":20}"#,
        #"[]"#, #""#, #"{"#,
    ])
    func whereTheReaderGivesUpJSONDecoderDecides(_ json: String) throws {
        let data = Data(json.utf8)
        let reference = Result { try JSONDecoder.diary().decode(Page<Post>.self, from: data) }
        let answer = Result { try WireJSON.decode(Page<Post>.self, from: data) }
        switch (reference, answer) {
        case (.success(let expected), .success(let actual)): #expect(expected == actual)
        case (.failure, .failure): break
        default: Issue.record("JSONDecoder: \(reference); WireJSON: \(answer)")
        }
        #expect(throws: WireReaderGaveUp.self) { try fastDecode(Page<Post>.self, data) }
    }

    @Test func invalidUTF8InAStringIsRejectedByBoth() throws {
        for bytes: [UInt8] in [[0xC3, 0x28], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC0, 0xAF], [0xFF]] {
            var data = Data(#"{"items":[],"isLastPage":true,"size":20,"nextCursor":"a"#.utf8)
            data.append(contentsOf: bytes)
            data.append(contentsOf: Array(#"b"}"#.utf8))
            #expect(throws: WireReaderGaveUp.self) { try fastDecode(Page<Post>.self, data) }
            #expect(throws: (any Error).self) { try WireJSON.decode(Page<Post>.self, from: data) }
        }
    }

    @Test func aSuperDecoderIsFoundByNameEvenWhenTheKeysHaveNoSuperCase() throws {
        struct Child: Decodable, Equatable {
            var name: String
            var parent: String
            enum CodingKeys: String, CodingKey { case name }
            private struct Parent: Decodable { var name: String }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                name = try container.decode(String.self, forKey: .name)
                parent = try Parent(from: container.superDecoder()).name
            }
            init(name: String, parent: String) {
                self.name = name
                self.parent = parent
            }
        }
        let data = Data(#"{"name":"b","super":{"name":"a"}}"#.utf8)
        #expect(try fastDecode(Child.self, data) == Child(name: "b", parent: "a"))
        #expect(try JSONDecoder.diary().decode(Child.self, from: data) == Child(name: "b", parent: "a"))
        #expect(throws: WireReaderGaveUp.self) { try fastDecode(Child.self, Data(#"{"name":"b"}"#.utf8)) }
    }

    @Test func everyTypeTakesTheFastPathFromItsOwnDecodableConformance() throws {
        let user = User(id: User.ID(UUID()), nickname: "minji", createdAt: WireDate.normalized(Date()))
        let data = try JSONEncoder.diary().encode(user)
        #expect(try fastDecode(User.self, data) == user)
        let numbers = Data(#"{"a":[1,-2,3.25,-0.5e1,null],"b":{"c":[true,false]},"d":4294967295}"#.utf8)
        struct Numbers: Decodable, Equatable {
            var a: [Double?]
            var b: [String: [Bool]]
            var d: UInt32
            var e: Int8?
        }
        let expected = try JSONDecoder.diary().decode(Numbers.self, from: numbers)
        #expect(try fastDecode(Numbers.self, numbers) == expected)
        #expect(expected == Numbers(a: [1, -2, 3.25, -5, nil], b: ["c": [true, false]], d: 4_294_967_295, e: nil))
        // An integer that does not fit its type is left to JSONDecoder, which refuses it.
        let tooBig = Data(#"{"a":[],"b":{},"d":4294967296}"#.utf8)
        #expect(throws: WireReaderGaveUp.self) { try fastDecode(Numbers.self, tooBig) }
        #expect(throws: DecodingError.self) { try WireJSON.decode(Numbers.self, from: tooBig) }
    }
}
