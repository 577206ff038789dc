@_spi(Storage) import DiarySDK
import Foundation

/// A small JSON file beside the journals that records something the next open must know (``CloseMarker``,
/// ``DataLossMarker``): read whole, replaced durably.
protocol StoreMarker: Codable {
    /// The file's name in the store directory.
    static var fileName: String { get }
    /// What the file is, for error messages ("the close marker").
    static var kind: String { get }
}

extension StoreMarker {
    /// Reads the marker, or `nil` when there is none.
    /// - Throws: ``DiaryError`` `.storageCorrupted` when the file is not such a marker.
    static func read(in directory: String, io: any FileIO) throws -> Self? {
        let path = directory + "/" + fileName
        guard let data = try io.readFile(path) else { return nil }
        do {
            return try JSONDecoder.diary().decode(Self.self, from: data)
        } catch {
            throw DiaryError(.storageCorrupted, "\(kind) \(path) is not readable JSON", underlying: error)
        }
    }

    /// Replaces the marker durably (temporary file, `fsync`, rename, `fsync` of the directory).
    func write(in directory: String, io: any FileIO) throws {
        let data: Data
        do {
            data = try JSONEncoder.diary().encode(self)
        } catch {
            throw DiaryError(.server, "\(Self.kind) could not be encoded", underlying: error)
        }
        try io.writeAtomically(data, to: directory + "/" + Self.fileName)
    }
}
