import Logging

/// The server's loggers: one per part (`diary` for start-up and shutdown, `diary.http` for requests), all through
/// swift-log's `LoggingSystem`, which `main.swift` bootstraps with ``LineLogHandler`` at `DIARY_LOG_LEVEL`.
enum ServerLog {
    /// The logger of the request this task serves (it carries the `request_id`), or the server's own outside one.
    @TaskLocal static var current = Logger(label: "diary")
}
