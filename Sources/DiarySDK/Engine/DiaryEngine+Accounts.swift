import Foundation

extension DiaryEngine: AccountRepository {
    /// Creates an account without signing it in: what a server calls before issuing its own tokens.
    /// - Parameter request: Email, password, nickname and optionally a time zone (the device's when absent).
    /// - Returns: The new user, as its owner sees it.
    /// - Throws: `.invalidInput` for a malformed field or an unknown time zone; `.conflict` when the email or
    ///   nickname (or a look-alike of it) is taken.
    @_spi(Engine)
    public func createAccount(_ request: SignUpRequest) async throws -> User {
        let email = try Validation.email(request.email)
        let nickname = try Validation.nickname(request.nickname)
        try Validation.password(request.password)
        let zone = try Self.timeZoneIdentifier(request.timeZoneIdentifier) ?? environment.defaultTimeZone.identifier
        let salt = Self.randomBytes(16)
        let iterations = configuration.passwordHashIterations
        let hash = await configuration.passwordHasher.derive(
            password: Array(request.password.utf8), salt: salt, iterations: iterations)
        let user = User(
            id: newID(), nickname: nickname, email: email, createdAt: now,
            settings: UserSettings(timeZoneIdentifier: zone))
        let credential = CredentialRecord(
            userID: user.id, email: email, salt: SHA256.hex(salt), iterations: iterations, hash: SHA256.hex(hash),
            externalIdentities: [])
        return try await store.write("accounts.signUp") { transaction in
            try await Self.checkAvailable(email: email, nickname: nickname, except: nil, in: transaction)
            try await transaction.put(.user(user))
            try await transaction.put(.credential(credential))
            return user
        }
    }

    @_spi(Engine)
    public func signUp(_ request: SignUpRequest) async throws -> User {
        let user = try await createAccount(request)
        try await startSession(for: user)
        return user
    }

    @_spi(Engine)
    public func signIn(_ credentials: Credentials) async throws -> User {
        let user = try await authenticate(credentials)
        try await startSession(for: user)
        return user
    }

    @_spi(Engine)
    public func signOut() async throws {
        guard case .session(let context) = principal, let session = context.session else { return }
        let tokenHash = SHA256.hex(SHA256.hash(Array(session.accessToken.utf8)))
        let devices = session.deviceTokens ?? []
        try await store.write("accounts.signOut") { transaction in
            try await transaction.remove(.session(tokenHash))
            for token in devices {
                guard try await transaction.contains(.device(session.userID, token)) else { continue }
                try await transaction.remove(.device(session.userID, token))
            }
        }
        try await context.set(nil, announcing: .signedOut(.userSignedOut))
    }

    @_spi(Engine)
    public func withdraw() async throws {
        let userID = try requireUserID()
        try await write("accounts.withdraw") { transaction, actor in
            try await self.deleteAccount(actor.id, in: transaction)
        }
        if case .session(let context) = principal, context.userID == userID {
            try await context.set(nil, announcing: .signedOut(.accountWithdrawn))
        }
    }

    @_spi(Engine)
    public func restoreSession() async throws -> User? {
        guard case .session(let context) = principal else {
            return try await currentUser()
        }
        guard let stored = try await context.store.load() else { return nil }
        let tokenHash = SHA256.hex(SHA256.hash(Array(stored.accessToken.utf8)))
        let user = try await store.read("accounts.restoreSession") { db -> User? in
            guard let session = try await db.session(tokenHash), session.userID == stored.userID else { return nil }
            return try await db.user(session.userID)
        }
        try await context.set(user == nil ? nil : stored, announcing: user.map { .signedIn($0) } ?? .signedOut(.sessionExpired))
        return user
    }

