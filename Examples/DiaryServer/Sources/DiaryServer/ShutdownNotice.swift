import Logging
import ServiceLifecycle

/// A service that only says when the server starts shutting down, and how long it waits for the requests in flight.
struct ShutdownNotice: Service {
    let drainSeconds: Int
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        guard !Task.isCancelled else { return }
        logger.notice("shutting down: no new connections; waiting up to \(drainSeconds) s for the requests in flight")
    }
}
