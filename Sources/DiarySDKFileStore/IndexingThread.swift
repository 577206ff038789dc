@_spi(Engine) @_spi(Storage) import DiarySDK
import Foundation

/// A thread of the file store's own that files a transaction's changes in the database's indices and listings while
/// the writer flushes the journal record, and frees the committed values that writes replaced.
///
/// A durable write waits for the device's flush (0.15–0.3 ms on the Linux machines measured, several milliseconds
/// with `F_FULLFSYNC` on Apple platforms). Filing a single entry in the tables, indices and listings is a fifth to a
/// quarter of the CPU of a write, and freeing the nodes the previous committed value no longer shares a twentieth
/// (docs/PERFORMANCE.md, "Mean durable write"); done on this thread, both run during the flush instead of before and
/// after it. The writer still publishes only once the flush and the filing are both done, so a reader never sees a
/// change that is not durable.
///
/// One job at a time: the file store's writers are serialised, and each ``start(_:)`` is followed by its
/// ``finish()`` before the next.
final class IndexingThread: @unchecked Sendable {
    // Unchecked: every stored property below is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var job: LocalTransaction.Outcome?
    private var done: LocalTransaction.Outcome?
    /// Replaced committed values waiting to be freed.
    private var retired: [LocalDatabase] = []
    private var isRunning = false
    private var isStopped = false

    init() {}

    /// The thread's name (at most 15 bytes, the longest Linux keeps).
    static let name = "DiarySDK.index"

    /// Whether a job was ever handed over (for tests).
    var hasRun: Bool {
        condition.lock()
        defer { condition.unlock() }
        return isRunning
    }

    /// Starts applying the mutations an outcome does not hold yet (``LocalTransaction/Outcome/applyRest()``).
    /// - Returns: `false` when the thread has been stopped (the caller applies them itself).
    func start(_ outcome: inout LocalTransaction.Outcome?) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !isStopped else { return false }
        if !isRunning {
            isRunning = true
            let thread = Thread { [self] in
                ThreadName.setCurrent(IndexingThread.name)
                run()
            }
            thread.start()
        }
        job = outcome.take()
        condition.broadcast()
        return true
    }

    /// Waits for the job ``start(_:)`` handed over.
    /// - Returns: Its outcome, every mutation applied.
    func finish() -> LocalTransaction.Outcome {
        condition.lock()
        defer { condition.unlock() }
        while done == nil { condition.wait() }
        return done.take()!
    }

    /// Hands over a committed value that a write replaced, to be freed on this thread when it next wakes (at the next
    /// write's ``start(_:)``), unless a reader still holds it (then that reader frees what it alone holds). Before the
    /// thread runs or once it has stopped, the value is freed at once by the caller.
    func retire(_ database: inout LocalDatabase?) {
        condition.lock()
        guard isRunning, !isStopped, let taken = database.take() else {
            condition.unlock()
            database = nil
            return
        }
        retired.append(taken)
        condition.unlock()
    }

    /// Takes back the values handed over to be freed and not freed yet, for a write that hands no job over (so the
    /// thread would not wake for them): the caller frees them.
    func takeRetired() -> [LocalDatabase] {
        condition.lock()
        defer { condition.unlock() }
        defer { retired = [] }
        return retired
    }

    /// Ends the thread once its job is done, freeing what it was handed.
    func stop() {
        condition.lock()
        isStopped = true
        let leftOver = retired
        retired = []
        condition.broadcast()
        condition.unlock()
        _ = leftOver
    }

    private func run() {
        while true {
            condition.lock()
            while job == nil && retired.isEmpty && !isStopped { condition.wait() }
            var next = job.take()
            var garbage = retired
            retired = []
            let stopping = isStopped && next == nil
            condition.unlock()
            if var outcome = next.take() {
                outcome.applyRest()
                condition.lock()
                done = outcome
                condition.broadcast()
                condition.unlock()
            }
            // Freed once the writer has its outcome.
            garbage.removeAll()
            if stopping { return }
        }
    }
}
