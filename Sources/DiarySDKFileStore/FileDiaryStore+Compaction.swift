@_spi(Storage) import DiarySDK
import Foundation

extension FileDiaryStore {
    /// A compaction: the state as of the switch to journal generation `generation`, to be written as snapshot
    /// `generation`.
    struct Compaction {
        var generation: Int
        var database: LocalDatabase
        /// The sequence of the last record before journal `generation`; `nil` when unknown (see
        /// ``SnapshotFormat/encode(_:generation:sequence:)``).
        var sequence: UInt64?
        /// Whether this retries a compaction whose snapshot could not be written.
        var isRetry = false
    }

    /// A compaction whose snapshot could not be written, kept to be retried: until it succeeds no further journal is
    /// started, so the store never holds more than two journals.
    struct PendingCompaction {
        var compaction: Compaction
        /// The length the current journal must reach before the next attempt: one threshold further on, so the
        /// re-encoding a retry costs stays spread over the writes as for any compaction.
        var retryAtLength: Int
    }

    /// The journal size that triggers a compaction: the larger of the configured minimum and the last snapshot's
    /// size, so the work of writing a snapshot is spread over at least as many journal bytes (amortised O(1) per
    /// write).
    func compactionThreshold(_ state: State) -> Int {
        max(minimumCompactionBytes, state.snapshotBytes)
    }

    /// When the journal has outgrown its threshold: retries a pending compaction if there is one, else starts
    /// journal generation `n + 1` (its start record written and made durable first, so every later write lands in
    /// it) and hands a copy of the database, as of the end of journal `n`, to the background compaction. Called
    /// under the lock by a caller holding ``writers``, after a successful write.
    func startCompactionIfDue(_ state: inout State, force: Bool = false) -> Compaction? {
        guard !state.isCompacting else { return nil }
        if let pending = state.pendingCompaction {
            guard force || state.journal.length >= pending.retryAtLength else { return nil }
            state.isCompacting = true
            return pending.compaction
        }
        guard force || state.journal.length >= compactionThreshold(state) else { return nil }
        let next = state.journal.generation + 1
        let path = directory + "/" + StoreFiles.journalName(next)
        let descriptor: Int32
        let record: Data
        let size: Int
        do {
            // With as much space reserved as the journal it follows holds records (64 KiB to 1 MiB), so that the
            // writes landing while the snapshot is written overwrite zeros instead of growing the file; see
            // ``JournalFormat/preallocation(after:)``.
            record = try JournalFormat.newJournal(generation: next, after: state.sequence)
            size = JournalFormat.reservedEnd(
                after: record.count, step: JournalFormat.preallocation(after: state.journal.length))
            try io.writeAtomically(record + Data(count: size - record.count), to: path)
            descriptor = try io.openFile(path, create: false)
        } catch {
            // Not fatal: the current journal keeps growing and the next write tries again.
            try? io.removeFile(path)
            recordCompactionFailure(error, in: &state)
            return nil
        }
        io.close(state.journal.descriptor)
        state.journal = Journal(generation: next, path: path, descriptor: descriptor, length: record.count, allocated: size)
        state.journalLength = record.count
        state.isCompacting = true
        return Compaction(generation: next, database: state.database, sequence: state.sequence)
    }

    /// When the last write began and ended, and when the last journal flush began (`DispatchTime` nanoseconds).
    struct WriterActivity {
        var startedAt: UInt64 = 0
        var endedAt: UInt64 = 0
        /// A committed write's flush: it made durable whatever had reached the device before it began.
        var lastFlushStartedAt: UInt64 = 0
    }

