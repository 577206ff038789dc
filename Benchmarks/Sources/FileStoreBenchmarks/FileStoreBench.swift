@_spi(Engine) import DiarySDK
@_spi(Engine) import DiarySDKFileStore
import Foundation

/// The file store's side of each measurement, through the public API only.
enum FileStoreBench {
    /// The benchmark's configuration: UTC, cheap password hashing; sequential ids while generating (so the first
    /// account is ``Dataset/author``), random ids afterwards (a reopened sequential generator would start again).
    static func configuration(_ directory: URL, sequentialIDs: Bool = false) -> FileStoreBackend.Configuration {
        .init(
            directory: directory, ids: sequentialIDs ? SequentialIDGenerator() : RandomIDGenerator(),
            defaultTimeZone: TimeZone(identifier: "UTC")!, engine: .init(passwordHashIterations: 1_000))
    }

    /// A new store holding `entries`: the author signs up, the entries are imported in one durable transaction,
    /// and closing waits for the compaction the import starts, so the store is one snapshot and an empty journal,
    /// exactly as the store writes it.
    static func build(_ directory: URL, entries: [Diary]) async throws {
        let backend = try FileStoreBackend(configuration: configuration(directory, sequentialIDs: true))
        let author = try await backend.engine(actingAs: nil).createAccount(
            SignUpRequest(email: "bench@example.com", password: "correct horse battery", nickname: "bench"))
        precondition(author.id == Dataset.author, "the first account is not the data set's author")
        try await backend.importEntries(entries)
        try await backend.close()
    }

    /// One durable single-entry write through the public repository.
    static func write(_ backend: FileStoreBackend, index: Int) async throws -> Double {
        let diaries = backend.repositories(signedInAs: Dataset.author).diaries
        let draft = Dataset.draft(index)
        return try await Clock.seconds { _ = try await diaries.write(draft) }
    }

    /// Seconds per write of `count` durable single writes, one after another.
    static func writes(_ backend: FileStoreBackend, count: Int, from first: Int) async throws -> [Double] {
        var latencies: [Double] = []
        latencies.reserveCapacity(count)
        for index in first..<first + count { latencies.append(try await write(backend, index: index)) }
        return latencies
    }

    /// Whether a compaction is running, read from the files (docs/FileStoreFormat.md): while snapshot `n + 1` is
    /// being written, journals `n` and `n + 1` both exist; the older one goes once the snapshot is in place.
    static func isCompacting(_ directory: URL) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix("journal-") && $0.hasSuffix(".log") }.count > 1
    }

    /// Re-imports the entries with a new `updatedAt` (same ids, so the store does not grow; an unchanged entry
    /// would not be written at all) until a compaction has started, at most `attempts` times and, after the first,
    /// for at most `timeLimit` seconds (a store whose files no longer show a compaction must not stall the run).
    /// - Returns: Whether a compaction was seen to start.
    static func triggerCompaction(
        _ backend: FileStoreBackend, directory: URL, entries: [Diary], attempts: Int = 40, timeLimit: Double = 60
    ) async throws -> Bool {
        let start = Clock.now()
        for attempt in 0..<attempts {
            if attempt > 0, Clock.seconds(since: start) > timeLimit { break }
            importGeneration += 1
            let shift = Double(importGeneration) / 1_000  // whole milliseconds, so the wire format keeps them
            try await backend.importEntries(entries.map { entry in
                var changed = entry
                changed.updatedAt = entry.createdAt.addingTimeInterval(shift)
                return changed
            })
            if isCompacting(directory) { return true }
        }
        return false
    }

    /// How many re-imports this process made, so that each one changes every entry.
    nonisolated(unsafe) private static var importGeneration = 0

    /// Waits until no compaction runs (at most `timeout` seconds).
    static func waitForCompaction(_ directory: URL, timeout: Double = 180) async throws {
        let start = Clock.now()
        while isCompacting(directory), Clock.seconds(since: start) < timeout {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    /// Durable single writes while a compaction runs: triggers compactions and writes during each, until
    /// `count` writes have landed during one or `maximumTriggers` compactions were used. A write counts when a
    /// compaction was running both before and after it.
    /// - Returns: The latencies of the writes that landed during a compaction, and how many compactions.
    static func writesDuringCompaction(
        _ backend: FileStoreBackend, directory: URL, entries: [Diary], count: Int, from first: Int,
        maximumTriggers: Int = 20
    ) async throws -> (latencies: [Double], compactions: Int) {
        var latencies: [Double] = []
        var compactions = 0
        var index = first
        while latencies.count < count, compactions < maximumTriggers {
            guard try await triggerCompaction(backend, directory: directory, entries: entries) else { break }
            compactions += 1
            while latencies.count < count, isCompacting(directory) {
                let seconds = try await write(backend, index: index)
                index += 1
                if isCompacting(directory) { latencies.append(seconds) }
            }
            try await waitForCompaction(directory)
        }
        return (latencies, compactions)
    }

    /// Mean seconds per month-calendar query.
    static func calendar(_ backend: FileStoreBackend, count: Int) async throws -> Double {
        let diaries = backend.repositories(signedInAs: Dataset.author).diaries
        var days = 0
        let seconds = try await Clock.seconds {
            for _ in 0..<count { days += try await diaries.calendar(Dataset.calendarMonth, of: nil).days.count }
        }
        precondition(days > 0, "the calendar found nothing")
        return seconds / Double(count)
    }

    /// Mean seconds per first page of a tag search.
    static func tagSearch(_ backend: FileStoreBackend, count: Int) async throws -> Double {
        let diaries = backend.repositories(signedInAs: Dataset.author).diaries
        var found = 0
        let seconds = try await Clock.seconds {
            for _ in 0..<count {
                found += try await diaries.entries(DiaryQuery(tag: Dataset.searchTag), page: .first(size: 20)).items.count
            }
        }
        precondition(found > 0, "the tag search found nothing")
        return seconds / Double(count)
    }

    /// Page 1 of the author's entries.
    static func firstPage(_ backend: FileStoreBackend) async throws -> Int {
        try await backend.repositories(signedInAs: Dataset.author).diaries.entries(DiaryQuery(), page: .first(size: 20))
            .items.count
    }
}
