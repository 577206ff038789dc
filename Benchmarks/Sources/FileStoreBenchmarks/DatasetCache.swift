import DiarySDK
import DiarySDKFileStore
import Foundation

/// The diary entries of one size, as a closed file store, a SQLite database and (for sizes the open figure uses)
/// the bare JSON array, generated once and kept under the cache directory between rounds and runs.
struct DiaryFiles {
    let count: Int
    let directory: URL
    var store: URL { directory.appendingPathComponent("store") }
    var sqlite: String { directory.appendingPathComponent("db.sqlite").path }
    var json: URL { directory.appendingPathComponent("entries.json") }
}

/// The community posts for the reader-under-writer figure, generated once like ``DiaryFiles``.
struct PostFiles: Codable {
    var count: Int
    var directory: URL
    /// The author with half of the posts.
    var author: User.ID
    /// Who reads (has no posts, blocks no one).
    var reader: User.ID
    /// Who writes during the measurement.
    var writer: User.ID
    var store: URL { directory.appendingPathComponent("store") }
    var sqlite: String { directory.appendingPathComponent("db.sqlite").path }
}

/// Builds and finds the cached data sets. A data set is complete when its `ready` file exists; an incomplete one
/// (an interrupted run) is removed and built again. `--fresh` rebuilds everything, which is needed after a change
/// of the store's file format that its opening does not migrate.
struct DatasetCache {
    /// Bumped when the generated data or the SQLite schema changes.
    static let version = "v3"
    let root: URL
    let fresh: Bool

    init(root: URL, fresh: Bool) {
        self.root = root.appendingPathComponent(Self.version)
        self.fresh = fresh
    }

    private func prepare(_ name: String) throws -> (URL, isReady: Bool) {
        let directory = root.appendingPathComponent(name)
        let ready = FileManager.default.fileExists(atPath: directory.appendingPathComponent("ready").path)
        if ready && !fresh { return (directory, true) }
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, false)
    }

    private func markReady(_ directory: URL) throws {
        try Data().write(to: directory.appendingPathComponent("ready"))
    }

    /// The diary data set of `count` entries, with the bare JSON array when `json` is set (always written for up
    /// to 200,000 entries; a cached set without it is generated again).
    func diaries(_ count: Int, json: Bool) async throws -> DiaryFiles {
        var (directory, isReady) = try prepare("diaries-\(count)")
        var files = DiaryFiles(count: count, directory: directory)
        if isReady, !json || FileManager.default.fileExists(atPath: files.json.path) { return files }
        if isReady {
            (directory, isReady) = try DatasetCache(root: root.deletingLastPathComponent(), fresh: true)
                .prepare("diaries-\(count)")
            files = DiaryFiles(count: count, directory: directory)
        }
        log("  generating \(count.formatted()) diary entries (cached in \(directory.path))")
        let entries = Dataset(count: count).entries
        let fileSeconds = try await Clock.seconds { try await FileStoreBench.build(files.store, entries: entries) }
        let sqliteSeconds = try Clock.seconds { try SQLiteDiaries.build(files.sqlite, entries: entries) }
        log(String(format: "  file store %.1f s (import, compaction), SQLite %.1f s", fileSeconds, sqliteSeconds))
        if json || count <= 200_000 { try JSONEncoder.diary().encode(entries).write(to: files.json) }
        try markReady(directory)
        return files
    }

    /// The post data set of `count` posts.
    func posts(_ count: Int) async throws -> PostFiles {
        let (directory, isReady) = try prepare("posts-\(count)")
        let meta = directory.appendingPathComponent("meta.json")
        if isReady {
            var files = try JSONDecoder().decode(PostFiles.self, from: Data(contentsOf: meta))
            files.directory = directory  // the cache may have moved
            return files
        }
        log("  generating \(count.formatted()) posts through the public API (cached in \(directory.path))")
        let files = try await PostGenerator.build(count: count, directory: directory)
        try JSONEncoder().encode(files).write(to: meta)
        try markReady(directory)
        return files
    }

    /// A copy of a cached store or database to write into, removed by the caller.
    static func workingCopy(of source: URL, name: String) throws -> URL {
        let target = temporaryDirectory(name).appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: target)
        return target
    }
}

/// Progress on standard error, so standard output holds only the report.
func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
