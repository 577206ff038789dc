import DiarySDK
import Foundation

/// `closed.json`: written by every clean close, it records the journal the store ended in and the sequence of its
/// last record: `{"generation": 4, "sequence": 1234}`.
///
/// Every record up to that sequence had been acknowledged, so on the next open the journals must reach it: a
/// journal that ends earlier has lost acknowledged records, and a missing journal of that generation (or a newer
/// one's predecessor) is corruption. The marker is never removed while the store is open; a stale one (written by an
/// older close, before more writes) is still a true lower bound, because sequences only grow.
struct CloseMarker: Codable, Equatable {
    /// The generation of the journal being appended to at the close.
    var generation: Int
    /// The sequence of the last record written before the close.
    var sequence: UInt64

    /// Reads the marker, or `nil` when the store was never closed cleanly by this version.
    /// - Throws: ``DiaryError`` `.storageCorrupted` when the file is not a marker.
    static func read(in directory: String, io: any FileIO) throws -> CloseMarker? {
        let path = directory + "/" + StoreFiles.closeMarker
        guard let data = try io.readFile(path) else { return nil }
        do {
            return try JSONDecoder.diary().decode(CloseMarker.self, from: data)
        } catch {
            throw DiaryError(.storageCorrupted, "the close marker \(path) is not readable JSON", underlying: error)
        }
    }

    /// Replaces the marker durably (temporary file, `fsync`, rename, `fsync` of the directory).
    func write(in directory: String, io: any FileIO) throws {
        let data: Data
        do {
            data = try JSONEncoder.diary().encode(self)
        } catch {
            throw DiaryError(.server, "the close marker could not be encoded", underlying: error)
        }
        try io.writeAtomically(data, to: directory + "/" + StoreFiles.closeMarker)
    }
}