    @_spi(Engine)
    public func authStates() -> AsyncStream<AuthStateChange> {
        switch principal {
        case .session(let context):
            return context.authStates.subscribe()
        case .fixed:
            // Acting as one user for good: the state never changes, so the stream only says who it is.
            return AsyncStream { continuation in
                let task = Task {
                    if let user = try? await self.currentUser() {
                        continuation.yield(AuthStateChange(event: .initial, state: .signedIn(user)))
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }

    @_spi(Engine)
    public func currentUser() async throws -> User? {
        guard let id = try? requireUserID() else { return nil }
        return try await store.read("accounts.currentUser") { db in try await db.user(id) }
    }

    @_spi(Engine)
    public func isNicknameAvailable(_ nickname: String) async throws -> Bool {
        let nickname = try Validation.nickname(nickname)
        return try await store.read("accounts.isNicknameAvailable") { db in
            try await db.row(StorageSchema.usersByNickname, equalTo: Validation.nicknameKey(nickname)) == nil
        }
    }

    @_spi(Engine)
    public func isEmailAvailable(_ email: String) async throws -> Bool {
        let email = try Validation.email(email)
        return try await store.read("accounts.isEmailAvailable") { db in
            try await db.row(StorageSchema.credentialsByEmail, equalTo: email) == nil
        }
    }

    @_spi(Engine)
    public func registerDeviceToken(_ token: DeviceToken) async throws {
        let trimmed = try Validation.text(token.token, field: "token", maximum: 4096)
        let registeredAt = now
        let actor = try await write("accounts.registerDeviceToken") { transaction, actor in
            // A token names one device: whoever registered it before no longer holds it.
            for device in try await transaction.rows(StorageSchema.devicesByToken, equalTo: trimmed)
            where device.userID != actor.id {
                try await transaction.remove(.device(device.userID, trimmed))
            }
            try await transaction.put(
                .device(
                    DeviceRecord(
                        userID: actor.id, device: DeviceToken(token: trimmed, platform: token.platform),
                        registeredAt: registeredAt)))
            return actor.id
        }
        // Remember it with the session, so signing out on this device unregisters it.
        if case .session(let context) = principal, var session = context.session, session.userID == actor,
            !(session.deviceTokens ?? []).contains(trimmed)
        {
            session.deviceTokens = (session.deviceTokens ?? []) + [trimmed]
            try await context.set(session)
        }
    }

    /// Removes the acting user's registrations of some push tokens: what a server calls when a device signs out.
    /// Tokens the user never registered are ignored.
    /// - Parameter tokens: The tokens, as registered.
    /// - Throws: `.unauthenticated` when no one is signed in.
    @_spi(Engine)
    public func unregisterDeviceTokens(_ tokens: [String]) async throws {
        let trimmed = tokens.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        try await write("accounts.unregisterDeviceTokens") { transaction, actor in
            for token in trimmed {
                guard try await transaction.contains(.device(actor.id, token)) else { continue }
                try await transaction.remove(.device(actor.id, token))
            }
        }
    }

    @_spi(Engine)
    public func deviceTokens() async throws -> [DeviceToken] {
        try await read("accounts.deviceTokens") { db, viewer in
            try await db.rows(StorageSchema.devicesByUser, equalTo: viewer.id)
                .sorted { $0.registeredAt < $1.registeredAt }.map(\.device)
        }
    }

    // MARK: - Helpers

    /// Publishes the signed-in user's profile as it is now committed, after an edit through this engine: read back
    /// and published one edit at a time, so the stream ends on the newest profile whichever edit's caller resumes
    /// first.
    private func announceProfile(of userID: User.ID) async {
        guard case .session(let context) = principal, context.userID == userID else { return }
        _ = try? await context.profileAnnouncements.run {
            guard let latest = try await self.store.read("accounts.profileAfterEdit", { try await $0.user(userID) }) else {
                return
            }
            context.authStates.profileUpdated(latest)
        }
    }

    private func startSession(for user: User) async throws {
        guard case .session(let context) = principal else { return }
        let userID = user.id
        let token = SHA256.hex(Self.randomBytes(32))
        let record = SessionRecord(
            tokenHash: SHA256.hex(SHA256.hash(Array(token.utf8))), userID: userID, createdAt: now)
        try await store.write("accounts.startSession") { transaction in
            try await transaction.put(.session(record))
        }
        try await context.set(StoredSession(userID: userID, accessToken: token), announcing: .signedIn(user))
    }

    /// Checks that an email and a nickname (or a look-alike of it) belong to nobody but `userID`.
    /// - Throws: `.conflict` on the field that is taken.
    package static func checkAvailable(
        email: String?, nickname: String?, except userID: User.ID?, in db: any StorageReader
    ) async throws {
        if let email, let owner = try await db.row(StorageSchema.credentialsByEmail, equalTo: email)?.userID,
            owner != userID
        {
            throw DiaryError(.conflict, "the email address is already registered", field: "email")
        }
        if let nickname,
            let owner = try await db.row(StorageSchema.usersByNickname, equalTo: Validation.nicknameKey(nickname))?.id,
            owner != userID
        {
            throw DiaryError(.conflict, "the nickname '\(nickname)' is taken", field: "nickname")
        }
    }

    package static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

extension DiaryEngine: UserRepository {
    @_spi(Engine)
    public func user(_ id: User.ID) async throws -> User {
        try await read("users.user") { db, viewer in
            guard try await AccessPolicy.canSee(user: id, viewer: viewer, in: db), let user = try await db.user(id)
            else { throw DiaryError.notFound("user \(id)") }
            return AccessPolicy.view(of: user, viewer: viewer.id)
        }
    }

    @_spi(Engine)
    public func updateProfile(_ edit: ProfileEdit) async throws -> User {
        let nickname = try edit.nickname.map(Validation.nickname)
        let bio = try edit.bio.map { try Validation.text($0, field: "bio", maximum: Validation.maximumBioLength, allowEmpty: true) }
        let user = try await write("users.updateProfile") { transaction, actor in
            guard var user = try await transaction.user(actor.id) else { throw DiaryError.notSignedIn }
            try await Self.checkAvailable(email: nil, nickname: nickname, except: actor.id, in: transaction)
            var replacedAvatar: Attachment.ID?
            if let avatar = edit.avatar {
                if let avatar { try await Self.checkImages([avatar], owner: actor.id, in: transaction) }
                if user.avatar?.id != avatar?.id { replacedAvatar = user.avatar?.id }
                user.avatar = avatar
            }
            if let nickname { user.nickname = nickname }
            if let bio { user.bio = bio }
            try await transaction.put(.user(user))
            if let replacedAvatar { try await Self.removeUnreferencedAttachments([replacedAvatar], in: transaction) }
            return user
        }
        await announceProfile(of: user.id)
        return user
    }

    @_spi(Engine)
    public func updateSettings(_ settings: UserSettings) async throws -> User {
        try Self.validate(timeZone: settings.timeZoneIdentifier, reminder: settings.dailyReminder)
        return try await writeSettings("users.updateSettings") { _ in settings }
    }

    @_spi(Engine)
    public func editSettings(_ edit: SettingsEdit) async throws -> User {
        try Self.validate(timeZone: edit.timeZoneIdentifier, reminder: edit.dailyReminder)
        // Applied to the settings as the write reads them, so a concurrent edit of another setting stays.
        return try await writeSettings("users.editSettings") { edit.applied(to: $0 ?? UserSettings()) }
    }

    /// Replaces the signed-in user's settings with what `change` makes of them, inside one write.
    private func writeSettings(
        _ operation: String, _ change: @escaping @Sendable (UserSettings?) -> UserSettings
    ) async throws -> User {
        let user = try await write(operation) { transaction, actor in
            guard var user = try await transaction.user(actor.id) else { throw DiaryError.notSignedIn }
            user.settings = change(user.settings)
            try await transaction.put(.user(user))
            return user
        }
        await announceProfile(of: user.id)
        return user
    }

    private static func validate(timeZone identifier: String?, reminder: DailyReminder?) throws {
        if let identifier, TimeZone(identifier: identifier) == nil {
            throw DiaryError.invalid("timeZoneIdentifier", .invalidFormat, "'\(identifier)' is not a time zone")
        }
        if let reminder, !(0..<24).contains(reminder.hour) || !(0..<60).contains(reminder.minute) {
            throw DiaryError.invalid("dailyReminder", .invalidFormat, "the reminder time must be 00:00–23:59")
        }
    }

    @_spi(Engine)
    public func searchUsers(_ text: String, page: PageRequest) async throws -> Page<User> {
        let needle = try Validation.text(text, field: "text", maximum: Validation.maximumNicknameLength).lowercased()
        return try await read("users.searchUsers") { db, viewer in
            // A substring of a nickname has no index: walk the directory, newest first, until the page is full.
            try await Paginator.page(
                page, key: { SortKey($0.createdAt, $0.id.rawValue) },
                fetch: { position, limit in
                    try await db.page(
                        StorageSchema.userDirectory, Everything(), descending: true, from: position, limit: limit,
                        where: .none)
                },
                resolve: { user -> User? in
                    guard user.nickname.lowercased().contains(needle),
                        try await AccessPolicy.canSee(user: user.id, viewer: viewer, in: db)
                    else { return nil }
                    return AccessPolicy.view(of: user, viewer: viewer.id)
                })
        }
    }
}

extension DiaryEngine: AttachmentRepository {
    @_spi(Engine)
    public func upload(_ upload: AttachmentUpload) async throws -> ImageReference {
        let contentType = upload.contentType.lowercased().trimmingCharacters(in: .whitespaces)
        guard !upload.data.isEmpty else {
            throw DiaryError.invalid("data", .blank, "the upload is empty")
        }
        guard upload.data.count <= Validation.maximumAttachmentBytes else {
            throw DiaryError.invalid(
                "data", .tooLong,
                "the upload is \(upload.data.count) bytes; the limit is \(Validation.maximumAttachmentBytes)")
        }
        guard let expected = ImageSignature.kind(of: upload.data) else {
            throw DiaryError.invalid("data", .invalidFormat, "the upload is not a JPEG, PNG, GIF, WebP or HEIC image")
        }
        guard expected.contentTypes.contains(contentType) else {
            throw DiaryError.invalid(
                "contentType", .invalidFormat, "the upload is \(expected.contentTypes[0]), not '\(contentType)'")
        }
        let actor = try requireUserID()
        let attachment = Attachment(
            id: newID(), ownerID: actor, contentType: contentType, byteCount: upload.data.count, createdAt: now)
        try await store.saveBlob(upload.data, for: attachment.id)
        try await write("attachments.upload") { transaction, _ in
            try await transaction.put(.attachment(attachment))
        }
        return attachment.reference
    }

    @_spi(Engine)
    public func data(for id: Attachment.ID) async throws -> Data {
        try await read("attachments.data") { db, viewer in
            guard let attachment = try await db.attachment(id),
                try await AccessPolicy.canSee(attachment, viewer: viewer, in: db)
            else {
                throw DiaryError.notFound("attachment \(id)")
            }
            return ()
        }
        return try await store.blob(for: id)
    }
}

/// Recognises image formats by their first bytes, so an upload is what it claims to be.
package enum ImageSignature {
    case jpeg, png, gif, webp, heic

    package var contentTypes: [String] {
        switch self {
        case .jpeg: ["image/jpeg", "image/jpg"]
        case .png: ["image/png"]
        case .gif: ["image/gif"]
        case .webp: ["image/webp"]
        case .heic: ["image/heic", "image/heif"]
        }
    }

    package static func kind(of data: Data) -> ImageSignature? {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .gif }
        if bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8) {
            return .webp
        }
        if bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8),
            ["heic", "heix", "mif1", "msf1", "hevc"].contains(String(decoding: bytes[8..<12], as: UTF8.self))
        {
            return .heic
        }
        return nil
    }
}
