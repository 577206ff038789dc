/// What opening a file store found and did: recovery after a crash, migrations, clean-up.
///
/// Read it from ``FileStoreBackend/openReport`` after opening, for logs or diagnostics:
///
/// ```swift
/// let backend = try FileStoreBackend(configuration: .init(directory: url))
/// let report = backend.openReport
/// if !report.isClean {
///     logger.error("the diary store lost \(report.droppedAcknowledgedRecords) saved changes; offer a restore")
/// }
/// if report.isOrphanSweepSuspended {
///     // After restoring what can be restored (or deciding not to), let later opens clean up attachment files again:
///     try await backend.acknowledgeDataLoss()
/// } else if report.recoveredTornTail {
///     logger.notice("recovered from an interrupted write: \(report.discardedBytes) bytes dropped")
/// }
/// ```
public struct FileStoreOpenReport: Sendable, Hashable {
    /// A migration that ran while opening.
    public struct Migration: Sendable, Hashable {
        /// The schema version before the step.
        public var from: Int
        /// The schema version after it.
        public var to: Int

        /// Creates a migration value.
        /// - Parameters:
        ///   - from: The version before.
        ///   - to: The version after.
        public init(from: Int, to: Int) {
            self.from = from
            self.to = to
        }
    }

    /// Whether the store was created by this open.
    public var createdStore = false
    /// The schema version of the store as it was found (before migrations); the current version for a new store.
    public var foundSchemaVersion = 0
    /// The migrations that ran, in order.
    public var migrations: [Migration] = []
    /// The snapshot generation loaded.
    public var generation = 0
    /// How many journal records (committed transactions) were replayed on top of the snapshot.
    public var replayedTransactions = 0
    /// Whether the last journal ended in damaged bytes (a record torn by a crash mid-append, or a cut), which were
    /// cut off. See ``droppedRecords`` and ``droppedAcknowledgedRecords`` for what that lost.
    public var recoveredTornTail = false
    /// The journal file whose torn tail was cut off, if any.
    public var tornJournalFile: String?
    /// How many bytes the torn tail held.
    public var discardedBytes = 0
    /// How many records the end of the last journal is known to have lost: the torn record, if any, plus every record
    /// after the last intact one up to the last sequence the store knows was durable (recorded by the last clean
    /// close, the newest snapshot or the start of the next journal).
    public var droppedRecords = 0
    /// How many of ``droppedRecords`` had been acknowledged to a caller (their write had returned). Zero after a
    /// crash that tore only the final append; more than zero means acknowledged writes were lost (a damaged or
    /// truncated journal), and the clean-up of attachment files is then suspended (see ``isOrphanSweepSuspended``).
    public var droppedAcknowledgedRecords = 0
    /// How many attachment files no row referred to (uploads a crash interrupted) and were removed. Zero while
    /// ``isOrphanSweepSuspended``.
    public var removedOrphanAttachments = 0
    /// Whether this open, or an earlier one, lost acknowledged records and the app has not yet called
    /// ``FileStoreBackend/acknowledgeDataLoss()``. Until then no attachment file is removed as an orphan (a lost row
    /// may be the one that referred to it), on this open and every later one; the files of lost rows stay in the
    /// store's `attachments` folder for a restore.
    public var isOrphanSweepSuspended = false

    /// Whether opening found every acknowledged record: nothing was lost beyond, at most, one torn final record that
    /// no caller had been told was written. A loss is counted by the open that finds it only; see
    /// ``isOrphanSweepSuspended`` for whether one is still unacknowledged.
    public var isClean: Bool { droppedAcknowledgedRecords == 0 }

    /// Creates an empty report.
    public init() {}
}
