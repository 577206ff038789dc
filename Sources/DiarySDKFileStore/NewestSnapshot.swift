@_spi(Storage) import DiarySDK
import Foundation

/// A store's newest snapshot, read and decoded into a database: where opening a store (``FileDiaryStore``) and
/// salvaging a damaged one (``FileStoreSalvage``) both start, before they replay the journals after it. The rows go
/// into the caller's database, which is then the only owner of its storage (a copy would be copied on write).
struct NewestSnapshot {
    /// The snapshot's generation: the largest among the directory's snapshot files.
    var generation: Int
    /// The snapshot file's path.
    var path: String
    /// The file's size in bytes.
    var byteCount: Int
    /// The file's header (its ``SnapshotFormat/Header/sequence`` is where the journals' records continue).
    var header: SnapshotFormat.Header

    /// Reads and decodes the newest of a directory's snapshots.
    /// - Parameters:
    ///   - directory: The store's directory.
    ///   - snapshots: The generations of its snapshot files (``StoreFiles/generations(in:)``).
    ///   - io: The file system.
    ///   - activity: What the caller is doing ("opening", "reading"), for the error when the file has gone.
    ///   - database: Receives the snapshot's rows (an empty database).
    /// - Throws: ``DiaryError`` `.storageCorrupted` when there is no snapshot, the file disappeared, or it is damaged
    ///   (naming the byte offset); ``FileIOError`` when it cannot be read.
    init(
        in directory: String, snapshots: Set<Int>, io: any FileIO, while activity: String,
        into database: inout LocalDatabase
    ) throws {
        guard let generation = snapshots.max() else {
            throw DiaryError(.storageCorrupted, "the store at \(directory) has no snapshot file")
        }
        let path = directory + "/" + StoreFiles.snapshotName(generation)
        guard let data = try io.readFile(path) else {
            throw DiaryError(.storageCorrupted, "the snapshot \(path) disappeared while \(activity)")
        }
        header = try SnapshotFormat.decode(data, file: path) { database.put(contentsOf: $0) }
        self.generation = generation
        self.path = path
        self.byteCount = data.count
    }
}
