import Foundation

/// A `Sendable` wrapper keeping the description and domain/code of a non-Sendable lower-level error.
public struct FeedUnderlyingError: Error, Sendable, CustomStringConvertible {
    /// The wrapped error's domain (`NSError.domain`).
    public let domain: String
    /// The wrapped error's code (`NSError.code`).
    public let code: Int
    /// The wrapped error's description.
    public let description: String

    /// Wraps an error.
    /// - Parameters:
    ///   - error: The error to describe.
    /// - Returns: A Sendable snapshot of it.
    public init(_ error: any Error) {
        let nsError = error as NSError
        domain = nsError.domain
        code = nsError.code
        description = "\(nsError.domain) error \(nsError.code): \(nsError.localizedDescription)"
    }
}
