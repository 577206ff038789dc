@_spi(Storage) import DiaryPostgres
import DiarySDK
import Foundation
import Logging

/// Upkeep of what only grows while the server runs: sessions whose refresh token has expired (a row each on
/// PostgreSQL, an entry in the sessions file on the file store), and on PostgreSQL the change log that carries every
/// write to the other instances (`change_log`, a row per write).
///
/// Every instance runs it (``run(on:options:)``); the work is a `DELETE` per table on an indexed time, so two
/// instances running it at once delete each row once and neither waits long. A row leaves once it is older than
/// ``ServerOptions/changeLogRetention``, and all but the newest ``ServerOptions/changeLogRows`` when set: a change
/// stream resuming after a position older than that hears `reload` (the store records how far it trimmed).
enum Maintenance {
    /// What one round removed.
    struct Report: Sendable, Equatable {
        /// Change log rows deleted.
        var changeLogRows = 0
        /// Expired sessions ended.
        var sessions = 0
    }

    /// One round on a world as of `now`.
    /// - Throws: ``DiaryError`` when the storage refuses.
    static func perform(on world: World, now: Date, options: ServerOptions) async throws -> Report {
        var report = Report()
        report.sessions = try await world.tokens.removeExpiredSessions(now: now)
        if let database = world.backend as? DatabaseBackend, let postgres = database.storage as? PostgresDiaryStorage {
            report.changeLogRows = try await postgres.trimChangeLog(committedBefore: now.addingTimeInterval(-options.changeLogRetention))
            if let rows = options.changeLogRows {
                report.changeLogRows += try await postgres.trimChangeLog(keepingNewest: rows)
            }
        }
        return report
    }

    /// Runs a round every ``ServerOptions/maintenanceInterval`` (the first one interval after start-up, each a
    /// random tenth earlier or later, so instances started together spread out) until the task is cancelled.
    /// A failed round is logged and the next one runs as planned.
    static func run(on world: World, options: ServerOptions, logger: Logger) async {
        guard options.maintenanceInterval > 0 else { return }
        while !Task.isCancelled {
            let delay = options.maintenanceInterval * Double.random(in: 0.9...1.1)
            do {
                // At most a year per sleep: an absurd interval must not overflow the nanoseconds.
                try await Task.sleep(nanoseconds: UInt64(min(delay, 365 * 24 * 3600) * 1_000_000_000))
            } catch {
                return
            }
            do {
                let report = try await perform(on: world, now: Date(), options: options)
                if report != Report() {
                    logger.info("maintenance", metadata: [
                        "expired_sessions": "\(report.sessions)", "change_log_rows": "\(report.changeLogRows)",
                    ])
                }
            } catch {
                logger.error("maintenance failed", metadata: ["cause": "\(error)"])
            }
        }
    }
}
