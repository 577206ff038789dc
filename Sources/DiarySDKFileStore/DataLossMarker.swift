@_spi(Storage) import DiarySDK
import Foundation

/// `data-loss.json`: written by an open that found acknowledged records missing, before `closed.json` is lowered to
/// what the journals still hold: `{"droppedAcknowledgedRecords": 2}`.
///
/// While it exists, every open reports ``FileStoreOpenReport/isOrphanSweepSuspended`` and leaves the attachment files
/// alone: a lost row may be the one that referred to a file the app still wants (to restore from a backup, say). Only
/// ``FileStoreBackend/acknowledgeDataLoss()`` removes it. A further loss adds to the count.
struct DataLossMarker: StoreMarker, Equatable {
    /// How many acknowledged records the opens that wrote the marker found missing, in total.
    var droppedAcknowledgedRecords: Int

    static let fileName = StoreFiles.dataLossMarker
    static let kind = "the data-loss marker"

    /// Removes the marker durably (the removal, then an `fsync` of the directory); a missing marker is no error.
    static func remove(in directory: String, io: any FileIO) throws {
        try io.removeFile(directory + "/" + StoreFiles.dataLossMarker)
        try io.syncDirectory(directory)
    }
}
