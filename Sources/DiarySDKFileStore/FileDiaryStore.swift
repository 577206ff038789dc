@_spi(Engine) @_spi(Storage) import DiarySDK
import Foundation

/// The file-backed ``DiaryStorage``: the committed database in memory as a value, made durable by a write-ahead
/// journal that each transaction appends to and `fsync`s before it returns, and compacted into snapshot files in the
/// background. docs/FileStoreFormat.md describes the files.
///
/// A read takes the committed value (a copy sharing its storage, under a lock held only for the copy) and works on
/// it: it never waits for a write, its `fsync`, a compaction or another read, and never sees a change that is not yet
/// durable. Writes queue on a ``WriterQueue``; each works on its own copy of the database, appends its journal record
/// and `fsync`s on the calling task's thread (measured 20–30% faster per write than hopping to a dispatch queue and
/// back), and only then publishes its copy as the committed value; while the flushes are slow enough to hide it, the
/// ``IndexingThread`` files the write's changes in the copy's indices during the flush. A copy shares every trie
/// node and listing chunk it does not change (``LocalDatabase``), so a write costs the same whether or not a reader
/// or a compaction holds the previous value. Attachment bytes, which may be large, are written on a serial dispatch
/// queue, as is the background compaction.
final class FileDiaryStore: DiaryStorage {
    /// The journal being appended to.
    final class Journal {
        let generation: Int
        let path: String
        let descriptor: Int32
        /// The end of its records: where the next one goes.
        var length: Int
        /// The file's size: the records, then zero bytes reserved for the records to come (``JournalFormat``).
        var allocated: Int

        init(generation: Int, path: String, descriptor: Int32, length: Int, allocated: Int) {
            self.generation = generation
            self.path = path
            self.descriptor = descriptor
            self.length = length
            self.allocated = max(allocated, length)
        }
    }

    struct State {
        var database: LocalDatabase
        var journal: Journal
        var sequence: UInt64
        var snapshotBytes: Int
        /// The journal's encoder: persisted rows without sorting keys, which is a third of the cost of encoding a
        /// small transaction and does not matter for a log read front to back.
        var encoder: JSONEncoder = {
            let encoder = JSONEncoder.persisted()
            encoder.outputFormatting.remove(.sortedKeys)
            return encoder
        }()
        /// The journal flushes' recent duration, in nanoseconds (an exponential average, each flush weighing an
        /// eighth): whether a write hands its changes to the indexing thread.
        var flushDuration: UInt64 = 0
        /// The shortest ``flushDuration`` for which it does (tests set 0 to make every write hand them over).
        var indexingFlushThreshold = FileDiaryStore.defaultIndexingFlushThreshold
        var isCompacting = false
        /// How many callers wait for the compaction queue (``waitForCompaction()``): while any does, a compaction
        /// does not pace itself.
        var compactionWaiters = 0
        /// The current journal's end as of the last committed write: what the compaction queue reads (the writer
        /// holding ``writers`` moves ``Journal/length`` without the lock).
        var journalLength = 0
        /// When the last write began and ended, for pacing a compaction (``FileDiaryStore/SnapshotPacing``).
        var writerActivity = WriterActivity()
        var pendingCompaction: PendingCompaction?
        var compactionStatus = FileStoreCompactionStatus()
        var isClosed = false
        var failure: DiaryError?
        /// While the text index of the posts is being built off the write path (see ``buildPostTextIndex()``), every
        /// mutation committed since the snapshot it is built from; `nil` otherwise.
        var textIndexBacklog: [StoreMutation]?
    }

    let directory: String
    let io: any FileIO
    let minimumCompactionBytes: Int
    let report: FileStoreOpenReport
    let state: Locked<State>
    private let lockDescriptor: Int32
    /// Attachment writes and the start of forced compactions, off the cooperative pool.
    let fileQueue = DispatchQueue(label: "DiarySDKFileStore.files")
    let compactionQueue = DispatchQueue(label: "DiarySDKFileStore.compaction", qos: .utility)
    /// The change log of this open: positions from an earlier open are answered with `trimmed`.
    private let changeLog: ChangeLog
    /// Serialises writers, compaction starts and closing; readers never take it.
    let writers = WriterQueue()
    /// Files each write's changes in the indices while the writer flushes the journal.
    let indexing = IndexingThread()
    /// Runs a background compaction's CPU work at the lowest priority.
    let background = BackgroundThread(name: "DiarySDK.encode")