    /// How a background compaction spreads the writing of its snapshot over the writes that land meanwhile.
    ///
    /// The snapshot is written by the time the journal has grown by half the compaction threshold since the
    /// compaction began (its rows in proportion: half of them once the journal has grown by a quarter of the
    /// threshold), so that, while it keeps to that schedule, the next compaction, due one threshold on, does not wait
    /// for this one. Ahead of that schedule, a piece waits while writes land back to back, and goes as soon as the
    /// writers pause. So the pieces and the snapshot's flushes fall between writes instead of in front of them: the way PostgreSQL spreads
    /// a checkpoint's writes over `checkpoint_completion_target` of the interval to the next one so that commits do
    /// not queue behind them (https://www.postgresql.org/docs/15/wal-configuration.html).
    struct SnapshotPacing {
        /// The journal's length when the compaction began.
        var startLength: Int
        /// By how many journal bytes the snapshot is to be written: half the compaction threshold.
        var budget: Int
        /// When the compaction began (`DispatchTime` nanoseconds).
        var start: UInt64

        /// How long after a write the writers count as paused (5 ms).
        static let pause: UInt64 = 5_000_000
        /// The longest a write counts as running (1 s): a write that outlasts it no longer holds a compaction back.
        static let longestWrite: UInt64 = 1_000_000_000
        /// The longest a compaction paces itself (10 s), whatever the writes: a bound on how long it holds the
        /// database value it writes.
        static let longest: UInt64 = 10_000_000_000

        /// Whether the next piece waits.
        /// - Parameters:
        ///   - journalLength: The journal's length now.
        ///   - done: The snapshot's rows written so far, of `total`.
        ///   - writers: When the last write began and ended.
        ///   - isAwaited: Whether someone waits for the compaction (or the store is closing).
        func holdsBack(
            journalLength: Int, done: Int, of total: Int, writers: WriterActivity, isAwaited: Bool, now: UInt64
        ) -> Bool {
            guard !isAwaited, now &- start < Self.longest else { return false }
            let grown = max(0, journalLength - startLength)
            guard grown * max(total, 1) < budget * done else { return false }  // Due by the schedule.
            return Self.areBusy(writers, now: now)
        }

        /// Whether the snapshot (`done` of its `total` rows written) has fallen behind its schedule by more than an
        /// eighth of the budget: its CPU work then runs at the compaction queue's priority, not the lowest, so that a
        /// compaction keeps to its schedule on a machine whose cores are busy.
        func isBehind(journalLength: Int, done: Int, of total: Int) -> Bool {
            let grown = max(0, journalLength - startLength)
            let rows = max(total, 1)
            return grown * rows >= budget * done + budget * rows / 8
        }

        /// Whether a write is running (for at most ``longestWrite``) or one ended less than ``pause`` ago.
        static func areBusy(_ writers: WriterActivity, now: UInt64) -> Bool {
            let isWriting = writers.startedAt > writers.endedAt && now &- writers.startedAt < longestWrite
            return isWriting || now &- writers.endedAt < pause
        }
    }

