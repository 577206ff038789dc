import DiarySDK
import Foundation

/// The identity-token verifier a backend under test configures, so the suite can sign in with external identities
/// without a provider. The reference server's `--test-mode` accepts the same tokens.
///
/// A token reads `test:<subject>:<email>` (an email the provider did not verify) or
/// `test:<subject>:<email>:verified`; `test:<subject>` shares no email. Anything else is refused.
///
/// ```swift
/// let backend = InMemoryBackend(configuration: .init(
///     engine: .init(identityTokenVerifier: ConformanceIdentityTokenVerifier())))
/// ```
public struct ConformanceIdentityTokenVerifier: IdentityTokenVerifier {
    /// Creates the verifier.
    public init() {}

    /// Reads a `test:` token.
    /// - Throws: ``DiaryError`` `.unauthenticated` for any other token.
    public func verify(token: String, provider: String) async throws -> VerifiedIdentity {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (2...4).contains(parts.count), parts[0] == "test", !parts[1].isEmpty,
            parts.count < 4 || parts[3] == "verified"
        else { throw DiaryError(.unauthenticated, "the \(provider) identity token is not valid") }
        let email = parts.count >= 3 && !parts[2].isEmpty ? parts[2] : nil
        return VerifiedIdentity(subject: parts[1], email: email, isEmailVerified: email != nil && parts.count == 4)
    }
}
