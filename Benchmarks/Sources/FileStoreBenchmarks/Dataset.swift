@_spi(Engine) import DiarySDK
import DiarySDKConformance
import Foundation

/// The entries both stores are filled with: one author, days spread over ten years, two tags each from a pool of
/// 40, a title and a body of about 300 characters — a heavy diary writer's decade.
struct Dataset {
    static let tagPool = (0..<40).map { "tag\($0)" }
    static let searchTag = "tag7"
    static let calendarMonth = YearMonth(year: 2024, month: 5)!
    static let start = Date(timeIntervalSince1970: 1_420_070_400)  // 2015-01-01
    static let words = ["today", "learned", "swift", "journal", "fsync", "coffee", "walk", "rain", "book", "friend", "quiet"]
    /// The diary author: the first id a store's `SequentialIDGenerator` hands out, i.e. the first account.
    static let author = User.ID(SequentialIDGenerator().next())

    let entries: [Diary]

    init(count: Int, seed: UInt64 = 42) {
        var random = SeededRandomGenerator(seed: seed)  // every run benchmarks the same kind of data
        let utc = TimeZone(identifier: "UTC")!
        entries = (0..<count).map { index in
            let dayOffset = Int(random.next() % 3650)
            let created = WireDate.normalized(Self.start.addingTimeInterval(Double(dayOffset) * 86_400 + Double(index % 86_400)))
            let body = (0..<48).map { _ in Self.words[Int(random.next() % UInt64(Self.words.count))] }.joined(separator: " ")
            let first = Int(random.next() % 40)
            let second = (first + 1 + Int(random.next() % 39)) % 40
            return Diary(
                id: Diary.ID(UUID()), authorID: Self.author, day: LocalDate(created, in: utc),
                title: "Entry \(index)", body: body, mood: index % 3 == 0 ? "😊" : nil,
                tags: [Self.tagPool[first], Self.tagPool[second]], createdAt: created, updatedAt: created)
        }
    }

    /// The body of the `index`th single write.
    static func draft(_ index: Int) -> DiaryDraft {
        DiaryDraft(
            day: LocalDate(year: 2026, month: 1, day: index % 28 + 1), title: "Single \(index)",
            body: "A durable single write number \(index), with a body of ordinary length for a diary.",
            tags: ["bench", tagPool[index % 40]])
    }

    /// The `index`th single write as the entry SQLite stores.
    static func entry(_ index: Int) -> Diary {
        let now = WireDate.normalized(Date())
        let draft = draft(index)
        return Diary(
            id: Diary.ID(UUID()), authorID: author, day: draft.day!, title: draft.title, body: draft.body,
            tags: draft.tags, createdAt: now, updatedAt: now)
    }
}

func temporaryDirectory(_ name: String) -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("diarysdk-bench-\(name)-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
