import DiarySDK
import DiarySDKConformance
import DiarySDKInMemory
import Foundation
import Hummingbird

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
for warning in options.warnings {
    writeLogLine("warning: \(warning)")
}

let signingKey: [UInt8] =
    options.jwtSecret.map { Array($0.utf8) } ?? (0..<32).map { _ in UInt8.random(in: .min ... .max) }
if options.jwtSecret == nil {
    writeLogLine("no DIARY_JWT_SECRET_FILE / DIARY_JWT_SECRET / --jwt-secret given: using a random key, so tokens end when the server stops and no other instance honours them")
}
let verifier: (any IdentityTokenVerifier)? = options.testMode ? ConformanceIdentityTokenVerifier() : nil
let engineConfiguration = DiaryEngine.Configuration(
    passwordHashIterations: options.passwordHashIterations, identityTokenVerifier: verifier)

let registry: WorldRegistry
do {
    writeLogLine("storage: \(options.storageDescription)")
    registry = try await WorldRegistry(options: options, signingKey: signingKey) { name, clock in
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
router.add(middleware: ProblemMiddleware())
api.registerAll(router)

let app = Application(
    router: router,
    configuration: .init(address: .hostname(options.hostname, port: options.port), serverName: "DiaryServer"),
    onServerRunning: { channel in
        writeLogLine("DiaryServer listening on \(options.hostname):\(channel.localAddress?.port ?? options.port)")
    })
let maintenance = Task { await Maintenance.run(on: registry.main, options: options) }
try await app.runService()
maintenance.cancel()
await registry.closeAll()