    /// Opens (or creates) the store in a directory: lock, migrate, load, recover. See ``open(directory:io:now:)``.
    init(
        directory: String, io: any FileIO, minimumCompactionBytes: Int, now: Date, changeLogRetention: Int = 1_000
    ) throws {
        let opened = try Self.open(directory: directory, io: io, now: now)
        self.changeLog = ChangeLog(retention: changeLogRetention)
        self.directory = directory
        self.io = io
        self.minimumCompactionBytes = minimumCompactionBytes
        self.report = opened.report
        self.lockDescriptor = opened.lockDescriptor
        self.state = Locked(opened.state)
        let build = Task.detached(priority: .utility) { [weak self] () -> Void in await self?.buildPostTextIndex() }
        textIndexBuild.withLock { $0 = build }
    }

    /// The build of the text index of the posts that ``init(directory:io:minimumCompactionBytes:now:)`` started.
    private let textIndexBuild = Locked<Task<Void, Never>?>(nil)

    deinit {
        let descriptor = state.withLock { state -> Int32? in
            guard !state.isClosed else { return nil }
            state.isClosed = true
            return state.journal.descriptor
        }
        if let descriptor {
            io.close(descriptor)
            io.close(lockDescriptor)
        }
        indexing.stop()
        background.stop()
    }

    var closedError: DiaryError { DiaryError(.unavailable, "the file store at \(directory) is closed") }

    func attachmentPath(_ id: Attachment.ID) -> String {
        directory + "/" + StoreFiles.attachments + "/" + id.description
    }

    // MARK: - DiaryStorage

    func read<Result: Sendable>(
        _ operation: String, _ body: @Sendable (any StorageReader) async throws -> Result
    ) async throws -> Result {
        let database = try state.withLock { state in
            guard !state.isClosed else { throw closedError }
            return state.database
        }
        return try await body(LocalSnapshot(database))
    }

    func write<Result: Sendable>(
        _ operation: String, _ body: @Sendable (any StorageTransaction) async throws -> Result
    ) async throws -> Result {
        try Task.checkCancellation()
        return try await writers.run { try await performWrite(body) }
    }

    func saveBlob(_ data: Data, for id: Attachment.ID) async throws {
        try await run(on: fileQueue) {
            guard !self.state.withLock({ $0.isClosed }) else { throw self.closedError }
            do {
                try self.io.writeAtomically(data, to: self.attachmentPath(id))
            } catch let error as FileIOError {
                throw error.diaryError
            }
        }
    }

    func blob(for id: Attachment.ID) async throws -> Data {
        do {
            guard let data = try io.readFile(attachmentPath(id)) else {
                throw DiaryError.notFound("attachment \(id)")
            }
            return data
        } catch let error as FileIOError {
            throw error.diaryError
        }
    }

    func committedChanges(after position: ChangePosition?) -> AsyncStream<ChangeLogEvent> {
        changeLog.subscribe(after: position)
    }

    // MARK: - Writing

