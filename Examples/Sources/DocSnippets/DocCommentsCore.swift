// The examples in the doc comments of Sources/DiarySDK, one function each (compiled; the runnable ones are run by
// DocSnippetTests). Each function's parameters stand for what the example takes from its surroundings.
import DiarySDK
import DiarySDKFileStore
import Foundation

// snippet.begin: Sources/DiarySDK/Repositories/DiaryRepositories.swift
func diaryRepositoriesExample(appSupport: URL) async throws {
    // snippet.show
    let backend = try FileStoreBackend(configuration: .init(directory: appSupport))
    let sdk = backend.repositories
    let me = try await sdk.accounts.signUp(.init(email: "me@example.com", password: "correct horse", nickname: "me"))
    let entry = try await sdk.diaries.write(DiaryDraft(title: "Day one", body: "Hello", mood: .happy))
    // snippet.hide
    print("\(me.nickname) wrote “\(entry.title)”")
    try await backend.close()
}

// snippet.begin: Sources/DiarySDK/Pagination/PageRequest.swift
func pageRequestExample(sdk: DiaryRepositories) async throws {
    // snippet.show
    var request = PageRequest.first(size: 20)
    let page = try await sdk.posts.feed(page: request)
    if let next = page.nextRequest { request = next }
    // snippet.hide
    _ = request
}

// snippet.begin: Sources/DiarySDK/Pagination/PageSequence.swift
func pageSequenceExample(sdk: DiaryRepositories, show: ([Post]) -> Void) async throws {
    // snippet.show
    for try await page in PageSequence(first: .first(size: 50), fetch: sdk.posts.feed) {
        show(page.items)
    }
    // snippet.hide
}

// snippet.begin: Sources/DiarySDK/Observation/DiaryChange.swift
@MainActor protocol Reloading {
    func reload() async
    func apply(_ change: DiaryChange)
}
@MainActor func diaryChangeExample(sdk: DiaryRepositories, viewModel: some Reloading) async {
    // snippet.show
    var position: ChangePosition? = nil  // saved by the screen
    for await event in sdk.changes.changes(.feed, after: position) {
        switch event {
        case .opened: break
        case .changed(let change): viewModel.apply(change)
        case .reloadRequired: await viewModel.reload()
        }
        position = event.position
    }
    // snippet.hide
    _ = position
}

// snippet.begin: Sources/DiarySDK/Observation/ChangeFilter.swift
protocol ChangeApplying { func apply(_ event: ChangeEvent) async }
func changeFilterExample(sdk: DiaryRepositories, bookID: DiaryBook.ID, screen: some ChangeApplying) async {
    // snippet.show
    // A book's screen: the book, its members, its entries and their comments.
    for await event in sdk.changes.changes(.book(bookID)) {
        await screen.apply(event)
    }
    // snippet.hide
}

// snippet.begin: Sources/DiarySDK/Errors/DiaryError.swift
protocol Highlighting { func highlight(_ field: String?, reason: DiaryError.Reason?) }
func diaryErrorExample(sdk: DiaryRepositories, text: String, form: some Highlighting) async throws {
    // snippet.show
    do {
        _ = try await sdk.diaries.write(DiaryDraft(body: text))
    } catch let error as DiaryError where error.code == .invalidInput {
        form.highlight(error.field, reason: error.reason)
    }
    // snippet.hide
}

// snippet.begin: Sources/DiarySDK/Feeds/FeedFetching.swift
// snippet.show
struct CannedFeedFetcher: FeedFetching {
    let documents: [URL: Data]

    func fetch(_ request: FeedFetchRequest) async throws -> FeedFetchResponse {
        guard let data = documents[request.url] else { throw DiaryError.notFound("feed \(request.url)") }
        return .fetched(FetchedFeedDocument(data: data, finalURL: request.url))
    }
}
// snippet.hide

// snippet.begin: Sources/DiarySDK/Feeds/FeedFetching+URLSession.swift
func urlSessionFeedFetcherExample(sdk: DiaryRepositories) {
    // snippet.show
    let fetcher = URLSessionFeedFetcher()
    let sync = BlogSync(blogs: sdk.blogs, fetcher: fetcher)
    // snippet.hide
    _ = sync
}

// snippet.begin: Sources/DiarySDK/UseCases/FeedDiscoverer.swift
func feedDiscovererExample() async throws {
    // snippet.show
    let discoverer = FeedDiscoverer(fetcher: URLSessionFeedFetcher())
    let found = try await discoverer.discover("alice.tistory.com")   // https://alice.tistory.com/rss
    // snippet.hide
    _ = found
}

// snippet.begin: Sources/DiarySDK/UseCases/BlogRegistration.swift
func blogRegistrationExample(sdk: DiaryRepositories) async throws {
    // snippet.show
    let registration = BlogRegistration(blogs: sdk.blogs, fetcher: URLSessionFeedFetcher())
    let blog = try await registration.register("velog.io/@alice")      // feed https://v2.velog.io/rss/alice
    let hints = registration.suggestions(for: "alice.tistory")          // autocomplete, no network
    // snippet.hide
    _ = (blog, hints)
}

// snippet.begin: Sources/DiarySDK/UseCases/BlogSync.swift
func blogSyncExample(sdk: DiaryRepositories, blog: Blog) async throws {
    func show(_ error: DiaryError, for blog: Blog) { print(blog.id, error) }
    // snippet.show
    let sync = BlogSync(blogs: sdk.blogs, fetcher: URLSessionFeedFetcher())
    let report = try await sync.sync(blog.id)              // one blog
    for try await progress in sync.syncAll() {             // every blog of the signed-in user
        if case .failed(let blog, let error) = progress.event { show(error, for: blog) }
    }
    // snippet.hide
    _ = report
}

// snippet.begin: Sources/DiarySDK/Repositories/SessionStore.swift
/// The app's wrapper of the keychain calls, as the example names it.
protocol KeychainItem: Sendable {
    func read() throws -> Data?
    func write(_ data: Data) throws
    func delete() throws
}

// snippet.show
struct KeychainSessionStore: SessionStore {
    let item: any KeychainItem   // your wrapper of SecItemCopyMatching / SecItemAdd / SecItemDelete

    func load() async throws -> StoredSession? {
        guard let data = try item.read() else { return nil }
        return try JSONDecoder().decode(StoredSession.self, from: data)
    }

    func save(_ session: StoredSession?) async throws {
        if let session { try item.write(JSONEncoder().encode(session)) } else { try item.delete() }
    }
}
// snippet.hide

// snippet.begin: Sources/DiarySDK/Repositories/AccountRepository.swift
enum ExampleScreen { case signIn, home }

func authStatesExample(sdk: DiaryRepositories) async -> ExampleScreen {
    var screen = ExampleScreen.signIn
    // snippet.show
    for await change in sdk.accounts.authStates() {
        screen = change.state.user == nil ? .signIn : .home
    }
    // snippet.hide
    return screen
}
