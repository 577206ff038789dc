// The examples in the doc comments of the backends' sources (compiled; DocSnippetTests runs the file store's).
import DiarySDK
import DiarySDKFileStore
import DiarySDKHTTP
import DiarySDKInMemory
import DiarySDKConformance
import MeteredBackend
import Foundation

/// What the examples log to.
struct ExampleLogger {
    func error(_ message: String) { print("error: \(message)") }
    func warning(_ message: String) { print("warning: \(message)") }
    func notice(_ message: String) { print("notice: \(message)") }
}

// snippet.begin: Sources/DiarySDKFileStore/FileStoreBackend.swift
func fileStoreBackendExample() async throws {
    // snippet.show
    let backend = try FileStoreBackend(configuration: .init(directory: FileStoreBackend.defaultDirectory))
    let sdk = backend.repositories
    if try await sdk.accounts.restoreSession() == nil {
        _ = try await sdk.accounts.signUp(.init(email: "me@example.com", password: "correct horse", nickname: "me"))
    }
    _ = try await sdk.diaries.write(DiaryDraft(body: "Learned how fsync works today."))
    try await backend.close()
    // snippet.hide
}

// snippet.begin: Sources/DiarySDKFileStore/FileStoreOpenReport.swift
func fileStoreOpenReportExample(url: URL, logger: ExampleLogger) async throws {
    // snippet.show
    let backend = try FileStoreBackend(configuration: .init(directory: url))
    let report = backend.openReport
    if !report.isClean {
        logger.error("the diary store lost \(report.droppedAcknowledgedRecords) saved changes; offer a restore")
    }
    if report.isOrphanSweepSuspended {
        // After restoring what can be restored (or deciding not to), let later opens clean up attachment files again:
        try await backend.acknowledgeDataLoss()
    } else if report.recoveredTornTail {
        logger.notice("recovered from an interrupted write: \(report.discardedBytes) bytes dropped")
    }
    // snippet.hide
    try await backend.close()
}

// snippet.begin: Sources/DiarySDKFileStore/FileStoreCompactionStatus.swift
func fileStoreCompactionStatusExample(backend: FileStoreBackend, logger: ExampleLogger) {
    // snippet.show
    if let failure = backend.compactionStatus.lastFailure {
        logger.warning("the diary store cannot compact (\(backend.compactionStatus.consecutiveFailures)×): \(failure)")
    }
    // snippet.hide
}

// snippet.begin: Sources/DiarySDKHTTP/HTTPBackend.swift
func httpBackendExample(appSupport: URL, apnsToken: String, email: String, password: String) async throws {
    // snippet.show
    let backend = HTTPBackend(configuration: .init(
        baseURL: URL(string: "https://diary.example.com")!,
        tokenStore: FileSessionStore(fileURL: appSupport.appendingPathComponent("session.json")),
        deviceToken: DeviceToken(token: apnsToken, platform: .apns)))
    let sdk = backend.repositories
    if try await sdk.accounts.restoreSession() == nil {
        _ = try await sdk.accounts.signIn(.password(email: email, password: password))
    }
    let feed = try await sdk.posts.feed(page: .first())
    // snippet.hide
    _ = feed
}

// snippet.begin: Sources/DiarySDKHTTP/RetryPolicy.swift
func retryPolicyExample(url: URL) {
    // snippet.show
    var configuration = HTTPBackend.Configuration(baseURL: url)
    configuration.retry = RetryPolicy(maximumAttempts: 5, baseDelay: 0.2)
    // snippet.hide
    _ = configuration
}

// snippet.begin: Sources/DiarySDKHTTP/ImageUpload.swift
@MainActor final class ProgressBar { var value = 0.0 }
@MainActor func imageUploadExample(
    backend: HTTPBackend, sdk: DiaryRepositories, photo1: AttachmentUpload, photo2: AttachmentUpload, bar: ProgressBar
) async throws {
    // snippet.show
    let upload = backend.uploadImages([photo1, photo2])
    Task { for await step in upload.progress { bar.value = step.fractionCompleted } }
    let images = try await upload.images
    _ = try await sdk.posts.publish(PostDraft(title: "Trip", body: "…", images: images))
    // snippet.hide
}

// snippet.begin: Sources/DiarySDKInMemory/Fixtures.swift
func fixturesExample(backend: InMemoryBackend) {
    // snippet.show
    let (alice, bob) = backend.seed { fixtures in
        let alice = fixtures.user("alice"), bob = fixtures.user("bob")
        fixtures.follow(alice, by: bob)
        return (alice, bob)
    }
    // snippet.hide
    _ = (alice, bob)
}

// snippet.begin: Sources/DiarySDKConformance/ConformanceIdentityTokenVerifier.swift
func conformanceIdentityTokenVerifierExample() {
    // snippet.show
    let backend = InMemoryBackend(configuration: .init(
        engine: .init(identityTokenVerifier: ConformanceIdentityTokenVerifier())))
    // snippet.hide
    _ = backend
}

// snippet.begin: Sources/DiarySDKConformance/LoopbackHTTPServer.swift
func loopbackHTTPServerExample(fetcher: some FeedFetching, rss: String) async throws {
    // snippet.show
    let server = try LoopbackHTTPServer()
    defer { server.stop() }
    server.route("/rss") { request in
        if request.header("If-None-Match") == "\"v1\"" { return .init(status: 304) }
        return .init(status: 200, headers: ["ETag": "\"v1\"", "Content-Type": "application/rss+xml"], body: Data(rss.utf8))
    }
    let response = try await fetcher.fetch(FeedFetchRequest(url: server.url("/rss")))
    // snippet.hide
    _ = response
}

// snippet.begin: Examples/Sources/MeteredBackend/MeteredRepositories.swift
func meteredRepositoriesExample(config: FileStoreBackend.Configuration) async throws {
    // snippet.show
    let meter = Meter()
    let sdk = MeteredRepositories.wrap(try FileStoreBackend(configuration: config).repositories, meter: meter)
    _ = try await sdk.accounts.restoreSession()   // … and every other call, counted and timed
    print(meter.report())
    // snippet.hide
}

// snippet.begin: Sources/DiarySDKFileStore/FileStoreSalvage.swift
func fileStoreSalvageExample(url: URL) async throws {
    // snippet.show
    let salvage = try FileStoreSalvage(directory: url)
    if let damage = salvage.report.damage { print("read up to the damage: \(damage)") }
    let entries = try await salvage.repositories.diaries.entries(DiaryQuery(includeHidden: true), page: .first())
    // snippet.hide
    print("\(entries.items.count) entries readable")
}