    /// Writes snapshot `n + 1` (temporary file, `fsync`, rename, `fsync` of the directory), then removes the older
    /// generations. Runs on the compaction queue, off the write path. When the snapshot cannot be written nothing is
    /// removed (the older snapshot and both journals still describe the store), the failure is recorded in
    /// ``FileStoreBackend/compactionStatus``, and the same snapshot is retried once the journal has grown by another
    /// threshold.
    /// - Parameter paced: Whether the snapshot's pieces give way to writes landing back to back (a background
    ///   compaction); ``compactNow()`` writes at full speed.
    /// - Returns: The failure, if the snapshot could not be written or the older generations removed.
    func compact(_ compaction: Compaction, paced: Bool = true) -> (any Error)? {
        var written: Int?
        var failure: (any Error)?
        do {
            let pacing = state.withLock { state in
                SnapshotPacing(
                    startLength: state.journalLength, budget: compactionThreshold(state) / 2,
                    start: DispatchTime.now().uptimeNanoseconds)
            }
            // The CPU work (sorting the rows, encoding the pieces) goes to the background thread, at the lowest
            // priority; this thread does it itself, at its own, while the snapshot is behind its schedule, and for
            // the rest of the compaction once someone waits for it or it has paced itself for too long. See
            // ``BackgroundThread``.
            let rowCount = compaction.database.rowCount
            var isInline = !paced
            func offload<Value>(done: Int, _ work: @escaping @Sendable () -> Value) -> Value {
                let mustGoOn = { () -> Bool in
                    let inputs = self.pacingInputs()
                    if inputs.isAwaited
                        || DispatchTime.now().uptimeNanoseconds &- pacing.start >= SnapshotPacing.longest
                    {
                        isInline = true
                    }
                    return isInline || pacing.isBehind(journalLength: inputs.journalLength, done: done, of: rowCount)
                }
                if !mustGoOn(), let result = background.run({ UncheckedBox(work()) }, givingUpWhen: mustGoOn) {
                    return result.value
                }
                return work()
            }
            let database = UncheckedBox(compaction.database)
            var encoder = try SnapshotFormat.Encoder(
                records: offload(done: 0) { database.value.allRecords }, generation: compaction.generation,
                sequence: compaction.sequence)
            try io.writeAtomically(to: directory + "/" + StoreFiles.snapshotName(compaction.generation)) { file in
                // Encoded and written a piece at a time, each written back before the next is encoded; a background
                // compaction waits before each piece while writes land back to back (see `waitForTurn`).
                var unflushed = 0
                var lastWriteBack: UInt64 = 0
                while true {
                    if paced, encoder.bodyLength > 0 {
                        waitForTurn(done: encoder.rowsEncoded, of: rowCount, pacing: pacing)
                    }
                    if unflushed > 0 {
                        // Pieces written back wait in the device's cache for the next flush. A journal flush that
                        // began after the last of them made them durable with its record; while the writers pause,
                        // no one flushes, so the compaction does, every `snapshotFlushBytes`: the first append after
                        // the pause then never carries more than that.
                        let writers = state.withLock { $0.writerActivity }
                        if writers.lastFlushStartedAt >= lastWriteBack {
                            unflushed = 0
                        } else if unflushed >= Self.snapshotFlushBytes
                            && !SnapshotPacing.areBusy(writers, now: DispatchTime.now().uptimeNanoseconds)
                        {
                            try file.sync()
                            unflushed = 0
                        }
                    }
                    let offset = encoder.headerLength + encoder.bodyLength
                    // On a copy of the encoder, adopted once done: a piece given up is encoded again here, on a
                    // copy of its own (the thread may still be encoding the one it was given).
                    let start = UncheckedBox(encoder)
                    let (advanced, next) = offload(done: encoder.rowsEncoded) {
                        () -> (SnapshotFormat.Encoder, Result<Data?, any Error>) in
                        var encoder = start.value.detached()
                        let piece = Result { try encoder.nextPiece(minimumSize: Self.snapshotChunk) }
                        return (encoder, piece)
                    }
                    encoder = advanced
                    guard let piece = try next.get() else { break }
                    try file.write(piece, at: offset)
                    try file.writeBack(offset..<(offset + piece.count))
                    lastWriteBack = DispatchTime.now().uptimeNanoseconds
                    unflushed += piece.count
                }
                try file.write(try encoder.headerLine(), at: 0)
            }
            written = encoder.headerLength + encoder.bodyLength
            let names = try io.listDirectory(directory)
            try Self.removeGenerations(below: compaction.generation, in: directory, names: names, io: io)
        } catch {
            failure = error  // The older generation stays; see above.
        }
        state.withLock { state in
            state.isCompacting = false
            if let written {
                state.snapshotBytes = written
                state.pendingCompaction = nil
            } else {
                state.pendingCompaction = PendingCompaction(
                    compaction: Compaction(
                        generation: compaction.generation, database: compaction.database,
                        sequence: compaction.sequence, isRetry: true),
                    retryAtLength: state.journalLength + compactionThreshold(state))
            }
            if let failure {
                recordCompactionFailure(failure, in: &state)
            } else {
                state.compactionStatus = FileStoreCompactionStatus()
            }
        }
        return failure
    }

    private func recordCompactionFailure(_ error: any Error, in state: inout State) {
        state.compactionStatus.consecutiveFailures += 1
        state.compactionStatus.lastFailure =
            (error as? FileIOError)?.diaryError ?? (error as? DiaryError)
            ?? DiaryError(.unavailable, "the store at \(directory) could not be compacted", underlying: error)
    }

