import DiarySDK
import Foundation

extension DemoTour {
    /// Step 5: register minji's blog from the address she types, then import its posts twice (the second time the
    /// feed has not changed, so the conditional GET answers 304 and nothing is written).
    func importBlog(_ sdk: DiaryRepositories, owner: User) async throws {
        step(5, "Minji's blog is imported from its feed")
        let fetcher = try BundledFeedFetcher()
        clock.set(seoulEvening(20).addingTimeInterval(300))
        let blog = try await BlogRegistration(blogs: sdk.blogs, fetcher: fetcher).register("minji.tistory.com")
        done("minji typed “minji.tistory.com”; the Tistory rule found \(blog.feedURL.absoluteString) — “\(blog.title)”")
        let sync = BlogSync(blogs: sdk.blogs, fetcher: fetcher, clock: clock)
        let first = try await sync.sync(blog.id)
        done("first sync: \(first.created) posts imported, dated by their publication day in Seoul")
        let second = try await sync.sync(blog.id)
        done("second sync: \(second.notModified ? "304 Not Modified" : "fetched again"), \(second.created) new posts, no duplicates")
        let posts = try await sdk.posts.posts(by: nil, page: .first(size: 20)).items.filter {
            if case .blog = $0.source { true } else { false }
        }
        done("imported: \(posts.sorted { $0.day < $1.day }.map { "\($0.day.day) Mar “\($0.title)”" }.joined(separator: ", "))")
    }
}

/// Serves the demo's bundled feed for Minji's blog as a server would: with an ETag, and `304` when it matches.
struct BundledFeedFetcher: FeedFetching {
    let feed: Data
    let etag = "\"minji-til-v1\""

    init() throws {
        guard let url = Bundle.module.url(forResource: "minji-til", withExtension: "xml", subdirectory: "Resources") else {
            throw DiaryError(.notFound, "the demo's bundled feed is missing from the build")
        }
        feed = try Data(contentsOf: url)
    }

    func fetch(_ request: FeedFetchRequest) async throws -> FeedFetchResponse {
        guard request.url.host == "minji.tistory.com", request.url.path == "/rss" else {
            throw DiaryError(.notFound, "\(request.url.absoluteString) is not served in the demo", httpStatus: 404)
        }
        if request.etag == etag { return .notModified }
        return .fetched(
            FetchedFeedDocument(
                data: feed, finalURL: request.url, etag: etag, contentType: "application/rss+xml; charset=utf-8"))
    }
}
