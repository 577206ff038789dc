// swift-tools-version:6.0
import PackageDescription

// The reference server for DiarySDK's HTTP backend: it implements docs/openapi.yaml by running the SDK's own engine
// over the file store or PostgreSQL, so every rule the server enforces is the rule every other backend enforces.
// DiaryPostgres is the SDK's storage contract on PostgreSQL, for servers whose processes share one database.
let package = Package(
    name: "DiaryServer",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "DiarySDK", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
    ],
    targets: [
        .executableTarget(
            name: "DiaryServer",
            dependencies: [
                .product(name: "DiarySDK", package: "DiarySDK"),
                .product(name: "DiarySDKInMemory", package: "DiarySDK"),
                // Test mode accepts the conformance suite's `test:` identity tokens.
                .product(name: "DiarySDKConformance", package: "DiarySDK"),
                .product(name: "DiarySDKFileStore", package: "DiarySDK"),
                // DIARY_DATABASE_URL runs the server's worlds on PostgreSQL.
                "DiaryPostgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // Request and database figures, served for Prometheus on DIARY_METRICS_PORT.
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The SDK's storage contract on PostgreSQL 15 (docs/CustomStorage.md, "The PostgreSQL store").
        .target(
            name: "DiaryPostgres",
            dependencies: [
                .product(name: "DiarySDK", package: "DiarySDK"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // Transaction durations, pool waits and write retries (PostgresClient reports none itself).
                .product(name: "Metrics", package: "swift-metrics"),
                // Only for ConnectionPoolError, which PostgresClient throws when no connection can be made.
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
            ]
        ),
        // The conformance suite and the store's own concurrency checks on a real PostgreSQL server
        // (DIARY_TEST_DATABASE_URL; scripts/postgres.sh starts a throwaway one).
        .testTarget(
            name: "DiaryPostgresTests",
            dependencies: [
                "DiaryPostgres",
                .product(name: "DiarySDK", package: "DiarySDK"),
                .product(name: "DiarySDKConformance", package: "DiarySDK"),
                // Raw SQL in tests that damage rows or inspect tables behind the store's back.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // Unit tests of the server's own parts (idempotency store, multipart parser); the HTTP behaviour is tested
        // over loopback by the SDK's Tests/DiarySDKHTTPTests.
        .testTarget(
            name: "DiaryServerTests",
            dependencies: [
                "DiaryServer",
                .product(name: "NIOCore", package: "swift-nio"),
                // Tokens signed by hand (a forged key id, a token from before key ids).
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
