@_spi(Engine) import DiarySDK
import DiarySDKConformance
import DiarySDKInMemory
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

let options: ServerOptions
do {
    options = try ServerOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch let error as OptionsError where error.isHelp {
    print(error.message)
    exit(0)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}
LoggingSystem.bootstrap { label in LineLogHandler(label: label, level: options.logLevel) }
let logger = Logger(label: "diary")
// Before anything makes a metric (the storage makes its own), so every figure lands in the registry.
let metricsRegistry = options.metricsPort.map { _ in MetricsEndpoint.bootstrap() }
for warning in options.warnings {
    logger.warning("\(warning)")
}

let signingKeys =
    options.jwtKeys ?? SigningKeySet(
        secret: options.jwtSecret.map { Array($0.utf8) } ?? (0..<32).map { _ in UInt8.random(in: .min ... .max) })
if options.jwtKeys == nil && options.jwtSecret == nil {
    logger.warning("no DIARY_JWT_SECRET_FILE / DIARY_JWT_SECRET / --jwt-secret given: using a random key, so tokens end when the server stops and no other instance honours them")
}
let verifier: (any IdentityTokenVerifier)? = options.testMode ? ConformanceIdentityTokenVerifier() : nil
let engineConfiguration = DiaryEngine.Configuration(
    passwordHashIterations: options.passwordHashIterations, identityTokenVerifier: verifier)

let registry: WorldRegistry
do {
    logger.info("storage: \(options.storageDescription)")
    logger.info(
        "tokens: signed with key '\(signingKeys.signing.id)'; verified with \(signingKeys.keys.map { "'\($0.id)'" }.joined(separator: ", "))")
    registry = try await WorldRegistry(options: options, signingKeys: signingKeys) { name, clock in
        try await makeStorage(options: options, world: name, clock: clock, engine: engineConfiguration)
    }
} catch {
    FileHandle.standardError.write(Data("cannot open the data: \(error)\n".utf8))
    exit(1)
}

if options.exitWhenStdinCloses {
    Thread.detachNewThread {
        while let line = readLine(strippingNewline: false), !line.isEmpty {}
        exit(0)
    }
}

let contractLog: ContractLog?
do {
    contractLog = try options.contractLog.map { try ContractLog(url: $0) }
} catch {
    FileHandle.standardError.write(Data("cannot open the contract log: \(error)\n".utf8))
    exit(1)
}

// On PostgreSQL the buckets live in the main schema, so every instance on the database shares a client's budget.
let authLimiter: any ClientRateLimiter
do {
    if let database = registry.main.backend as? DatabaseBackend {
        authLimiter = try await database.makeRateLimiter(capacity: options.authRateLimit, period: options.authRatePeriod)
    } else {
        authLimiter = RateLimiter(capacity: options.authRateLimit, period: options.authRatePeriod)
    }
} catch {
    FileHandle.standardError.write(Data("cannot open the rate limit table: \(error)\n".utf8))
    exit(1)
}

let api = DiaryAPI(
    registry: registry, options: options, contractLog: contractLog,
    authRateLimit: AuthRateLimit(limiter: authLimiter, testMode: options.testMode, trustedProxies: options.trustedProxies))
let router = Router(context: DiaryRequestContext.self)
router.add(middleware: RequestLogMiddleware())
router.add(middleware: RequestMetricsMiddleware())
router.add(middleware: ProblemMiddleware())
api.registerAll(router)

// Hummingbird's own lines (its start-up line repeats ours) only from warnings up.
var frameworkLogger = Logger(label: "diary.hummingbird")
frameworkLogger.logLevel = max(options.logLevel, .warning)
let app = Application(
    router: router,
    configuration: .init(address: .hostname(options.hostname, port: options.port), serverName: "DiaryServer"),
    onServerRunning: { channel in
        logger.notice("DiaryServer listening on \(options.hostname):\(channel.localAddress?.port ?? options.port)")
    },
    logger: frameworkLogger)

// SIGTERM or SIGINT: stop accepting connections, let the requests in flight finish (at most the drain time, then
// they are cancelled), close the storage, exit 0.
// Services stop in reverse order: the notice, then the API (draining), then the metrics endpoint.
var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
    .init(service: app),
    .init(service: ShutdownNotice(drainSeconds: options.drainSeconds, logger: logger), successTerminationBehavior: .ignore),
]
if let metricsRegistry, let metricsPort = options.metricsPort {
    let endpoint = MetricsEndpoint.application(
        registry: metricsRegistry, hostname: options.metricsHostname, port: metricsPort, logger: frameworkLogger
    ) { port in
        logger.notice("metrics on http://\(options.metricsHostname):\(port)/metrics")
    }
    services.insert(.init(service: endpoint), at: 0)
}
var groupConfiguration = ServiceGroupConfiguration(
    services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: frameworkLogger)
groupConfiguration.maximumGracefulShutdownDuration = .seconds(options.drainSeconds)
groupConfiguration.maximumCancellationDuration = .seconds(5)
var status: Int32 = 0
let maintenance = Task { await Maintenance.run(on: registry.main, options: options, logger: logger) }
do {
    try await ServiceGroup(configuration: groupConfiguration).run()
} catch {
    logger.error("the server stopped on an error: \(error)")
    status = 1
}
maintenance.cancel()
await registry.closeAll()
logger.notice("stopped")
exit(status)
