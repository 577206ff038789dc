import DiarySDK
import DiarySDKHTTP
import Foundation
import Testing

@Suite("HTTP backend accounts, sessions and uploads against the reference server")
struct AccountFlowTests {
    static func png(_ size: Int, seed: UInt8) -> Data {
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data((0..<size).map { UInt8(truncatingIfNeeded: $0) &+ seed })
    }

    func device(_ fixture: ServerFixture, store: any SessionStore = InMemorySessionStore(), deviceToken: DeviceToken? = nil) -> HTTPBackend {
        HTTPBackend(configuration: .init(
            baseURL: fixture.control.baseURL, tokenStore: store, deviceToken: deviceToken,
            additionalHeaders: ["X-Diary-World": fixture.control.world ?? ""]))
    }

    @Test func fourImagesUploadInOneRequestWithProgressAndComeBackByteForByte() async throws {
        let fixture = try await ServerFixture.make()
        let files = (0..<4).map { AttachmentUpload(data: Self.png(300_000, seed: UInt8($0)), contentType: "image/png") }
        let upload = fixture.backend.uploadImages(files)
        let steps = Task { await upload.progress.reduce(into: [UploadProgress]()) { $0.append($1) } }
        let images = try await upload.images
        let progress = await steps.value
        #expect(images.count == 4)
        #expect(progress.first?.bytesSent == 0)
        #expect(progress.last.map { $0.bytesSent == $0.totalBytes } == true)
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.bytesSent <= $1.bytesSent })
        for (image, file) in zip(images, files) {
            #expect(try await fixture.sdk.attachments.data(for: image.id) == file.data)
        }
        let post = try await fixture.sdk.posts.publish(.init(title: "Trip", body: "four photos", images: images))
        #expect(post.images.map(\.id) == images.map(\.id))
    }

    @Test func anUploadOfFiveImagesIsRefusedBeforeAnythingIsSent() async throws {
        let fixture = try await ServerFixture.make()
        let files = (0..<5).map { AttachmentUpload(data: Self.png(10, seed: UInt8($0)), contentType: "image/png") }
        let error = await #expect(throws: DiaryError.self) { try await fixture.backend.uploadImages(files).images }
        #expect(error?.code == .invalidInput)
        #expect(error?.reason == .tooMany)
    }

    @Test func aFileThatIsNotAnImageIsRejectedByTheServerNamingTheField() async throws {
        let fixture = try await ServerFixture.make()
        let error = await #expect(throws: DiaryError.self) {
            try await fixture.sdk.attachments.upload(.init(data: Data("hello".utf8), contentType: "image/png"))
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.field == "data")
        #expect(error?.httpStatus == 422)
    }

    @Test func identityTokenSignInCreatesTheUserOnceAndFindsThemAgain() async throws {
        let fixture = try await ServerFixture.make()
        let first = try await device(fixture).repositories.accounts.signIn(
            .identityToken(provider: "apple", token: "test:apple-subject-1:sso@example.com:verified"))
        let again = try await device(fixture).repositories.accounts.signIn(
            .identityToken(provider: "apple", token: "test:apple-subject-1:sso@example.com:verified"))
        #expect(first.id == again.id)
        #expect(first.email == "sso@example.com")
        let error = await #expect(throws: DiaryError.self) {
            try await device(fixture).repositories.accounts.signIn(.identityToken(provider: "apple", token: "forged"))
        }
        #expect(error?.code == .unauthenticated)
    }

    @Test func theDevicePushTokenIsRegisteredAgainAtEverySignIn() async throws {
        let fixture = try await ServerFixture.make(nickname: "alice")
        let token = DeviceToken(token: "apns-shared-phone", platform: .apns)
        let alicePhone = device(fixture, deviceToken: token).repositories
        _ = try await alicePhone.accounts.signIn(.password(email: "alice@example.com", password: "correct horse battery"))
        #expect(try await alicePhone.accounts.deviceTokens() == [token])
        let bobPhone = device(fixture, deviceToken: token).repositories
        _ = try await bobPhone.accounts.signUp(.init(email: "bob@example.com", password: "correct horse battery", nickname: "bob"))
        #expect(try await alicePhone.accounts.deviceTokens() == [], "the phone now belongs to bob")
        try await bobPhone.accounts.signOut()
        _ = try await alicePhone.accounts.signIn(.password(email: "alice@example.com", password: "correct horse battery"))
        #expect(try await alicePhone.accounts.deviceTokens() == [token], "signing in again registered it again")
    }

    @Test func signingOutAfterTheAccessTokenExpiredStillEndsTheSessionAndUnregistersThePushToken() async throws {
        let fixture = try await ServerFixture.make(leeway: -3600, nickname: "alice")
        let token = DeviceToken(token: "apns-expiring-phone", platform: .apns)
        let store = InMemorySessionStore()
        let phone = device(fixture, store: store, deviceToken: token).repositories
        _ = try await phone.accounts.signIn(.password(email: "alice@example.com", password: "correct horse battery"))
        #expect(try await fixture.sdk.accounts.deviceTokens() == [token])
        let refreshToken = try #require(try await store.load()?.refreshToken)
        try await fixture.control.send("POST", "/v1/_test/expire-access-tokens")
        try await phone.accounts.signOut()
        #expect(try await store.load() == nil)
        #expect(try await fixture.sdk.accounts.deviceTokens() == [], "the push token was unregistered")
        let refresh = try await fixture.control.sendJSON("POST", "/v1/auth/refresh", ["refreshToken": refreshToken])
        #expect(refresh.status == 401, "the server session ended, so its refresh token no longer works")
    }

    @Test func aSessionKeptInAFileSignsInAutomaticallyOnTheNextLaunch() async throws {
        let fixture = try await ServerFixture.make()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("session-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let user = try await device(fixture, store: FileSessionStore(fileURL: file)).repositories.accounts.signUp(
            .init(email: "carol@example.com", password: "correct horse battery", nickname: "carol"))
        let nextLaunch = device(fixture, store: FileSessionStore(fileURL: file)).repositories
        #expect(try await nextLaunch.accounts.restoreSession()?.id == user.id)
        #expect(try await nextLaunch.posts.feed(page: .first()).items.isEmpty)
    }

    @Test func signingOutEndsTheSessionOnTheServerToo() async throws {
        let fixture = try await ServerFixture.make()
        let session = try #require(try await fixture.store.load())
        try await fixture.sdk.accounts.signOut()
        #expect(try await fixture.control.send("GET", "/v1/me", token: session.accessToken).status == 401)
        let refresh = try await fixture.control.sendJSON("POST", "/v1/auth/refresh", ["refreshToken": session.refreshToken ?? ""])
        #expect(refresh.status == 401)
    }

    @Test func aReusedRefreshTokenEndsTheWholeSession() async throws {
        let fixture = try await ServerFixture.make()
        let session = try #require(try await fixture.store.load())
        let body = ["refreshToken": session.refreshToken ?? ""]
        let first = try await fixture.control.sendJSON("POST", "/v1/auth/refresh", body)
        #expect(first.status == 200)
        // The pair from `first` is used, so the original token is no longer the one just rotated away: reuse.
        struct Pair: Decodable { var accessToken: String, refreshToken: String }
        let rotated = try first.json(Pair.self)
        let second = try await fixture.control.sendJSON("POST", "/v1/auth/refresh", ["refreshToken": rotated.refreshToken])
        #expect(second.status == 200)
        let reuse = try await fixture.control.sendJSON("POST", "/v1/auth/refresh", body)
        #expect(reuse.status == 401)
        #expect(try await fixture.control.send("GET", "/v1/me", token: try second.json(Pair.self).accessToken).status == 401)
    }
}
