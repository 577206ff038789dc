@_spi(Engine) import DiarySDK
import Foundation

/// The behavioural suite every backend must pass: one list of checks, written once against the repository
/// protocols.
///
/// Run it from any test framework; with Swift Testing each check becomes a test case:
///
/// ```swift
/// @Test(arguments: ConformanceSuite.checks)
/// func myBackendConforms(_ check: ConformanceCheck) async throws {
///     try await check.run(on: MyHarness())
/// }
/// ```
public enum ConformanceSuite {
    /// Where every check's clock starts: 2026-03-10 12:00 UTC.
    public static let epoch = WireDate.date(from: "2026-03-10T12:00:00Z")!

    /// The password of every user the suite signs up.
    public static let password = "correct horse battery"

    /// Every check, grouped by area.
    public static let checks: [ConformanceCheck] =
        accountChecks + authStateChecks + identityChecks + profileChecks + attachmentChecks + diaryChecks + calendarChecks + bookChecks
        + commentChecks + postChecks + dayAndLikerChecks + settingsEditChecks + pagingChecks + blockingChecks + anonymityChecks + anonymousAuthorChecks
        + socialChecks + notificationChecks + blogChecks
        + changeChecks + liveChangeChecks + authorizationChecks + blogSyncChecks + chosenIDChecks
}
