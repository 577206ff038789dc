import DiarySDK
import Foundation

/// Plugs a backend into the conformance suite.
///
/// The suite calls ``makeWorld()`` once per check, so every check starts from an empty backend. A world hands out
/// signed-out devices that share its data, which is how a check acts as several users at once.
///
/// ```swift
/// import DiarySDK
/// import DiarySDKConformance
/// import Foundation
/// import Testing
///
/// struct MyHarness: ConformanceHarness {
///     struct World: ConformanceWorld {
///         let clock: ManualClock            // the clock the backend reads, so the checks can move it
///         let backend: MyBackend            // shared by every device of this world
///
///         func makeDevice() async throws -> DiaryRepositories { backend.newSignedOutDevice() }
///         func setNow(_ date: Date) async throws { clock.set(date) }
///         func shutdown() async throws { try await backend.destroy() }
///     }
///
///     func makeWorld() async throws -> any ConformanceWorld {
///         let clock = ManualClock()
///         let backend = try MyBackend(clock: clock, identityTokenVerifier: ConformanceIdentityTokenVerifier())
///         return World(clock: clock, backend: backend)
///     }
/// }
/// ```
///
/// Then run every check on it:
///
/// ```swift
/// @Test(arguments: ConformanceSuite.checks)
/// func myBackendConforms(_ check: ConformanceCheck) async throws {
///     try await check.run(on: MyHarness())
/// }
/// ```
public protocol ConformanceHarness: Sendable {
    /// A new, empty backend.
    func makeWorld() async throws -> any ConformanceWorld
}

/// One empty backend under test.
public protocol ConformanceWorld: Sendable {
    /// A new signed-out device (its own session) sharing the world's data.
    func makeDevice() async throws -> DiaryRepositories

    /// Sets the backend's clock. Checks start at ``ConformanceSuite/epoch``.
    /// - Parameter date: The instant the backend should see as now.
    func setNow(_ date: Date) async throws

    /// Releases the world (stops servers, deletes files).
    func shutdown() async throws

    /// How many committed transactions the backend's change log keeps for streams that resume, when it keeps a count
    /// (the check that a position older than that says `reloadRequired` commits one more); `nil` (the default) skips
    /// that check, for a backend whose log is kept by time or without bound.
    var changeLogRetention: Int? { get }
}

extension ConformanceWorld {
    /// `nil`: the retention check is skipped.
    public var changeLogRetention: Int? { nil }
}

/// A check that failed: what was expected and where.
public struct ConformanceFailure: Error, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// The source file of the failed expectation.
    public var file: String
    /// The line of the failed expectation.
    public var line: UInt

    /// `file:line: message`.
    public var description: String { "\(file):\(line): \(message)" }
}

/// One behaviour every backend must have.
public struct ConformanceCheck: Sendable, CustomStringConvertible {
    /// The area (`"accounts"`, `"blocking"`, …).
    public let area: String
    /// The behaviour, as a sentence in camel case (`blockedAuthorsPostsAreHiddenFromFeed`).
    public let name: String
    let body: @Sendable (ConformanceContext) async throws -> Void

    init(_ area: String, _ name: String, _ body: @escaping @Sendable (ConformanceContext) async throws -> Void) {
        self.area = area
        self.name = name
        self.body = body
    }

    /// `area.name`.
    public var description: String { "\(area).\(name)" }

    /// Runs the check on a fresh world of a backend.
    /// - Parameter harness: The backend.
    /// - Throws: ``ConformanceFailure`` when the backend misbehaves, or the backend's unexpected error.
    public func run(on harness: any ConformanceHarness) async throws {
        let world = try await harness.makeWorld()
        try await world.setNow(ConformanceSuite.epoch)
        do {
            try await body(ConformanceContext(world: world))
        } catch {
            try? await world.shutdown()
            throw error
        }
        try await world.shutdown()
    }
}

/// A signed-in user in a check: their device and their account.
public struct ConformanceUser: Sendable {
    /// The device's repositories.
    public let sdk: DiaryRepositories
    /// The user, as they see themself.
    public let user: User
    /// The user's id.
    public var id: User.ID { user.id }
}

/// What a check works with: the world and helpers to make users.
public struct ConformanceContext: Sendable {
    /// The backend under test.
    public let world: any ConformanceWorld

    /// A new signed-out device.
    public func device() async throws -> DiaryRepositories {
        try await world.makeDevice()
    }

    /// Signs up `nickname` (email `<nickname>@example.com`, password ``ConformanceSuite/password``) on a new device.
    public func user(_ nickname: String, timeZone: String? = nil) async throws -> ConformanceUser {
        let sdk = try await device()
        var user = try await sdk.accounts.signUp(
            SignUpRequest(email: "\(nickname)@example.com", password: ConformanceSuite.password, nickname: nickname))
        if let timeZone {
            var settings = user.settings ?? UserSettings()
            settings.timeZoneIdentifier = timeZone
            user = try await sdk.users.updateSettings(settings)
        }
        return ConformanceUser(sdk: sdk, user: user)
    }

    /// Sets the backend's clock.
    public func setNow(_ date: Date) async throws {
        try await world.setNow(date)
    }
}
