import DiarySDK
import DiarySDKFileStore
import Foundation

/// The file store's side of each measurement.
enum FileStoreBench {
    static func configuration(_ directory: URL) -> FileStoreBackend.Configuration {
        .init(
            directory: directory, ids: SequentialIDGenerator(), defaultTimeZone: TimeZone(identifier: "UTC")!,
            engine: .init(passwordHashIterations: 1_000))
    }

    /// Opens an empty store in a new directory, signs up the author (always `…0001`), imports entries in one
    /// durable transaction.
    /// - Returns: The store, its directory and the seconds the import took.
    static func makeStore(_ name: String, entries: [Diary]) async throws -> (FileStoreBackend, URL, Double) {
        let directory = temporaryDirectory(name)
        let backend = try FileStoreBackend(configuration: configuration(directory))
        _ = try await backend.engine(actingAs: nil).createAccount(
            SignUpRequest(email: "bench@example.com", password: "correct horse battery", nickname: "bench"))
        let seconds = try await Timer.seconds { try await backend.importEntries(entries) }
        return (backend, directory, seconds)
    }

    /// Durable single-entry writes through the public repository, one after another.
    /// - Returns: Writes per second.
    static func writesPerSecond(_ backend: FileStoreBackend, authorID: User.ID, count: Int) async throws -> Double {
        let diaries = backend.repositories(signedInAs: authorID).diaries
        let seconds = try await Timer.seconds {
            for index in 0..<count {
                _ = try await diaries.write(
                    DiaryDraft(
                        day: LocalDate(year: 2026, month: 1, day: index % 28 + 1), title: "Single \(index)",
                        body: "A durable single write number \(index), with a body of ordinary length for a diary.",
                        tags: ["bench", Dataset.tagPool[index % 40]]))
            }
        }
        return Double(count) / seconds
    }

    /// Mean seconds per month-calendar query and per first page of a tag search.
    static func queries(_ backend: FileStoreBackend, authorID: User.ID, count: Int) async throws -> (Double, Double) {
        let diaries = backend.repositories(signedInAs: authorID).diaries
        var days = 0
        let calendar = try await Timer.seconds {
            for _ in 0..<count { days += try await diaries.calendar(Dataset.calendarMonth, of: nil).days.count }
        }
        var found = 0
        let search = try await Timer.seconds {
            for _ in 0..<count {
                found += try await diaries.entries(DiaryQuery(tag: Dataset.searchTag), page: .first(size: 20)).items.count
            }
        }
        precondition(days > 0 && found > 0, "the queries found nothing")
        return (calendar / Double(count), search / Double(count))
    }

    /// The snapshot file's size.
    static func snapshotBytes(in directory: URL) throws -> Int {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        guard let snapshot = names.first(where: { $0.hasPrefix("snapshot-") }) else { return 0 }
        let path = directory.appendingPathComponent(snapshot).path
        return (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
