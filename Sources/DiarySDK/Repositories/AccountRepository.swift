import Foundation

/// Accounts and the session: sign up, sign in, sign out, withdraw, restore the last session.
///
/// Every other repository acts as the user signed in here. Built-in implementations come from a backend
/// (`InMemoryBackend`, `FileStoreBackend`, `HTTPBackend`) through ``DiaryRepositories``; to write your own, conform
/// and run the `DiarySDKConformance` suite against it (see docs/CustomBackend.md).
public protocol AccountRepository: Sendable {
    /// Creates an account and signs it in.
    ///
    /// The account counts its days in the request's time zone, or the device's when the request names none.
    /// - Parameter request: Email, password, nickname and optionally a time zone.
    /// - Returns: The new user, as its owner sees it.
    /// - Throws: `.invalidInput` for a malformed field or an unknown time zone; `.conflict` when the email or
    ///   nickname (or a look-alike of it, ``Validation/nicknameKey(_:)``) is taken.
    func signUp(_ request: SignUpRequest) async throws -> User

    /// Signs in.
    ///
    /// An identity token for an unknown subject creates an account (in the device's time zone). It joins an existing
    /// account with the same email only when the provider verified that email.
    /// - Parameter credentials: Email and password, or an external identity token.
    /// - Returns: The user.
    /// - Throws: `.unauthenticated` for wrong credentials (never saying which part was wrong).
    func signIn(_ credentials: Credentials) async throws -> User

    /// Signs out; afterwards every user-scoped call throws `.unauthenticated`. Signing out twice is harmless.
    ///
    /// The push tokens this device registered for the user (``registerDeviceToken(_:)``, and `HTTPBackend`'s
    /// configured `deviceToken`) are unregistered, so a shared device stops receiving the previous user's pushes.
    /// Tokens the user registered on other devices stay.
    func signOut() async throws

    /// Deletes the signed-in account and everything it wrote, then signs out.
    /// - Throws: `.unauthenticated` when no one is signed in.
    func withdraw() async throws

    /// Signs in again from the session store, if it holds a session that is still valid.
    /// - Returns: The user, or `nil` when there is no valid stored session (which is then cleared).
    func restoreSession() async throws -> User?

    /// The signed-in user, or `nil`.
    func currentUser() async throws -> User?

    /// Who is signed in on this device now, then every change: sign-in (and sign-up, and a restored session),
    /// sign-out with its reason (the user signed out, the server refused the session, the account was withdrawn), a
    /// renewed token over HTTP, and the user's own profile or settings edited through this device.
    ///
    /// Every call returns a new stream; each first yields ``AuthStateChange/Event/initial`` with the current state.
    /// A change reaches every stream before the call that made it returns. The stream ends when the caller stops
    /// iterating it (it never ends on its own: after a sign-out it waits for the next sign-in).
    ///
    /// ```swift
    /// for await change in sdk.accounts.authStates() {
    ///     screen = change.state.user == nil ? .signIn : .home
    /// }
    /// ```
    func authStates() -> AsyncStream<AuthStateChange>

    /// Whether a nickname is free (and valid).
    /// - Parameter nickname: The nickname.
    /// - Returns: `true` when no one has it.
    /// - Throws: `.invalidInput` when it breaks the nickname rules.
    func isNicknameAvailable(_ nickname: String) async throws -> Bool

    /// Whether an email address is free (and well-formed).
    /// - Parameter email: The address.
    /// - Returns: `true` when no account uses it.
    /// - Throws: `.invalidInput` when it is malformed.
    func isEmailAvailable(_ email: String) async throws -> Bool

    /// Registers this device's push token for the signed-in user (replacing an older one for the same token). The
    /// registration lasts until the user signs out on this device, or the token is registered by someone else.
    /// - Parameter token: The token.
    func registerDeviceToken(_ token: DeviceToken) async throws

    /// The push tokens registered for the signed-in user.
    func deviceTokens() async throws -> [DeviceToken]
}

/// Profiles: read a user, edit your own, find people.
public protocol UserRepository: Sendable {
    /// A user's profile: full for yourself, public for others.
    /// - Parameter id: The user.
    /// - Throws: `.notFound` when the user does not exist, or blocked you, or you blocked them.
    func user(_ id: User.ID) async throws -> User

    /// Edits the signed-in user's profile.
    /// - Parameter edit: The changes.
    /// - Returns: The updated user.
    /// - Throws: `.invalidInput`; `.conflict` for a taken nickname.
    func updateProfile(_ edit: ProfileEdit) async throws -> User

    /// Replaces the signed-in user's settings.
    /// - Parameter settings: The new settings.
    /// - Returns: The updated user.
    /// - Throws: `.invalidInput` for an unknown time zone or an out-of-range reminder time.
    func updateSettings(_ settings: UserSettings) async throws -> User

    /// Changes some of the signed-in user's settings, leaving the rest as they are when the change is written (no
    /// read-modify-write on the device: another device's change to another setting is kept).
    /// - Parameter edit: What to change.
    /// - Returns: The updated user.
    /// - Throws: `.invalidInput` for an unknown time zone or an out-of-range reminder time.
    func editSettings(_ edit: SettingsEdit) async throws -> User

    /// Users whose nickname contains the text, leaving out anyone with a block either way.
    /// - Parameters:
    ///   - text: Part of a nickname (case-insensitive).
    ///   - page: Which page.
    func searchUsers(_ text: String, page: PageRequest) async throws -> Page<User>
}

/// Uploaded files: images for entries, posts and avatars.
public protocol AttachmentRepository: Sendable {
    /// Stores an image for the signed-in user.
    /// - Parameter upload: The bytes and MIME type (`image/*`, at most ``Validation/maximumAttachmentBytes``).
    /// - Returns: The reference to put in a draft.
    /// - Throws: `.invalidInput` for an empty, oversized or non-image upload.
    func upload(_ upload: AttachmentUpload) async throws -> ImageReference

    /// An attachment's bytes.
    /// - Parameter id: The attachment.
    /// - Throws: `.notFound` when it does not exist or belongs to nothing the user may see.
    func data(for id: Attachment.ID) async throws -> Data
}
