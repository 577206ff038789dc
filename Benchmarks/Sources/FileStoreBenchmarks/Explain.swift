import DiarySDK
import Foundation
import GRDB

/// `FileStoreBenchmarks explain`: EXPLAIN QUERY PLAN of every SQL query the benchmark times, on the cached
/// databases, with the checks the tuning promises (the calendar reads only its covering index, the tag search
/// needs no temporary B-tree).
enum Explain {
    static func run(cache: DatasetCache, size: Int, posts: Int?) async throws -> String {
        let diaries = try await cache.diaries(size, json: false)
        var lines: [String] = []
        let (calendar, tagSearch) = try diaryPlans(diaries.sqlite)
        lines.append("-- month calendar (\(size.formatted()) entries)\n\(SQLiteDiaries.calendarSQL)\n" + calendar.joined(separator: "\n"))
        lines.append("-- tag search\n\(SQLiteDiaries.tagSearchSQL)\n" + tagSearch.joined(separator: "\n"))
        let calendarCovered = calendar.contains { $0.contains("USING COVERING INDEX") }
            && !calendar.contains { $0.contains("USE TEMP B-TREE") }
        let tagOrdered = !tagSearch.contains { $0.contains("USE TEMP B-TREE") }
        lines.append("-- checks: calendar uses a covering index: \(calendarCovered); tag search without a temporary B-tree: \(tagOrdered)")

        if let posts {
            let postFiles = try await cache.posts(posts)
            let plans = try postPlans(postFiles)
            for (name, plan) in plans { lines.append("-- \(name) (\(posts.formatted()) posts)\n" + plan.joined(separator: "\n")) }
        }
        if !calendarCovered || !tagOrdered { throw BenchmarkError(lines.joined(separator: "\n\n")) }
        return lines.joined(separator: "\n\n")
    }

    private static func diaryPlans(_ path: String) throws -> (calendar: [String], tagSearch: [String]) {
        let pool = try DatabasePool(path: path)
        defer { try? pool.close() }
        return try pool.read { try SQLiteDiaries.plans(author: Dataset.author, in: $0) }
    }

    private static func postPlans(_ files: PostFiles) throws -> [(String, [String])] {
        let pool = try DatabasePool(path: files.sqlite)
        defer { try? pool.close() }
        return try pool.read { try SQLitePosts.plans(author: files.author, viewer: files.reader, in: $0) }
    }
}
