import Foundation

@_spi(Storage)
extension DiaryEngine {
    /// An engine over a storage of your own, for an app on a device: it acts as whoever signs in and keeps the
    /// session in `sessionStore`. What a backend built on a custom ``DiaryStorage`` returns from its repositories.
    /// - Parameters:
    ///   - storage: The storage.
    ///   - environment: Clock, ids and default time zone.
    ///   - configuration: Password hashing and identity verification.
    ///   - sessionStore: Where the signed-in session is kept.
    public convenience init(
        storage: any DiaryStorage, environment: DiaryEnvironment = DiaryEnvironment(),
        configuration: Configuration = Configuration(), sessionStore: any SessionStore
    ) {
        self.init(store: storage, environment: environment, configuration: configuration, sessionStore: sessionStore)
    }

    /// An engine over a storage of your own that acts as one user, as a server does for one authenticated request,
    /// or is signed out (with a session kept in memory) when `userID` is `nil`.
    /// - Parameters:
    ///   - storage: The storage.
    ///   - environment: Clock, ids and default time zone.
    ///   - configuration: Password hashing and identity verification.
    ///   - userID: The user to act as.
    public convenience init(
        storage: any DiaryStorage, environment: DiaryEnvironment = DiaryEnvironment(),
        configuration: Configuration = Configuration(), actingAs userID: User.ID?
    ) {
        self.init(store: storage, environment: environment, configuration: configuration, actingAs: userID)
    }
}
