import DiarySDK
import Foundation

/// `data-loss.json`: written by an open that found acknowledged records missing, before `closed.json` is lowered to
/// what the journals still hold: `{"droppedAcknowledgedRecords": 2}`.
///
/// While it exists, every open reports ``FileStoreOpenReport/isOrphanSweepSuspended`` and leaves the attachment files
/// alone: a lost row may be the one that referred to a file the app still wants (to restore from a backup, say). Only
/// ``FileStoreBackend/acknowledgeDataLoss()`` removes it. A further loss adds to the count.
struct DataLossMarker: Codable, Equatable {
    /// How many acknowledged records the opens that wrote the marker found missing, in total.
    var droppedAcknowledgedRecords: Int

    /// Reads the marker, or `nil` when no loss is waiting for the app's acknowledgement.
    /// - Throws: ``DiaryError`` `.storageCorrupted` when the file is not a marker.
    static func read(in directory: String, io: any FileIO) throws -> DataLossMarker? {
        let path = directory + "/" + StoreFiles.dataLossMarker
        guard let data = try io.readFile(path) else { return nil }
        do {
            return try JSONDecoder.diary().decode(DataLossMarker.self, from: data)
        } catch {
            throw DiaryError(.storageCorrupted, "the data-loss marker \(path) is not readable JSON", underlying: error)
        }
    }

    /// Replaces the marker durably (temporary file, `fsync`, rename, `fsync` of the directory).
    func write(in directory: String, io: any FileIO) throws {
        let data: Data
        do {
            data = try JSONEncoder.diary().encode(self)
        } catch {
            throw DiaryError(.server, "the data-loss marker could not be encoded", underlying: error)
        }
        try io.writeAtomically(data, to: directory + "/" + StoreFiles.dataLossMarker)
    }

    /// Removes the marker durably (the removal, then an `fsync` of the directory); a missing marker is no error.
    static func remove(in directory: String, io: any FileIO) throws {
        try io.removeFile(directory + "/" + StoreFiles.dataLossMarker)
        try io.syncDirectory(directory)
    }
}
