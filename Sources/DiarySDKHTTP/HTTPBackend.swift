import DiarySDK
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A backend that talks to a DiarySDK server over HTTP (docs/openapi.yaml), with `URLSession`
/// (`FoundationNetworking` on Linux).
///
/// Point the app at a server instead of local storage and nothing else changes:
///
/// ```swift
/// let backend = HTTPBackend(configuration: .init(
///     baseURL: URL(string: "https://diary.example.com")!,
///     tokenStore: FileSessionStore(fileURL: appSupport.appendingPathComponent("session.json")),
///     deviceToken: DeviceToken(token: apnsToken, platform: .apns)))
/// let sdk = backend.repositories
/// if try await sdk.accounts.restoreSession() == nil {
///     _ = try await sdk.accounts.signIn(.password(email: email, password: password))
/// }
/// let feed = try await sdk.posts.feed(page: .first())
/// ```
///
/// Sessions are JWT access and refresh tokens kept in the configured ``SessionStore``; an expiring access token is
/// refreshed once for all the requests that need it. Writes carry an `Idempotency-Key`, so the retries of
/// ``RetryPolicy`` never duplicate them; cancelling the calling task cancels the request; every failure is a
/// ``DiaryError`` with ``DiaryError/httpStatus`` and the server's message. Live changes arrive as server-sent events.
public final class HTTPBackend: Sendable {
    /// The configuration it was created with.
    public let configuration: Configuration
    let client: HTTPClient

    /// Creates a backend; nothing is sent until the first call.
    /// - Parameter configuration: The server's address, session store and policies.
    public convenience init(configuration: Configuration) {
        self.init(configuration: configuration, transport: URLSessionTransport(session: configuration.session))
    }

    /// Creates a backend over a given transport (tests script the network with it).
    init(configuration: Configuration, transport: any HTTPTransport) {
        self.configuration = configuration
        self.client = HTTPClient(configuration: configuration, transport: transport)
    }

    /// Every repository, over HTTP.
    public var repositories: DiaryRepositories {
        let accounts = HTTPAccountRepository(client: client)
        return DiaryRepositories(
            accounts: accounts, users: HTTPUserRepository(client: client),
            attachments: HTTPAttachmentRepository(client: client), diaries: HTTPDiaryRepository(client: client),
            books: HTTPBookRepository(client: client), posts: HTTPPostRepository(client: client),
            comments: HTTPCommentRepository(client: client), social: HTTPSocialRepository(client: client),
            notifications: HTTPNotificationRepository(client: client), blogs: HTTPBlogRepository(client: client),
            changes: HTTPChangeFeed(client: client))
    }
}
