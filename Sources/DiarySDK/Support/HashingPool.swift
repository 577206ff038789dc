import Foundation

/// A small pool of dedicated threads for CPU-heavy work (password hashing), so that work never occupies the threads
/// of Swift's shared concurrency pool.
///
/// PBKDF2 at 100,000 rounds takes hundreds of milliseconds of CPU. Run on the shared pool, a handful of sign-ins at
/// once holds every one of its threads (one per core), and every other task of the process — a server's health
/// check, a UI refresh — waits behind them. ``run(_:)`` instead queues the work for one of this pool's threads and
/// suspends the caller until it is done; the caller's thread is free meanwhile.
///
/// ```swift
/// let pool = HashingPool(threadCount: 2)
/// let hash = await pool.run { expensiveDerivation() }
/// ```
public final class HashingPool: @unchecked Sendable {
    /// The pool every ``PBKDF2PasswordHasher`` uses unless given another: `max(1, cores − 1)` threads.
    public static let shared = HashingPool(threadCount: max(1, ProcessInfo.processInfo.activeProcessorCount - 1))

    /// How many threads run work.
    public let threadCount: Int

    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []
    private var started = false

    /// Creates a pool; its threads start with the first piece of work and live as long as the process.
    /// - Parameter threadCount: The number of threads (at least 1).
    public init(threadCount: Int) {
        self.threadCount = max(1, threadCount)
    }

    /// Runs `work` on one of the pool's threads and returns its result; work runs in the order it was queued.
    /// - Parameter work: The work, which must not block on the caller.
    /// - Returns: What `work` returned.
    public func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
            enqueue { continuation.resume(returning: work()) }
        }
    }

    private func enqueue(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        queue.append(job)
        let start = !started
        started = true
        condition.signal()
        condition.unlock()
        if start {
            for index in 0..<threadCount {
                let thread = Thread { [self] in self.serve() }
                thread.name = "DiarySDK.HashingPool-\(index)"
                thread.start()
            }
        }
    }

    private func serve() {
        while true {
            condition.lock()
            while queue.isEmpty { condition.wait() }
            let job = queue.removeFirst()
            condition.unlock()
            job()
        }
    }
}
