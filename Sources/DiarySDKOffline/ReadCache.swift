import DiarySDK
import Foundation

/// The server's last answer to each read of what the replica does not hold (the feed, a post, comments, books,
/// notifications, profiles…), kept on the device so that the same read answers while the server cannot be reached.
///
/// One JSON file per user and read (`cache/<user>/<hash>.json`, holding the read's full key, when it was stored, and
/// the answer), written whole and renamed over the old one. It is a cache: a file that cannot be read is a miss (and
/// is removed), nothing is flushed to disk, and a user's directory is trimmed to the ``limit`` most recently stored
/// reads as it grows (checked every 64 stores, so it may briefly hold a few more). Withdrawing removes the user's
/// directory.
final class ReadCache: Sendable {
    /// How many reads are kept per user.
    static let limit = 1_000

    /// A read: its operation and arguments.
    struct Key: Sendable, Hashable {
        let text: String

        /// - Parameters:
        ///   - operation: The repository call (`posts.feed`).
        ///   - arguments: Its arguments, as their JSON.
        init(_ operation: String, _ arguments: [any Encodable]) {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let parts = arguments.map { argument in
                (try? encoder.encode(AnyEncodable(argument))).map { String(decoding: $0, as: UTF8.self) } ?? "?"
            }
            text = ([operation] + parts).joined(separator: "\n")
        }

        /// The file's name: the 64-bit FNV-1a hash of the key, in hex (the key itself is stored in the file and
        /// compared, so two keys with one hash never answer for each other).
        var fileName: String {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
            let hex = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex + ".json"
        }
    }

    private struct Stored<Value: Codable>: Codable {
        var key: String
        var storedAt: Date
        var value: Value

        private enum CodingKeys: String, CodingKey {
            case key = "key"
            case storedAt = "storedAt"
            case value = "value"
        }
    }

    private struct AnyEncodable: Encodable {
        let value: any Encodable
        init(_ value: any Encodable) { self.value = value }
        func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
    }

    let directory: URL
    private let stores = Locked(0)

    init(directory: URL) {
        self.directory = directory
    }

    private func userDirectory(_ userID: User.ID?) -> URL {
        directory.appendingPathComponent(userID.map { $0.rawValue.uuidString.lowercased() } ?? "signed-out", isDirectory: true)
    }

    /// The last stored answer to `key` for `userID`, if any can be read.
    func value<Value: Codable>(_ type: Value.Type, for key: Key, userID: User.ID?) -> Value? {
        let url = userDirectory(userID).appendingPathComponent(key.fileName)
        guard let data = try? Data(contentsOf: url) else { return nil }
        guard let stored = try? JSONDecoder.diary().decode(Stored<Value>.self, from: data) else {
            // Torn by a crash, or written by a release whose values differ: a miss.
            try? FileManager.default.removeItem(at: url)
            return nil
        }
        return stored.key == key.text ? stored.value : nil
    }

    /// Keeps `value` as the answer to `key` for `userID`. A cache: failing to write loses nothing.
    func store<Value: Codable>(_ value: Value, for key: Key, userID: User.ID?, at date: Date) {
        let directory = userDirectory(userID)
        guard let data = try? JSONEncoder.diary().encode(Stored(key: key.text, storedAt: date, value: value)) else { return }
        do {
            try data.write(to: directory.appendingPathComponent(key.fileName), options: .atomic)
        } catch {
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try? data.write(to: directory.appendingPathComponent(key.fileName), options: .atomic)
        }
        let count = stores.withLock { count -> Int in
            count += 1
            return count
        }
        if count % 64 == 0 { trim(directory) }
    }

    /// Forgets the answer to `key` (the server said the thing is gone).
    func remove(_ key: Key, userID: User.ID?) {
        try? FileManager.default.removeItem(at: userDirectory(userID).appendingPathComponent(key.fileName))
    }

    /// Forgets every read of `userID`'s.
    func removeAll(of userID: User.ID) {
        try? FileManager.default.removeItem(at: userDirectory(userID))
    }

    /// Removes the least recently stored files past ``limit``.
    private func trim(_ directory: URL) {
        let keys: [URLResourceKey] = [.contentModificationDateKey]
        guard
            let files = try? FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles]),
            files.count > Self.limit
        else { return }
        let dated = files.map { file in
            (file, (try? file.resourceValues(forKeys: Set(keys)).contentModificationDate) ?? .distantPast)
        }
        for (file, _) in dated.sorted(by: { $0.1 < $1.1 }).prefix(files.count - Self.limit) {
            try? FileManager.default.removeItem(at: file)
        }
    }
}
