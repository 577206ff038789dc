import Hummingbird
import Logging
import Metrics
import NIOCore
import Prometheus

/// The Prometheus scrape endpoint, `GET /metrics` in the text exposition format, on a port of its own
/// (`DIARY_METRICS_PORT`, on `DIARY_METRICS_HOSTNAME`, 127.0.0.1 by default): never on the API's port, so a load
/// balancer publishing the API does not publish the server's traffic figures with it.
enum MetricsEndpoint {
    /// Makes swift-metrics record into a new Prometheus registry, and returns it. Call it once, before any metric
    /// is made.
    static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }

    /// The application serving the registry.
    /// - Parameter onRunning: Called with the port once the endpoint listens.
    static func application(
        registry: PrometheusCollectorRegistry, hostname: String, port: Int, logger: Logger,
        onRunning: @escaping @Sendable (Int) -> Void
    ) -> some ApplicationProtocol {
        let router = Router()
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        return Application(
            router: router,
            configuration: .init(address: .hostname(hostname, port: port), serverName: "DiaryServer metrics"),
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
