import DiarySDK
import DiarySDKConformance
import Foundation

/// The entries both stores are filled with: one author, days spread over ten years, two tags each from a pool of
/// 40, a title and a body of about 300 characters — a heavy diary writer's decade.
struct Dataset {
    static let tagPool = (0..<40).map { "tag\($0)" }
    static let searchTag = "tag7"
    static let calendarMonth = YearMonth(year: 2024, month: 5)!
    static let start = Date(timeIntervalSince1970: 1_420_070_400)  // 2015-01-01

    let authorID: User.ID
    let entries: [Diary]

    init(authorID: User.ID, count: Int, seed: UInt64 = 42) {
        var random = SeededRandomGenerator(seed: seed)  // every run benchmarks the same data
        self.authorID = authorID
        let words = ["today", "learned", "swift", "journal", "fsync", "coffee", "walk", "rain", "book", "friend", "quiet"]
        entries = (0..<count).map { index in
            let dayOffset = Int(random.next() % 3650)
            let created = WireDate.normalized(Self.start.addingTimeInterval(Double(dayOffset) * 86_400 + Double(index % 86_400)))
            let body = (0..<48).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
            let first = Int(random.next() % 40)
            let second = (first + 1 + Int(random.next() % 39)) % 40
            return Diary(
                id: Diary.ID(UUID()), authorID: authorID, day: LocalDate(created, in: TimeZone(identifier: "UTC")!),
                title: "Entry \(index)", body: body, mood: index % 3 == 0 ? "😊" : nil,
                tags: [Self.tagPool[first], Self.tagPool[second]], createdAt: created, updatedAt: created)
        }
    }
}

/// Wall-clock timing.
enum Timer {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}

func temporaryDirectory(_ name: String) -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("diarysdk-bench-\(name)-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
