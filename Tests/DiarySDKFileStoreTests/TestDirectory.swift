@_spi(Engine) @_spi(Storage) import DiarySDK
import DiarySDKConformance
import Foundation

@_spi(Engine) @testable import DiarySDKFileStore

/// A fresh directory under the system's temporary folder, removed by ``remove()``.
struct TestDirectory: Sendable {
    let url: URL

    init(_ label: String = "store") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("diarysdk-filestore-tests", isDirectory: true)
            .appendingPathComponent("\(label)-\(UUID().uuidString.lowercased())", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A directory at a given place, created if missing.
    init(url: URL) {
        self.url = url
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var path: String { url.path }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    /// Every file's bytes, by relative path (for "nothing was touched" assertions).
    func contents() throws -> [String: Data] {
        var result: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let full = url.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[name] = try Data(contentsOf: URL(fileURLWithPath: full))
            }
        }
        return result
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// A backend on this directory with a manual clock and cheap password hashing; its default repositories keep
    /// their session in memory unless `sessionFile` is set (then in the store's `session.json`).
    func open(
        clock: ManualClock = ManualClock(), minimumCompactionBytes: Int = 4 << 20, io: (any FileIO)? = nil,
        sessionFile: Bool = false, changeLogRetention: Int = 1_000
    ) throws -> FileStoreBackend {
        let configuration = FileStoreBackend.Configuration(
            directory: url, clock: clock, defaultTimeZone: TimeZone(identifier: "UTC")!,
            engine: .init(passwordHashIterations: 1_000, identityTokenVerifier: ConformanceIdentityTokenVerifier()),
            minimumCompactionBytes: minimumCompactionBytes, changeLogRetention: changeLogRetention)
        return try FileStoreBackend(
            configuration: configuration, sessionStore: sessionFile ? nil : InMemorySessionStore(),
            io: io ?? POSIXFileIO())
    }
}

extension FileStoreBackend {
    /// Every stored row, in a stable order.
    var allRecords: [StoreRecord] {
        store.state.withLock { $0.database.allRecords }
    }

    /// The ids of every stored user.
    var allUserIDs: [User.ID] {
        allRecords.compactMap { if case .user(let user) = $0 { user.id } else { nil } }
    }

    /// Signs up a user with cheap defaults and returns repositories acting as them.
    func signUp(_ nickname: String) async throws -> (User, DiaryRepositories) {
        let user = try await engine(actingAs: nil).createAccount(
            SignUpRequest(email: "\(nickname)@example.com", password: "correct horse battery", nickname: nickname))
        return (user, repositories(signedInAs: user.id))
    }
}

/// A valid 1×1 PNG.
let tinyPNG = Data(
    base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")!
