import DiarySDK
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPBackend {
    /// How an ``HTTPBackend`` reaches its server.
    public struct Configuration: Sendable {
        /// The server's address, such as `https://api.example.com` (routes start with `/v1/`).
        public var baseURL: URL
        /// The URL session requests go through. On Apple platforms every request, image upload and the live-changes
        /// stream runs on this session, so its delegate decides authentication challenges (certificate pinning,
        /// client certificates) for all of them. With FoundationNetworking (Linux, which has no
        /// `bytes(for:delegate:)`), uploads and the stream run on sessions made from its `configuration` (its
        /// delegate is not asked), and every request on a companion session made from it that passes authentication
        /// challenges on to its delegate (not redirects or metrics); all of them without the configuration's URL
        /// cache, whose lookup races a cancelled request in FoundationNetworking and traps the process.
        public var session: URLSession
        /// Where the signed-in session (access and refresh tokens) is kept between launches.
        public var tokenStore: any SessionStore
        /// Seconds a request may wait for the server before it fails with `.unavailable`.
        public var timeout: TimeInterval
        /// When failed requests are retried.
        public var retry: RetryPolicy
        /// This device's push token, registered again after every sign-in and sign-up, and unregistered at sign-out.
        public var deviceToken: DeviceToken?
        /// Extra headers sent with every request (an API key, a tenant).
        public var additionalHeaders: [String: String]
        /// Refresh the access token this many seconds before it expires, instead of waiting for a 401.
        public var refreshLeeway: TimeInterval
        /// The time zone sent with sign-up and identity-token sign-in, in which a new account counts its days
        /// (streaks, calendar days) until the user changes their settings.
        public var timeZone: TimeZone

        /// Creates a configuration.
        /// - Parameters:
        ///   - baseURL: The server's address.
        ///   - session: The URL session; `.shared` by default. Pass your own to pin certificates or answer other
        ///     authentication challenges in its delegate (Apple platforms; see ``session``).
        ///   - tokenStore: The session store; in memory by default (use `FileSessionStore` or a keychain store to
        ///     sign in automatically on the next launch).
        ///   - timeout: The request timeout; 30 s by default.
        ///   - retry: The retry policy.
        ///   - deviceToken: The push token to register at every sign-in.
        ///   - additionalHeaders: Headers added to every request.
        ///   - refreshLeeway: How early to refresh an expiring access token; 10 s by default.
        ///   - timeZone: The time zone for new accounts; the device's by default.
        public init(
            baseURL: URL, session: URLSession = .shared, tokenStore: any SessionStore = InMemorySessionStore(),
            timeout: TimeInterval = 30, retry: RetryPolicy = RetryPolicy(), deviceToken: DeviceToken? = nil,
            additionalHeaders: [String: String] = [:], refreshLeeway: TimeInterval = 10, timeZone: TimeZone = .current
        ) {
            self.baseURL = baseURL
            self.session = session
            self.tokenStore = tokenStore
            self.timeout = timeout
            self.retry = retry
            self.deviceToken = deviceToken
            self.additionalHeaders = additionalHeaders
            self.refreshLeeway = refreshLeeway
            self.timeZone = timeZone
        }
    }
}
