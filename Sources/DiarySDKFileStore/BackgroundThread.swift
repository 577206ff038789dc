import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A thread of the file store's own that runs a background compaction's CPU work (sorting the rows, encoding the
/// snapshot) at the lowest scheduling priority the platform has, so that it only takes a core no other thread of the
/// process wants at that moment.
///
/// A compaction encodes a whole snapshot (about 30 ms of CPU at 1,000 entries, seconds at 100,000) while writes land.
/// A writer spends most of a durable write asleep in the journal's flush; when the flush completes, Linux often wakes
/// it on the core it slept on, and at the same priority it may let the compaction running there finish its time slice
/// first. On the 2-core Linux VM measured, such writers waited up to 4 ms for a core while the other one was idle
/// (docs/PERFORMANCE.md, "Writes during a compaction: the encoding at the lowest priority"). On Linux this thread runs
/// under `SCHED_IDLE`, which the scheduler preempts as soon as a thread of a normal policy wakes on its core; on Apple
/// platforms it runs at the `.background` quality of service (which lowers its priority, without that guarantee; not
/// measured).
///
/// The jobs take no lock the store's writers take; memory they allocate comes from the allocator's arena for this
/// thread. A job given up keeps the values it was given (a copy of the database) until it ends, after the
/// compaction itself may have ended.
///
/// A thread of the lowest priority may not run at all while every core is busy. So nobody waits for it
/// unconditionally: ``run(_:givingUpWhen:)`` gives a job up when its caller must go on (someone waits for the
/// compaction, or it has taken too long), and the caller does the work itself. A job that has already started then
/// runs to its end whenever the thread gets a core, and its result is dropped; so a job works only on values of its
/// own (copies), never on state its caller goes on with.
final class BackgroundThread: @unchecked Sendable {
    // Unchecked: every stored property below is read and written only with `condition` locked.
    private let condition = NSCondition()
    private let name: String
    private var queue: [Job] = []
    private var isStarted = false
    private var isStopped = false
    private var jobsRun = 0
    private var jobsHanded = 0
    private var lowestPriority: Bool?
    private var holdsJobs = false

    /// How often a caller waiting for a job checks whether it must give it up.
    static let checkInterval: TimeInterval = 0.005

    /// A job and where its result goes.
    private struct Job {
        let slot: ObjectIdentifier
        let work: () -> Void
    }

    /// Where a job leaves its result, read and written with `condition` locked.
    private final class Slot<Value> {
        var value: Value?
    }

    /// - Parameter name: The thread's name, at most ``ThreadName/maximumLength`` bytes (the longest Linux keeps).
    init(name: String) {
        self.name = name
    }

    /// Runs `work` on the thread and waits for its result, checking every ``checkInterval`` whether to give it up.
    /// - Parameters:
    ///   - work: The job: it must work on values of its own, since it may still run after its caller gave it up.
    ///   - shouldGiveUp: Whether the caller must go on without the result (called without any lock held).
    /// - Returns: The job's result; `nil` when the caller gave it up or the thread has been stopped (the caller then
    ///   does the work itself).
    func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value, givingUpWhen shouldGiveUp: () -> Bool) -> Value? {
        let slot = Slot<Value>()
        let id = ObjectIdentifier(slot)
        condition.lock()
        guard !isStopped else {
            condition.unlock()
            return nil
        }
        if !isStarted {
            isStarted = true
            let thread = Thread { [self] in main() }
            #if canImport(Darwin)
            thread.qualityOfService = .background
            #endif
            thread.start()
        }
        jobsHanded += 1
        queue.append(
            Job(slot: id) { [condition] in
                let value = work()
                condition.lock()
                slot.value = value
                condition.broadcast()
                condition.unlock()
            })
        condition.broadcast()
        while true {
            if let value = slot.value {
                condition.unlock()
                return value
            }
            if isStopped {
                condition.unlock()
                return nil
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: Self.checkInterval))
            guard slot.value == nil, !isStopped else { continue }
            condition.unlock()
            let givesUp = shouldGiveUp()
            condition.lock()
            // A result that arrived meanwhile is taken all the same.
            if givesUp, slot.value == nil {
                // A job not started yet is dropped; one running ends on its own, its result unread.
                queue.removeAll { $0.slot == id }
                condition.unlock()
                return nil
            }
        }
    }

    /// Ends the thread once its running job is done; queued jobs are dropped and their callers do the work themselves.
    func stop() {
        condition.lock()
        isStopped = true
        queue.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    /// How many jobs callers have handed to the thread (for tests).
    var handedJobs: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobsHanded
    }

    /// How many jobs the thread has started (for tests).
    var startedJobs: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobsRun
    }

    /// Whether the thread got the lowest priority it asked for; `nil` before it has started (for tests).
    var hasLowestPriority: Bool? {
        condition.lock()
        defer { condition.unlock() }
        return lowestPriority
    }

    /// While set, the thread starts no job, as if every core were busy (for tests).
    func holdJobs(_ holds: Bool) {
        condition.lock()
        holdsJobs = holds
        condition.broadcast()
        condition.unlock()
    }

    private func main() {
        ThreadName.setCurrent(name)
        let lowered = Self.lowerPriority()
        condition.lock()
        lowestPriority = lowered
        condition.unlock()
        while true {
            condition.lock()
            while (queue.isEmpty || holdsJobs) && !isStopped { condition.wait() }
            guard !isStopped else {
                condition.unlock()
                return
            }
            let job = queue.removeFirst()
            jobsRun += 1
            condition.unlock()
            job.work()
        }
    }

    /// Moves the calling thread to the lowest scheduling priority: `SCHED_IDLE` on Linux and Android (any thread may
    /// lower itself to it, and a thread of a normal policy that wakes preempts it at once). On Apple platforms the
    /// quality of service set before the thread started does this; elsewhere nothing does.
    /// - Returns: Whether the thread runs at that priority.
    private static func lowerPriority() -> Bool {
        #if os(Linux) || os(Android)
        var parameter = sched_param()
        parameter.sched_priority = 0
        // Per thread, with glibc and musl alike (musl's `sched_setscheduler` is a stub). `SCHED_IDLE` is 5
        // (linux/sched.h), which not every C library's module map imports.
        return pthread_setschedparam(pthread_self(), 5, &parameter) == 0
        #elseif canImport(Darwin)
        return true
        #else
        return false
        #endif
    }

    /// The scheduling policy of the calling thread: `SCHED_IDLE` is 5 (Linux and Android only; -1 elsewhere; for
    /// tests).
    static var currentPolicy: Int32 {
        #if os(Linux) || os(Android)
        var policy: Int32 = -1
        var parameter = sched_param()
        return pthread_getschedparam(pthread_self(), &policy, &parameter) == 0 ? policy : -1
        #else
        return -1
        #endif
    }
}
