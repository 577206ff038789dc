import Crypto
import DiarySDK
import Foundation
import Testing

@testable import DiaryServer

/// Token signing with a key set: tokens name their key, a listed key still verifies what it signed, an unlisted one
/// does not, and the key file is read strictly without ever repeating a secret.
@Suite("Signing-key rotation")
struct SigningKeyRotationTests {
    static let keyA = SigningKeySet.Key(id: "a", secret: Array("the first secret, long enough.....".utf8))
    static let keyB = SigningKeySet.Key(id: "b-2026.11", secret: Array("the second secret, also long......".utf8))

    static func options() throws -> ServerOptions {
        try ServerOptions.parse(["--in-memory"], environment: [:])
    }

    /// The JSON header of a token.
    static func header(_ token: String) throws -> [String: String] {
        let part = try #require(token.split(separator: ".").first)
        let data = try #require(TokenService.data(base64URL: String(part)))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
    }

    @Test func tokensNameTheKeyThatSignedThem() async throws {
        let tokens = TokenService(keys: try SigningKeySet([Self.keyB, Self.keyA]), options: try Self.options())
        let pair = try await tokens.issue(for: User.ID(rawValue: UUID()))
        #expect(try Self.header(pair.accessToken) == ["alg": "HS256", "kid": "b-2026.11", "typ": "JWT"])
        #expect(try Self.header(pair.refreshToken)["kid"] == "b-2026.11")
    }

    @Test func aTokenSignedByAKeyStillListedVerifiesAfterARotation() async throws {
        let sessions = InMemoryServerSessionStore()
        let userID = User.ID(rawValue: UUID())
        let before = TokenService(keys: try SigningKeySet([Self.keyA]), options: try Self.options(), sessions: sessions)
        let pair = try await before.issue(for: userID)

        let rotated = TokenService(keys: try SigningKeySet([Self.keyB, Self.keyA]), options: try Self.options(), sessions: sessions)
        #expect(try await rotated.verifyAccess(pair.accessToken).userID == userID)
        let refreshed = try await rotated.refresh(pair.refreshToken)
        #expect(try Self.header(refreshed.accessToken)["kid"] == "b-2026.11")
        #expect(try await rotated.verifyAccess(refreshed.accessToken).userID == userID)
    }

    @Test func aTokenWhoseKeyIsNoLongerListedIsRefused() async throws {
        let sessions = InMemoryServerSessionStore()
        let before = TokenService(keys: try SigningKeySet([Self.keyA]), options: try Self.options(), sessions: sessions)
        let pair = try await before.issue(for: User.ID(rawValue: UUID()))

        let retired = TokenService(keys: try SigningKeySet([Self.keyB]), options: try Self.options(), sessions: sessions)
        let access = await #expect(throws: DiaryError.self) { try await retired.verifyAccess(pair.accessToken) }
        #expect(access?.code == .unauthenticated)
        let refresh = await #expect(throws: DiaryError.self) { try await retired.refresh(pair.refreshToken) }
        #expect(refresh?.code == .unauthenticated)
    }

    @Test func aKeyIDNamingAnotherKeyIsRefusedEvenWithAValidSignatureForIt() async throws {
        // A token signed with key A but claiming to be B's: B's secret does not check it.
        let sessions = InMemoryServerSessionStore()
        let signer = TokenService(keys: try SigningKeySet([Self.keyA]), options: try Self.options(), sessions: sessions)
        let pair = try await signer.issue(for: User.ID(rawValue: UUID()))
        let parts = pair.accessToken.split(separator: ".").map(String.init)
        let header = TokenService.base64URL(Data(#"{"alg":"HS256","kid":"b-2026.11","typ":"JWT"}"#.utf8))
        let input = header + "." + parts[1]
        let signature = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Self.keyA.secret))
        let forged = input + "." + TokenService.base64URL(Data(signature))
        let checker = TokenService(keys: try SigningKeySet([Self.keyB, Self.keyA]), options: try Self.options(), sessions: sessions)
        await #expect(throws: DiaryError.self) { try await checker.verifyAccess(forged) }
        #expect(try await checker.verifyAccess(pair.accessToken).sid.isEmpty == false)
    }

