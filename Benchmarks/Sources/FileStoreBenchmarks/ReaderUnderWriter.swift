@_spi(Engine) import DiarySDK
import DiarySDKFileStore
import Foundation
import GRDB

/// A reader's latency while a writer commits durable posts in a loop: the file store through the SDK's
/// repositories against GRDB's `DatabasePool` (WAL readers) under the same kind of writer.
enum ReaderUnderWriter {
    enum Query: String, CaseIterable {
        case search = "search matching nothing"
        case author = "an author's posts, page 1"
        case feed = "feed, page-number page 1"
    }

    struct Outcome {
        var latencies: [Query: [Double]] = [:]
        var commitsPerSecond: Double = 0
    }

    static let noMatch = "zqxjv"

    /// Runs each query until `budget` seconds have passed (at least `minimum`, at most `maximum` times); a query so
    /// slow that `minimum` runs would take more than four budgets stops there (at least once), so a full run stays
    /// bounded whatever the store does.
    static func measure(
        budget: Double, minimum: Int, maximum: Int, _ query: (Query) async throws -> Int
    ) async throws -> [Query: [Double]] {
        var latencies: [Query: [Double]] = [:]
        for kind in Query.allCases {
            var values: [Double] = []
            let start = Clock.now()
            while values.count < maximum {
                let elapsed = Clock.seconds(since: start)
                if values.count >= minimum, elapsed >= budget { break }
                if !values.isEmpty, elapsed >= 4 * budget { break }
                let began = Clock.now()
                let found = try await query(kind)
                values.append(Clock.seconds(since: began))
                if kind == .search, found != 0 { throw BenchmarkError("the no-match search found \(found) posts") }
                if kind != .search, found == 0 { throw BenchmarkError("\(kind.rawValue) found nothing") }
            }
            latencies[kind] = values
        }
        return latencies
    }

    static func fileStore(_ backend: FileStoreBackend, files: PostFiles, budget: Double, minimum: Int, maximum: Int)
        async throws -> Outcome
    {
        let stop = Flag()
        let writerPosts = backend.repositories(signedInAs: files.writer).posts
        let writer = Task.detached { () -> Int in
            var commits = 0
            while !stop.isSet {
                _ = try await writerPosts.publish(PostDraft(title: "Live \(commits)", body: "A post written while others read."))
                commits += 1
            }
            return commits
        }
        let posts = backend.repositories(signedInAs: files.reader).posts
        let start = Clock.now()
        let latencies = try await measure(budget: budget, minimum: minimum, maximum: maximum) { kind in
            switch kind {
            case .search: try await posts.search(PostSearch(text: noMatch), page: .first(size: 20)).items.count
            case .author: try await posts.posts(by: files.author, page: .first(size: 20)).items.count
            case .feed: try await posts.feed(page: .number(1)).items.count
            }
        }
        stop.set()
        let commits = try await writer.value
        return Outcome(latencies: latencies, commitsPerSecond: Double(commits) / Clock.seconds(since: start))
    }

    static func sqlite(_ pool: DatabasePool, files: PostFiles, budget: Double, minimum: Int, maximum: Int)
        async throws -> Outcome
    {
        let stop = Flag()
        let commits = Counter()
        let shared = GRDBPool(pool: pool)
        let done = DispatchSemaphore(value: 0)
        let writer = Thread {
            defer { done.signal() }
            while !stop.isSet {
                let now = WireDate.normalized(Date())
                let post = Post(
                    id: Post.ID(UUID()), author: nil, isMine: true, isAnonymous: false, title: "Live \(commits.value)",
                    body: "A post written while others read.", tags: [], images: [], source: .original,
                    day: LocalDate(now, in: TimeZone(identifier: "UTC")!), likeCount: 0, commentCount: 0,
                    isLiked: false, createdAt: now, updatedAt: now)
                do {
                    try shared.pool.write { try SQLitePosts.insert(post, authorID: files.writer, in: $0) }
                } catch {
                    log("SQLite writer: \(error)")
                    return
                }
                commits.increment()
            }
        }
        writer.start()
        let start = Clock.now()
        let latencies = try await measure(budget: budget, minimum: minimum, maximum: maximum) { kind in
            try pool.read { db in
                switch kind {
                case .search: try SQLitePosts.search(noMatch, viewer: files.reader, in: db).count
                case .author: try SQLitePosts.authorPage(files.author, viewer: files.reader, in: db).count
                case .feed: try SQLitePosts.feedPage(viewer: files.reader, in: db).posts.count
                }
            }
        }
        stop.set()
        done.wait()
        return Outcome(latencies: latencies, commitsPerSecond: Double(commits.value) / Clock.seconds(since: start))
    }
}
