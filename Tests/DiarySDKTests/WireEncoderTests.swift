@_spi(Engine) @testable import DiarySDK
import DiarySDKConformance
import Foundation
import Testing

/// ``WireJSON/encode(_:)``: the same bytes as `JSONEncoder.diary()`, taking its fast path for every value of the
/// wire format, and leaving everything else to `JSONEncoder`.
@Suite("Wire JSON writer")
struct WireEncoderTests {
    private static let texts = [
        "", "Today I learned", "오늘 배운 것: async/await 🎉", "quote \" backslash \\ slash / tab \t newline \n return \r",
        "control \u{00}\u{01}\u{08}\u{0B}\u{0C}\u{1F} and DEL \u{7F}", "é (precomposed) and e\u{301} (combining)",
        "\u{2028}\u{2029}", "😀👨‍👩‍👧", "<script>&amp;</script>",
    ]

    private func sameBytes<Value: Encodable>(_ value: Value) throws -> Bool {
        try WireJSON.fastEncode(value) == JSONEncoder.diary().encode(value)
    }

    private func text(_ generator: inout SeededRandomGenerator) -> String {
        Self.texts[Int(generator.next() % UInt64(Self.texts.count))]
    }

    private func image(_ generator: inout SeededRandomGenerator) -> ImageReference {
        ImageReference(id: Attachment.ID(UUID()), contentType: "image/png", byteCount: Int(generator.next() % 5_000_000))
    }

    private func post(_ generator: inout SeededRandomGenerator) -> Post {
        let pick = { (generator: inout SeededRandomGenerator, count: Int) in Int(generator.next() % UInt64(count)) }
        let author: AuthorSummary? =
            switch pick(&generator, 3) {
            case 0: nil
            case 1: AuthorSummary(id: User.ID(UUID()), nickname: text(&generator))
            default: AuthorSummary(id: User.ID(UUID()), nickname: "몽실", avatar: image(&generator))
            }
        let source: PostSource =
            switch pick(&generator, 4) {
            case 0: .original
            case 1: .diary(Diary.ID(UUID()))
            case 2: .blog(BlogImport(blogID: Blog.ID(UUID()), guid: nil, url: nil))
            default:
                .blog(BlogImport(
                    blogID: Blog.ID(UUID()), guid: "tag:velog.io,2026:\(generator.next())",
                    url: URL(string: "https://velog.io/@minji/%ED%95%9C%EA%B8%80?x=1&y=2#top")))
            }
        let created = Date(timeIntervalSince1970: Double(generator.next() % 4_000_000_000) / 1.7)
        return Post(
            id: Post.ID(UUID()), author: author, isMine: pick(&generator, 2) == 0, isAnonymous: pick(&generator, 2) == 0,
            title: text(&generator), body: (0..<pick(&generator, 4)).map { _ in text(&generator) }.joined(separator: "\n"),
            tags: (0..<pick(&generator, 3)).map { "tag\($0)" }, images: (0..<pick(&generator, 5)).map { _ in image(&generator) },
            source: source, day: LocalDate(created, in: TimeZone(identifier: "Asia/Seoul")!),
            likeCount: pick(&generator, 3) == 0 ? Int.max : Int(generator.next() % 1_000), commentCount: -pick(&generator, 2),
            isLiked: pick(&generator, 2) == 0, createdAt: created, updatedAt: created.addingTimeInterval(0.000_001))
    }

    @Test(arguments: [1 as UInt64, 2, 3])
    func pagesOfPostsAreWrittenByteForByteAsJSONEncoderWritesThem(seed: UInt64) throws {
        var generator = SeededRandomGenerator(seed: seed)
        for pageIndex in 0..<40 {
            let posts = (0..<Int(generator.next() % 21)).map { _ in post(&generator) }
            let page =
                pageIndex % 2 == 0
                ? Page(items: posts, nextCursor: PageCursor(rawValue: "djE6MTIz"), isLastPage: false, size: 20)
                : Page(items: posts, pageNumber: 3, totalPages: 7, isLastPage: pageIndex % 4 == 1, size: 20)
            #expect(try sameBytes(page), "page \(pageIndex)")
            #expect(try WireJSON.encode(page) == JSONEncoder.diary().encode(page))
        }
    }

