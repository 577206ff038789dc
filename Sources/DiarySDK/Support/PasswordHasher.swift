import Foundation

/// Derives password hashes for the engine: sign-up hashes the new password, sign-in hashes the one typed.
///
/// The built-in ``PBKDF2PasswordHasher`` runs PBKDF2-HMAC-SHA256 on a ``HashingPool``; pass another hasher in
/// ``DiaryEngine/Configuration`` to count or observe derivations in a test. A hasher must be deterministic: the same
/// password, salt and iteration count always give the same bytes.
///
/// ```swift
/// struct CountingHasher: PasswordHasher {
///     let count = Counter()
///     func derive(password: [UInt8], salt: [UInt8], iterations: Int) async -> [UInt8] {
///         count.increment()
///         return await PBKDF2PasswordHasher().derive(password: password, salt: salt, iterations: iterations)
///     }
/// }
/// ```
public protocol PasswordHasher: Sendable {
    /// Derives the hash of a password.
    /// - Parameters:
    ///   - password: The password's UTF-8 bytes.
    ///   - salt: The salt.
    ///   - iterations: The iteration count (the work factor).
    /// - Returns: The 32-byte derived key.
    func derive(password: [UInt8], salt: [UInt8], iterations: Int) async -> [UInt8]
}

/// PBKDF2-HMAC-SHA256 on a dedicated ``HashingPool``, so hashing never holds the shared concurrency pool.
public struct PBKDF2PasswordHasher: PasswordHasher {
    /// Where the derivations run.
    public let pool: HashingPool

    /// Creates a hasher.
    /// - Parameter pool: The threads to hash on; ``HashingPool/shared`` by default.
    public init(pool: HashingPool = .shared) {
        self.pool = pool
    }

    /// Derives the key on the pool, suspending the caller meanwhile.
    public func derive(password: [UInt8], salt: [UInt8], iterations: Int) async -> [UInt8] {
        await pool.run { SHA256.pbkdf2(password: password, salt: salt, iterations: iterations) }
    }
}
