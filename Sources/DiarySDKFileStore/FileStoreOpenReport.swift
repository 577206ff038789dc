/// What opening a file store found and did: recovery after a crash, migrations, clean-up.
///
/// Read it from ``FileStoreBackend/openReport`` after opening, for logs or diagnostics:
///
/// ```swift
/// let backend = try FileStoreBackend(configuration: .init(directory: url))
/// if backend.openReport.recoveredTornTail {
///     logger.notice("recovered from an interrupted write: \(backend.openReport.discardedBytes) bytes dropped")
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
    /// Whether the journal ended in a record torn by a crash mid-append; that write never returned, and it was cut off.
    public var recoveredTornTail = false
    /// The journal file whose torn tail was cut off, if any.
    public var tornJournalFile: String?
    /// How many bytes the torn tail held.
    public var discardedBytes = 0
    /// How many attachment files no row referred to (uploads a crash interrupted) and were removed.
    public var removedOrphanAttachments = 0

    /// Creates an empty report.
    public init() {}
}