    @Test func theOtherWireValuesAreWrittenByteForByteAsJSONEncoderWritesThem() throws {
        var generator = SeededRandomGenerator(seed: 9)
        let now = Date(timeIntervalSince1970: 1_780_000_000.123_456)
        for _ in 0..<30 {
            let comment = Comment(
                id: Comment.ID(UUID()), target: generator.next() % 2 == 0 ? .post(Post.ID(UUID())) : .diary(Diary.ID(UUID())),
                parentID: generator.next() % 2 == 0 ? Comment.ID(UUID()) : nil,
                author: generator.next() % 2 == 0 ? nil : AuthorSummary(id: User.ID(UUID()), nickname: text(&generator)),
                isMine: true, isAnonymous: false, body: text(&generator), mood: generator.next() % 2 == 0 ? .happy : nil,
                createdAt: now, updatedAt: now)
            let thread = CommentThread(comment: comment, replies: [comment, comment])
            #expect(try sameBytes(Page(items: [thread], nextCursor: nil, isLastPage: true, size: 20)))
            let diary = Diary(
                id: Diary.ID(UUID()), authorID: User.ID(UUID()), bookID: nil, day: LocalDate(now, in: TimeZone(identifier: "UTC")!),
                title: text(&generator), body: text(&generator), mood: .happy, tags: ["til", "몽실"], images: [image(&generator)],
                visibility: .shared, isHidden: false, isFavourite: true, createdAt: now, updatedAt: now, deletedAt: nil)
            #expect(try sameBytes(diary))
            #expect(try sameBytes(User(id: User.ID(UUID()), nickname: text(&generator), createdAt: now)))
            #expect(try sameBytes(["title": text(&generator), "body": text(&generator)]))
        }
    }

    @Test func keysAreSortedAsJSONEncoderSortsThem() throws {
        struct Keys: Encodable {
            var b = 1, B = 2, a = 3, Ab = 4, aB = 5, _x = 6, zeta = 7, Zeta = 8, alpha_beta = 9, alphaBeta = 10
        }
        // Keys whose order depends on letter case (bytes on Linux, case-insensitive on older Apple systems) are left
        // to JSONEncoder, so the bytes are that platform's.
        #expect(throws: WireWriterGaveUp.self) { try WireJSON.fastEncode(Keys()) }
        #expect(try WireJSON.encode(Keys()) == JSONEncoder.diary().encode(Keys()))
        #expect(throws: WireWriterGaveUp.self) { try WireJSON.fastEncode(["a": 1, "B": 2]) }
        #expect(try sameBytes(["b": 1, "A": 2]), "the same order either way")
        let camelCase = ["isLiked": 1, "isMine": 2, "images": 3, "id": 4, "likeCount": 5, "nextCursor": 7]
        #expect(try sameBytes(camelCase))
    }

    @Test func whatItDoesNotWriteItLeavesToJSONEncoder() throws {
        struct Measured: Encodable { var seconds = 1.5 }
        struct Blob: Encodable { var bytes = Data([1, 2, 3]) }
        struct Inherited: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encode(1, forKey: AnyKey(stringValue: "a")!)
                _ = container.superEncoder()
            }
        }
        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        #expect(throws: WireWriterGaveUp.self) { try WireJSON.fastEncode(Measured()) }
        #expect(throws: WireWriterGaveUp.self) { try WireJSON.fastEncode(Blob()) }
        #expect(throws: WireWriterGaveUp.self) { try WireJSON.fastEncode(["key1": 1]) }
        #expect(throws: WireWriterGaveUp.self) { try WireJSON.fastEncode(["ключ": 1]) }
        #expect(throws: WireWriterGaveUp.self) { try WireJSON.fastEncode(Inherited()) }
        struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }
        struct Swallowed: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encode(1, forKey: AnyKey(stringValue: "a")!)
                try? container.encode(2.5, forKey: AnyKey(stringValue: "b")!)
            }
        }
        // JSONEncoder refuses a top-level value that encodes nothing; so does WireJSON.encode.
        #expect(throws: WireWriterGaveUp.self) { try WireJSON.fastEncode(Nothing()) }
        #expect(throws: EncodingError.self) { try WireJSON.encode(Nothing()) }
        #expect(try WireJSON.encode([Nothing()]) == JSONEncoder.diary().encode([Nothing()]))
        // A conformance that swallows the fast path's refusal still gets JSONEncoder's bytes.
        #expect(throws: WireWriterGaveUp.self) { try WireJSON.fastEncode(Swallowed()) }
        #expect(try WireJSON.encode(Swallowed()) == JSONEncoder.diary().encode(Swallowed()))
        #expect(try WireJSON.encode(Measured()) == JSONEncoder.diary().encode(Measured()))
        #expect(try WireJSON.encode(Blob()) == JSONEncoder.diary().encode(Blob()))
        #expect(try WireJSON.encode(["key1": 1, "key10": 2, "key2": 3]) == JSONEncoder.diary().encode(["key1": 1, "key10": 2, "key2": 3]))
    }
}