    /// The size of the pieces a snapshot is written in (256 KiB).
    ///
    /// A flush waits for the device to make durable what was written before it, whatever the file: written in one
    /// piece, a snapshot (about 600 KB at 1,000 entries, 60 MB at 100,000) lands all at once in front of the flush of
    /// the next journal append, which then waits for all of it. Each piece is written back to the device before the
    /// next (``FileIO/writeBack(_:range:path:)``), without a flush of its own: while writes land, their flushes make
    /// the pieces durable along with their records, each carrying what was written back since the one before; while
    /// they pause, the compaction flushes every ``snapshotFlushBytes``.
    ///
    /// Why 256 KiB rather than less: a write whose flush carries a piece is slower than the others, and a paced
    /// compaction writes at most two snapshot bytes per journal byte (its budget is half a threshold, the threshold at
    /// least the last snapshot's size), so with 256 KiB pieces at most one write in about 180 (of 700 bytes) carries
    /// one, under the 1% a p99 sees; 64 KiB pieces made one write in 45 a carrier at 100,000 entries, and the p99 of
    /// writes during a compaction was 0.92× SQLite's against 1.06× with 256 KiB (docs/PERFORMANCE.md).
    static let snapshotChunk = 256 * 1024

    /// How much a compaction writes back, while the writers pause, before it flushes (256 KiB): the most the first
    /// journal append after a pause finds in the device's cache in front of its record.
    static let snapshotFlushBytes = 256 * 1024

    /// Waits, before the next piece of a background compaction's snapshot (`done` of its `total` rows written),
    /// while ``SnapshotPacing/holdsBack(journalLength:done:of:writers:isAwaited:now:)`` says so, checking every
    /// half millisecond. Runs on the compaction queue.
    func waitForTurn(done: Int, of total: Int, pacing: SnapshotPacing) {
        while true {
            let (journalLength, writers, isAwaited) = pacingInputs()
            guard
                pacing.holdsBack(
                    journalLength: journalLength, done: done, of: total, writers: writers, isAwaited: isAwaited,
                    now: DispatchTime.now().uptimeNanoseconds)
            else { return }
            usleep(500)
        }
    }

    /// What pacing reads, under the lock: the journal's committed end, the writers' activity, and whether someone
    /// waits for the compaction or the store is closing.
    func pacingInputs() -> (journalLength: Int, writers: WriterActivity, isAwaited: Bool) {
        state.withLock { state in
            (state.journalLength, state.writerActivity, state.isClosed || state.compactionWaiters > 0)
        }
    }

    /// Waits for a background compaction in progress, if any.
    func waitForCompaction() async throws {
        // Counted before the job is queued and until it has run: whatever compaction is queued ahead of it, even one
        // started meanwhile, goes at full speed.
        state.withLock { $0.compactionWaiters += 1 }
        defer { state.withLock { $0.compactionWaiters -= 1 } }
        _ = try await run(on: compactionQueue) {}
    }

    /// Compacts now, whatever the journal's size, and waits for it: for tests and after bulk imports. A background
    /// compaction already running is waited for first, a pending one is retried, then a new one covers everything
    /// written since.
    func compactNow() async throws {
        while true {
            // Queued with the writers: starting a journal generation must not race a write appending to the current one.
            let compaction: Compaction? = try await writers.run {
                try self.state.withLock { state in
                    guard !state.isClosed else { throw self.closedError }
                    guard !state.isCompacting else { return nil }
                    guard let compaction = self.startCompactionIfDue(&state, force: true) else {
                        throw state.compactionStatus.lastFailure
                            ?? DiaryError(.unavailable, "the store at \(self.directory) could not start a new journal")
                    }
                    return compaction
                }
            }
            guard let compaction else {
                // The background compaction runs on the same serial queue: an empty job there waits it out.
                try await waitForCompaction()
                continue
            }
            let failure = try await run(on: compactionQueue) { self.compact(compaction, paced: false) }
            if let failure {
                throw (failure as? FileIOError)?.diaryError
                    ?? DiaryError(.unavailable, "the store at \(directory) could not be compacted", underlying: failure)
            }
            if !compaction.isRetry { return }
        }
    }
}