    /// Runs one transaction (the caller holds ``writers``): the body works on a copy of the committed database; its
    /// journal record is appended and `fsync`ed without the state lock, so readers carry on meanwhile; then the copy
    /// becomes the committed database. When the append fails the journal is cut back and nothing is published.
    private func performWrite<Result>(_ body: (any StorageTransaction) async throws -> Result) async throws -> Result {
        let (base, journal, encoder, sequence, flushesAreSlow) = try state.withLock { state in
            guard !state.isClosed else { throw closedError }
            if let failure = state.failure { throw failure }
            state.writerActivity.startedAt = DispatchTime.now().uptimeNanoseconds
            // Not while a compaction runs: with its encoding on the store's lowest-priority thread, handing over
            // during compactions still took the p99 of those writes at 100,000 entries to 0.49–1.13× SQLite's in 4
            // runs, against 0.69–1.70× for the same build without (docs/PERFORMANCE.md, "Writes during a compaction").
            return (
                state.database, state.journal, state.encoder, state.sequence + 1,
                state.flushDuration >= state.indexingFlushThreshold && !state.isCompacting
            )
        }
        var published = false
        defer {
            if !published { state.withLock { $0.writerActivity.endedAt = DispatchTime.now().uptimeNanoseconds } }
        }
        var replaced: LocalDatabase? = base
        let transaction = LocalTransaction(database: consume base)
        let result = try await body(transaction)
        var finished: LocalTransaction.Outcome? = transaction.finish()
        let mutations = finished!.mutations
        guard !mutations.isEmpty else { return result }
        let removedBlobs = finished!.removedBlobs
        // The changes go into the indices on the indexing thread while this one flushes the journal, when there are
        // any left to apply and the flush takes long enough to hide the hand-over (see ``IndexingThread``).
        let isIndexing = flushesAreSlow && !finished!.isApplied && indexing.start(&finished)
        var poisoned: DiaryError?
        let flushStarted: UInt64
        do {
            flushStarted = try append(
                JournalTransaction(sequence: sequence, mutations: mutations), to: journal, encoder: encoder,
                poisoned: &poisoned)
        } catch {
            if isIndexing { _ = indexing.finish() }
            if let poisoned { state.withLock { $0.failure = poisoned } }
            throw error
        }
        let flushEnded = DispatchTime.now().uptimeNanoseconds
        var outcome = isIndexing ? indexing.finish() : finished.take()!
        outcome.applyRest()
        let compaction = state.withLock { state -> Compaction? in
            state.flushDuration = (state.flushDuration * 7 + (flushEnded &- flushStarted)) / 8
            state.database = outcome.database
            state.sequence = sequence
            state.writerActivity.endedAt = DispatchTime.now().uptimeNanoseconds
            state.writerActivity.lastFlushStartedAt = flushStarted
            state.journalLength = journal.length
            state.textIndexBacklog?.append(contentsOf: mutations)
            return startCompactionIfDue(&state)
        }
        published = true
        // The value this write replaced is freed on the indexing thread if it filed this write's changes (unless a
        // reader still holds it), but for a write of many rows (an import), which frees them itself: the next
        // write's job would wait behind them.
        if isIndexing, mutations.count <= Self.retiredMutationLimit {
            indexing.retire(&replaced)
        } else {
            // And a write that hands no job over frees what earlier writes left there, or nothing would.
            _ = indexing.takeRetired()
        }
        replaced = nil
        changeLog.append(mutations)
        // Enqueued before ``writers`` is released, so whoever then waits on the compaction queue (``compactNow()``,
        // ``close()``, both of which queue on ``writers`` first) finds the compaction already queued.
        if let compaction { compactionQueue.async { _ = self.compact(compaction) } }
        for id in removedBlobs { try? io.removeFile(attachmentPath(id)) }
        return result
    }

    /// The shortest average journal flush (nanoseconds) for which a write hands its changes to the indexing thread.
    ///
    /// Handing them over costs the wake-up of that thread (50 µs a write on the 2-core Linux VM measured, with the
    /// journal on tmpfs, where a flush takes microseconds); it pays when the flush hides it: on that VM's disk
    /// (0.15–0.3 ms flushes) it took 60 µs off a write (docs/PERFORMANCE.md, "Mean durable write").
    static let defaultIndexingFlushThreshold: UInt64 = 100_000

    /// The most rows a write may change for the indexing thread to free the value it replaced.
    static let retiredMutationLimit = 64

    /// Appends a transaction's record to the journal and flushes it.
    /// - Returns: When the flush began (`DispatchTime` nanoseconds).
    private func append(
        _ transaction: JournalTransaction, to journal: Journal, encoder: JSONEncoder, poisoned: inout DiaryError?
    ) throws -> UInt64 {
        let payload: Data
        do {
            // The SDK's one-pass JSON writer, members in encoding order as the journal's encoder writes them (rows
            // write their dates as strings themselves); the encoder when it gives up.
            payload = try (try? WireJSON.streamEncode(transaction)) ?? encoder.encode(transaction)
        } catch {
            throw DiaryError(.server, "a change could not be encoded for the journal", underlying: error)
        }
        var record = JournalFormat.frame(payload)
        let end = journal.length + record.count
        // Inside the reserved space the record overwrites zeros the file already has, so the flush writes its data
        // alone: no change of size, no file system journal commit (the reason PostgreSQL zero-fills each WAL segment
        // before use). Past it, the record goes out with the next reservation behind it, in one write and one flush.
        var flushStarted: UInt64 = 0
        let allocated =
            end <= journal.allocated
            ? journal.allocated : JournalFormat.reservedEnd(after: end, step: JournalFormat.preallocation(after: end))
        if allocated > journal.allocated { record.append(Data(count: allocated - end)) }
        do {
            try record.withUnsafeBytes { try io.write(journal.descriptor, $0, at: journal.length, path: journal.path) }
            flushStarted = DispatchTime.now().uptimeNanoseconds
            try io.sync(journal.descriptor, path: journal.path)
        } catch {
            let failure = (error as? FileIOError)?.diaryError ?? DiaryError(.unavailable, "\(error)", underlying: error)
            do {
                // Back to the bytes before the write: the reserved space it wrote into zeroed again, anything it
                // added past the reservation cut off.
                if allocated > journal.allocated {
                    try io.truncate(journal.descriptor, to: journal.allocated, path: journal.path)
                }
                let written = min(end, journal.allocated) - journal.length
                if written > 0 {
                    try Data(count: written).withUnsafeBytes {
                        try io.write(journal.descriptor, $0, at: journal.length, path: journal.path)
                    }
                }
                try io.sync(journal.descriptor, path: journal.path)
            } catch {
                poisoned = DiaryError(
                    .unavailable,
                    "the journal \(journal.path) could not be restored after a failed write; close and reopen the store",
                    underlying: failure)
            }
            throw failure
        }
        journal.length = end
        journal.allocated = allocated
        return flushStarted
    }

