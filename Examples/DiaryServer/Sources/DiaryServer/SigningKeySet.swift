import Foundation

/// The keys that sign and check the server's tokens: the first signs, every one checks, each by its id (the
/// token header's `kid`), so a key can be rotated without signing anybody out.
///
/// To rotate: put a new key first and keep the old one listed (tokens it signed still verify, new tokens carry the
/// new `kid`); once the old tokens have expired (the refresh-token lifetime), drop the old key, and the tokens it
/// signed are refused. docs/Deploying.md, "Rotating the signing key", says it step by step.
struct SigningKeySet: Sendable {
    /// One HMAC-SHA256 key and its id.
    struct Key: Sendable, Equatable {
        /// The `kid` of the tokens it signs: 1–64 letters, digits, `-`, `_` or `.`.
        var id: String
        var secret: [UInt8]
    }

    /// The id of the one key a single secret (`DIARY_JWT_SECRET_FILE`) makes; a token without a `kid` (signed before
    /// key ids existed) is checked with the key of this id.
    static let defaultKeyID = "default"

    /// Every key, the signing key first.
    let keys: [Key]

    /// A key set.
    /// - Throws: `OptionsError` for no key, a malformed id, an empty secret or an id listed twice.
    init(_ keys: [Key]) throws {
        guard !keys.isEmpty else { throw OptionsError(message: "no signing key") }
        var seen = Set<String>()
        for key in keys {
            guard Self.isValidID(key.id) else {
                throw OptionsError(message: "a key id is 1–64 letters, digits, '-', '_' or '.', got '\(key.id)'")
            }
            guard !key.secret.isEmpty else { throw OptionsError(message: "the key '\(key.id)' has an empty secret") }
            guard seen.insert(key.id).inserted else { throw OptionsError(message: "the key id '\(key.id)' is listed twice") }
        }
        self.keys = keys
    }

    /// The set of one secret, under ``defaultKeyID``.
    init(secret: [UInt8]) {
        self.keys = [Key(id: Self.defaultKeyID, secret: secret)]
    }

    /// The key new tokens are signed with.
    var signing: Key { keys[0] }

    /// The key that checks a token with this `kid` (``defaultKeyID`` for a token without one), or `nil` when the set
    /// no longer lists it.
    func key(id: String?) -> Key? {
        let id = id ?? Self.defaultKeyID
        return keys.first { $0.id == id }
    }

    /// Reads a key file (`DIARY_JWT_KEYS_FILE`): one key a line, `ID SECRET` (the secret is the rest of the line,
    /// without surrounding blanks), the signing key first; blank lines and lines starting with `#` are skipped.
    /// - Throws: `OptionsError` naming the line (never its secret) when one is malformed, or when no key is listed.
    static func parse(file text: String) throws -> SigningKeySet {
        var keys: [Key] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let blank = line.firstIndex(where: { $0 == " " || $0 == "\t" }) else {
                throw OptionsError(message: "line \(index + 1): expected 'ID SECRET'")
            }
            let id = String(line[..<blank])
            let secret = line[blank...].trimmingCharacters(in: .whitespaces)
            guard isValidID(id) else {
                throw OptionsError(message: "line \(index + 1): a key id is 1–64 letters, digits, '-', '_' or '.'")
            }
            keys.append(Key(id: id, secret: Array(secret.utf8)))
        }
        return try SigningKeySet(keys)
    }

    private static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            }
    }
}