    @Test func aTokenWithoutAKeyIDIsCheckedWithTheDefaultKey() async throws {
        // Tokens signed before key ids existed carry no `kid`; the single-secret configuration's key is `default`.
        let secret = Array("the one secret of an older server".utf8)
        let sessions = InMemoryServerSessionStore()
        let tokens = TokenService(key: secret, options: try Self.options(), sessions: sessions)
        let pair = try await tokens.issue(for: User.ID(rawValue: UUID()))
        #expect(try Self.header(pair.accessToken)["kid"] == "default")
        let payload = pair.accessToken.split(separator: ".").map(String.init)[1]
        let input = TokenService.base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "." + payload
        let signature = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: secret))
        let legacy = input + "." + TokenService.base64URL(Data(signature))
        #expect(try await tokens.verifyAccess(legacy).sid.isEmpty == false)

        let withoutDefault = TokenService(
            keys: try SigningKeySet([SigningKeySet.Key(id: "new", secret: secret)]), options: try Self.options(),
            sessions: sessions)
        await #expect(throws: DiaryError.self) { try await withoutDefault.verifyAccess(legacy) }
    }

    @Test func theKeyFileListsOneKeyALineSigningKeyFirst() throws {
        let keys = try SigningKeySet.parse(file: "# rotated 2026-11-23\nb-2026.11   second secret with spaces  \n\na first-secret\n")
        #expect(keys.keys.map(\.id) == ["b-2026.11", "a"])
        #expect(keys.signing.secret == Array("second secret with spaces".utf8))
        #expect(keys.key(id: "a")?.secret == Array("first-secret".utf8))
        #expect(keys.key(id: "c") == nil)
        #expect(keys.key(id: nil) == nil)
    }

    @Test(arguments: [
        "", "# only a comment\n", "a\n", "a secret\na other-secret\n", "bad/id secret\n", "\(String(repeating: "k", count: 65)) s\n",
    ])
    func aMalformedKeyFileIsRefusedWithoutRepeatingASecret(_ text: String) throws {
        let error = #expect(throws: OptionsError.self) { try SigningKeySet.parse(file: text) }
        #expect(error?.message.contains("secret\n") == false)
        #expect(error?.message.contains("other-secret") == false)
    }

    @Test func theKeyFileComesFromTheEnvironmentAndExcludesASingleSecret() throws {
        let file = try ServerOptionsTests.TemporaryFile("b new-secret\na old-secret\n")
        let options = try ServerOptions.parse(["--in-memory"], environment: ["DIARY_JWT_KEYS_FILE": file.path])
        #expect(options.jwtKeys?.keys.map(\.id) == ["b", "a"])
        #expect(!String(describing: options).contains("new-secret"))
        #expect(String(describing: options).contains("jwtKeys: b,a"))
        #expect(throws: OptionsError.self) {
            try ServerOptions.parse(
                ["--in-memory"], environment: ["DIARY_JWT_KEYS_FILE": file.path, "DIARY_JWT_SECRET": "x"])
        }
        let missing = #expect(throws: OptionsError.self) {
            try ServerOptions.parse(["--in-memory"], environment: ["DIARY_JWT_KEYS_FILE": "/no/such/keys"])
        }
        #expect(missing?.message.hasPrefix("DIARY_JWT_KEYS_FILE") == true)
    }

    @Test func base64URLRoundTripsEveryLengthAndRefusesEveryOtherSpelling() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let text = TokenService.base64URL(data)
            let expected = data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(text == expected)
            #expect(TokenService.data(base64URL: text) == data)
            #expect(TokenService.data(base64URL: text + "=") == nil, "padding")
        }
        #expect(TokenService.data(base64URL: "AA") == Data([0]))
        #expect(TokenService.data(base64URL: "AB") == nil, "unused bits set")
        #expect(TokenService.data(base64URL: "A") == nil, "a length no bytes have")
        #expect(TokenService.data(base64URL: "ab+/") == nil, "the standard alphabet")
        #expect(TokenService.data(base64URL: "ab c") == nil)
        #expect(TokenService.data(base64URL: "é") == nil)
    }
}
