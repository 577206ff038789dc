import DiarySDK
import DiarySDKConformance
import DiarySDKInMemory
import Foundation
import Testing

/// Counts the derivations the engine asks for, then runs the real PBKDF2 on the given pool.
final class CountingHasher: PasswordHasher, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Int] = []
    let inner: PBKDF2PasswordHasher

    init(pool: HashingPool = .shared) {
        inner = PBKDF2PasswordHasher(pool: pool)
    }

    /// The iteration count of every derivation so far.
    var derivations: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    func reset() {
        lock.lock()
        recorded = []
        lock.unlock()
    }

    func derive(password: [UInt8], salt: [UInt8], iterations: Int) async -> [UInt8] {
        lock.withLock { recorded.append(iterations) }
        return await inner.derive(password: password, salt: salt, iterations: iterations)
    }
}

/// An append-only log shared by tasks.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String] = []

    func append(_ event: String) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }
}

@Suite("Password hashing in the engine")
struct PasswordHashingTests {
    static let password = ConformanceSuite.password

    func backend(_ hasher: CountingHasher, iterations: Int = 1_000) -> InMemoryBackend {
        InMemoryBackend(configuration: .init(
            engine: .init(
                passwordHashIterations: iterations, identityTokenVerifier: ConformanceIdentityTokenVerifier(),
                passwordHasher: hasher)))
    }

    @Test func aWrongPasswordCostsTheSameWorkForAKnownAndAnUnknownEmail() async throws {
        let hasher = CountingHasher()
        let backend = backend(hasher)
        let sdk = backend.makeRepositories()
        _ = try await sdk.accounts.signUp(.init(email: "alice@example.com", password: Self.password, nickname: "alice"))
        _ = try await backend.makeRepositories().accounts.signIn(
            .identityToken(provider: "apple", token: "test:sso-only:sso@example.com:verified"))
        for email in ["alice@example.com", "nobody@example.com", "sso@example.com"] {
            hasher.reset()
            await #expect(throws: DiaryError.self) {
                try await backend.makeRepositories().accounts.signIn(.password(email: email, password: "wrong password"))
            }
            #expect(hasher.derivations == [1_000], "\(email): one derivation at the configured cost")
        }
    }

    /// The sign-ins outnumber the shared pool's threads. The hashing pool's one thread is held by a gate until every
    /// sign-in is waiting for its hash, so a probe started then must run while all of them are mid-hash: it can,
    /// because they wait for the hashing pool instead of holding the shared pool's threads.
    @Test func signInsHashingAtOnceLeaveTheSharedPoolFreeForOtherWork() async throws {
        let pool = HashingPool(threadCount: 1)
        let gate = DispatchSemaphore(value: 0)
        let gateEntered = EventLog()
        let gateJob = Task { await pool.run { gateEntered.append("gate"); gate.wait() } }
        while gateEntered.all.isEmpty { await Task.yield() }
        let hasher = StartCountingHasher(inner: PBKDF2PasswordHasher(pool: pool))
        let backend = InMemoryBackend(configuration: .init(engine: .init(passwordHashIterations: 20_000, passwordHasher: hasher)))
        let log = EventLog()
        let count = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let signIns = (0..<count).map { index in
            Task {
                _ = try? await backend.makeRepositories().accounts.signIn(
                    .password(email: "nobody\(index)@example.com", password: "wrong password"))
                log.append("sign-in")
            }
        }
        // Every hash under way, unless a sign-in already finished (hashing that holds the shared pool's threads
        // lets the later sign-ins start only after earlier ones end).
        while hasher.started < count && log.all.isEmpty { await Task.yield() }
        let probe = Task { log.append("probe") }
        await probe.value
        gate.signal()
        await gateJob.value
        for signIn in signIns { await signIn.value }
        #expect(log.all.first == "probe", "other work ran while the hashes did: \(log.all)")
        #expect(log.all.count == count + 1)
    }
}

/// Counts derivations that have started, before handing them to the real hasher.
final class StartCountingHasher: PasswordHasher, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    let inner: any PasswordHasher

    init(inner: any PasswordHasher) {
        self.inner = inner
    }

    var started: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    func derive(password: [UInt8], salt: [UInt8], iterations: Int) async -> [UInt8] {
        lock.withLock { count += 1 }
        return await inner.derive(password: password, salt: salt, iterations: iterations)
    }
}
