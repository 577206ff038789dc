@_spi(Storage) @_spi(Engine) import DiarySDK
@_spi(Storage) import DiarySDKFileStore
import Foundation

/// Accounts through the server; the signed-in user's profile is kept in the replica, so a launch offline restores
/// the session and reads the profile.
struct OfflineAccounts: AccountRepository {
    let context: OfflineContext

    private var remote: any AccountRepository { context.remote.accounts }

    func signUp(_ request: SignUpRequest) async throws -> User {
        let user = try await context.online("accounts.signUp", write: false, failsFast: false) { try await remote.signUp(request) }
        try await signedIn(user)
        return user
    }

    func signIn(_ credentials: Credentials) async throws -> User {
        let user = try await context.online("accounts.signIn", write: false, failsFast: false) { try await remote.signIn(credentials) }
        try await signedIn(user)
        return user
    }

    /// Keeps the user's profile in the replica and starts syncing for them.
    private func signedIn(_ user: User) async throws {
        try await keep(user)
        await context.backend.sync.setUser(user.id)
    }

    func keep(_ user: User) async throws {
        try await context.backend.replica.storage.write("offline.user") { try await $0.put(.user(user)) }
    }

    /// Signs out: tries to send the outbox first; writes that cannot be sent stay queued for this user's next
    /// sign-in on this device.
    func signOut() async throws {
        if await !context.backend.sync.isOffline { try? await context.backend.sync.syncNow() }
        await context.backend.sync.setUser(nil)
        try await remote.signOut()
    }

    /// Withdraws on the server, then removes everything of the user's from the device: their profile, entries,
    /// posts, attachment rows and outbox in one replica transaction, their sync state and their kept reads.
    func withdraw() async throws {
        let userID = try await context.userID()
        try await context.online("accounts.withdraw", write: true) { try await remote.withdraw() }
        await context.backend.sync.setUser(nil)
        try await context.backend.replica.storage.write("offline.withdraw") { transaction in
            for diary in try await transaction.rows(StorageSchema.diariesByAuthor, equalTo: userID) {
                try await transaction.remove(.diary(diary.id))
            }
            for post in try await transaction.rows(StorageSchema.postsByAuthor, equalTo: userID) {
                try await transaction.remove(.post(post.id))
            }
            for attachment in try await transaction.rows(StorageSchema.attachmentsByOwner, equalTo: userID) {
                try await transaction.remove(.attachment(attachment.id))
            }
            for entry in try await transaction.rows(StorageSchema.outboxByUser, equalTo: userID) {
                try await transaction.remove(.outbox(entry.id))
            }
            if try await transaction.user(userID) != nil { try await transaction.remove(.user(userID)) }
        }
        await context.backend.sync.forget(userID)
        context.backend.readCache.removeAll(of: userID)
    }

    /// The stored session's user: refreshed from the server when it can be reached, else the profile the replica
    /// holds (a launch offline stays signed in).
    func restoreSession() async throws -> User? {
        guard let session = try await context.backend.configuration.server.tokenStore.load() else { return nil }
        do {
            let user = try await remote.restoreSession()
            if let user { try await signedIn(user) } else { await context.backend.sync.setUser(nil) }
            return user
        } catch let error as DiaryError where OfflineSync.isUnreachable(error) {
            guard let user = try await localUser(session.userID) else { throw error }
            await context.backend.sync.setUser(user.id)
            return user
        }
    }

    /// The signed-in user: from the server when it can be reached (another device may have edited the profile),
    /// else the profile the replica holds.
    func currentUser() async throws -> User? {
        guard let session = try await context.backend.configuration.server.tokenStore.load() else { return nil }
        do {
            let user = try await context.online("accounts.currentUser", write: false) { try await remote.currentUser() }
            if let user { try await keep(user) }
            return user
        } catch let error as DiaryError where OfflineSync.isUnreachable(error) {
            guard let user = try await localUser(session.userID) else { throw error }
            return user
        }
    }

    func localUser(_ id: User.ID) async throws -> User? {
        try await context.backend.replica.storage.read("offline.user") { try await $0.user(id) }
    }

    func authStates() -> AsyncStream<AuthStateChange> {
        remote.authStates()
    }

    func isNicknameAvailable(_ nickname: String) async throws -> Bool {
        try await context.online("accounts.isNicknameAvailable", write: false) {
            try await remote.isNicknameAvailable(nickname)
        }
    }

    func isEmailAvailable(_ email: String) async throws -> Bool {
        try await context.online("accounts.isEmailAvailable", write: false) { try await remote.isEmailAvailable(email) }
    }

    func registerDeviceToken(_ token: DeviceToken) async throws {
        try await context.online("accounts.registerDeviceToken", write: true) {
            try await remote.registerDeviceToken(token)
        }
    }

    func deviceTokens() async throws -> [DeviceToken] {
        try await context.online("accounts.deviceTokens", cached: []) { try await remote.deviceTokens() }
    }
}

/// Profiles: the user's own is read from the replica (it is there offline); changes go to the server and the
/// answer is kept in the replica.
struct OfflineUsers: UserRepository {
    let context: OfflineContext

    private var remote: any UserRepository { context.remote.users }
    private var accounts: OfflineAccounts { OfflineAccounts(context: context) }

    /// A profile from the server; the user's own is kept in the replica and read from there while the server
    /// cannot be reached.
    func user(_ id: User.ID) async throws -> User {
        guard let me = try? await context.userID(), me == id else {
            return try await context.online("users.user", cached: [id]) { try await remote.user(id) }
        }
        do {
            return try await kept(try await context.online("users.user", write: false) { try await remote.user(id) })
        } catch let error as DiaryError where OfflineSync.isUnreachable(error) {
            guard let user = try await accounts.localUser(id) else { throw error }
            return user
        }
    }

    func updateProfile(_ edit: ProfileEdit) async throws -> User {
        try await kept(try await context.online("users.updateProfile", write: true) { try await remote.updateProfile(edit) })
    }

    func updateSettings(_ settings: UserSettings) async throws -> User {
        try await kept(
            try await context.online("users.updateSettings", write: true) { try await remote.updateSettings(settings) })
    }

    func editSettings(_ edit: SettingsEdit) async throws -> User {
        try await kept(try await context.online("users.editSettings", write: true) { try await remote.editSettings(edit) })
    }

    func searchUsers(_ text: String, page: PageRequest) async throws -> Page<User> {
        try await context.online("users.searchUsers", write: false) { try await remote.searchUsers(text, page: page) }
    }

    private func kept(_ user: User) async throws -> User {
        try await accounts.keep(user)
        return user
    }
}