    // MARK: - Text index

    /// Builds the text index of the posts off the write path and installs it.
    ///
    /// Opening loads the snapshot without splitting every post's text (at 1,000,000 posts that split is most of the
    /// cost of an open); until the index is installed a search reads every post, with the same answers. The index is
    /// built on every core from the committed value at the start, then the writer queue hands it the mutations
    /// committed meanwhile and makes it part of the committed value.
    private func buildPostTextIndex() async {
        guard let base = state.withLock({ state -> LocalDatabase? in
            guard !state.isClosed, state.database.postText == nil else { return nil }
            state.textIndexBacklog = []
            return state.database
        }) else { return }
        let index = base.makePostTextIndex()
        _ = try? await writers.run {
            state.withLock { state in
                defer { state.textIndexBacklog = nil }
                guard !state.isClosed, let backlog = state.textIndexBacklog else { return }
                state.database.installPostTextIndex(index, replaying: backlog)
            }
        }
    }

    /// Waits until the text index of the posts that opening started building is in place (or the store closed).
    func waitForPostTextIndex() async {
        await textIndexBuild.withLock { $0 }?.value
    }

    /// Whether searches use the text index of the posts yet.
    var isPostTextIndexed: Bool {
        state.withLock { $0.database.postText != nil }
    }

    // MARK: - Queues

    /// Runs blocking work on a dispatch queue and waits for it without holding a cooperative thread.
    ///
    /// The work closure is released on the queue before the caller resumes, so callers may pass a closure made
    /// escapable with `withoutActuallyEscaping`.
    func run<T>(on queue: DispatchQueue, _ work: @escaping () throws -> T) async throws -> T {
        let job = QueuedJob(work)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<UncheckedBox<T>, any Error>) in
            queue.async {
                let outcome = job.runOnce()
                continuation.resume(with: outcome)
            }
        }.value
    }

    /// Removes `data-loss.json` (see ``DataLossMarker``), so that the next open sweeps orphan attachment files again.
    /// - Throws: ``DiaryError`` `.unavailable` when the store is closed or the marker cannot be removed.
    func acknowledgeDataLoss() async throws {
        try await run(on: fileQueue) {
            guard !self.state.withLock({ $0.isClosed }) else { throw self.closedError }
            do {
                try DataLossMarker.remove(in: self.directory, io: self.io)
            } catch let error as FileIOError {
                throw error.diaryError
            }
        }
    }

    /// Closes the store: waits for running writes and compaction, records the last sequence in `closed.json` (see
    /// ``CloseMarker``), closes the journal, releases the lock and ends every change stream.
    /// - Throws: ``DiaryError`` `.unavailable` when the store is already closed, or when the close marker could not be
    ///   written (the store is closed all the same; the next open then cannot tell lost records at the end of the
    ///   journal from writes that never happened).
    func close() async throws {
        // Queued behind running writes, so the marker names the last one; a cancelled caller still closes.
        let (descriptor, marker): (Int32, CloseMarker) = try await writers.runToCompletion {
            try self.state.withLock { state in
                guard !state.isClosed else { throw self.closedError }
                state.isClosed = true
                let marker = CloseMarker(generation: state.journal.generation, sequence: state.sequence)
                return (state.journal.descriptor, marker)
            }
        }
        try await waitForCompaction()
        var failure: (any Error)?
        do {
            try marker.write(in: directory, io: io)
        } catch {
            failure = error
        }
        io.close(descriptor)
        io.close(lockDescriptor)
        indexing.stop()
        background.stop()
        changeLog.finish()
        if let failure { throw (failure as? FileIOError)?.diaryError ?? failure }
    }
}

/// A closure run once on a dispatch queue, then released before its caller resumes.
final class QueuedJob<T>: @unchecked Sendable {
    private var work: (() throws -> T)?

    init(_ work: @escaping () throws -> T) {
        self.work = work
    }

    func runOnce() -> Swift.Result<UncheckedBox<T>, any Error> {
        guard let work else { return .failure(CancellationError()) }
        self.work = nil
        return Swift.Result { UncheckedBox(try work()) }
    }
}

/// Carries a value across a dispatch queue hop whose ordering already makes it safe.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
