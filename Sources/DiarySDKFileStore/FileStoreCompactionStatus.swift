@_spi(Storage) import DiarySDK

/// How the background compaction is doing: read it from ``FileStoreBackend/compactionStatus`` to notice a store
/// that cannot compact (a full disk, a file-size limit, permissions) long before its journal gets large.
///
/// ```swift
/// if let failure = backend.compactionStatus.lastFailure {
///     logger.warning("the diary store cannot compact (\(backend.compactionStatus.consecutiveFailures)×): \(failure)")
/// }
/// ```
public struct FileStoreCompactionStatus: Sendable, Equatable {
    /// How many compactions in a row have failed; zero once one succeeds.
    public var consecutiveFailures = 0
    /// Why the last compaction failed, while ``consecutiveFailures`` is above zero.
    public var lastFailure: DiaryError?

    /// Creates a status with no failures.
    public init() {}
}
