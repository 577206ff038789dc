import DiarySDK
import Foundation

/// A custom backend: it wraps any other backend's repositories and counts calls, failures and time per operation,
/// for an app's analytics or a debug screen. It implements every repository protocol, and passes the same
/// conformance suite as the built-in backends (see MeteredBackendTests).
///
/// ```swift
/// let meter = Meter()
/// let sdk = MeteredRepositories.wrap(try FileStoreBackend(configuration: config).repositories, meter: meter)
/// _ = try await sdk.accounts.restoreSession()   // … and every other call, counted and timed
/// print(meter.report())
/// ```
public struct MeteredRepositories: Sendable {
    let base: DiaryRepositories
    let meter: Meter

    /// Wraps a backend's repositories.
    /// - Parameters:
    ///   - repositories: The backend doing the work.
    ///   - meter: Where the measurements go.
    /// - Returns: Repositories that measure every call.
    public static func wrap(_ repositories: DiaryRepositories, meter: Meter) -> DiaryRepositories {
        let metered = MeteredRepositories(base: repositories, meter: meter)
        return DiaryRepositories(
            accounts: metered, users: metered, attachments: metered, diaries: metered, books: metered, posts: metered,
            comments: metered, social: metered, notifications: metered, blogs: metered, changes: metered)
    }

    func measure<Result>(_ operation: String, _ body: () async throws -> Result) async throws -> Result {
        let start = Date()
        do {
            let result = try await body()
            meter.record(operation, seconds: Date().timeIntervalSince(start), failed: false)
            return result
        } catch {
            meter.record(operation, seconds: Date().timeIntervalSince(start), failed: true)
            throw error
        }
    }
}

/// Counts calls, failures and total time per operation; safe to share between tasks.
public final class Meter: @unchecked Sendable {
    /// One operation's figures.
    public struct Figures: Hashable, Sendable {
        /// How many calls.
        public var calls = 0
        /// How many of them threw.
        public var failures = 0
        /// Total time spent, in seconds.
        public var seconds: TimeInterval = 0
    }

    private let lock = NSLock()
    private var figures: [String: Figures] = [:]

    /// Creates an empty meter.
    public init() {}

    func record(_ operation: String, seconds: TimeInterval, failed: Bool) {
        lock.lock()
        defer { lock.unlock() }
        figures[operation, default: Figures()].calls += 1
        figures[operation, default: Figures()].seconds += seconds
        if failed { figures[operation, default: Figures()].failures += 1 }
    }

    /// The figures so far, by operation.
    public var snapshot: [String: Figures] {
        lock.lock()
        defer { lock.unlock() }
        return figures
    }

    /// One line per operation, most called first.
    public func report() -> String {
        snapshot.sorted { ($0.value.calls, $1.key) > ($1.value.calls, $0.key) }.map { name, figures in
            "\(name): \(figures.calls) calls, \(figures.failures) failed, \(String(format: "%.1f", figures.seconds * 1000)) ms"
        }.joined(separator: "\n")
    }
}
