// swift-tools-version:6.0
import PackageDescription

// Benchmarks live outside the SDK so that the SDK itself depends on nothing. Run one with
// `swift run -c release --package-path Benchmarks <name>`; results go to docs/PERFORMANCE.md.
let package = Package(
    name: "DiarySDKBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "DiarySDK", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "FileStoreBenchmarks",
            dependencies: [
                .product(name: "DiarySDK", package: "DiarySDK"),
                .product(name: "DiarySDKFileStore", package: "DiarySDK"),
                .product(name: "DiarySDKConformance", package: "DiarySDK"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(name: "FeedBenchmarks", dependencies: [.product(name: "DiarySDK", package: "DiarySDK")]),
        // The reference server as a child process, for the benchmarks that run against it.
        .target(name: "BenchmarkServer"),
        .executableTarget(
            name: "HTTPBenchmarks",
            dependencies: [
                "BenchmarkServer",
                .product(name: "DiarySDK", package: "DiarySDK"),
                .product(name: "DiarySDKHTTP", package: "DiarySDK"),
            ]
        ),
        // The offline backend (issue 14): reads on its replica against the file store, the first sync of queued
        // writes and the steady-state cost per write against the HTTP backend, on the reference server.
        .executableTarget(
            name: "OfflineBenchmarks",
            dependencies: [
                "BenchmarkServer",
                .product(name: "DiarySDK", package: "DiarySDK"),
                .product(name: "DiarySDKFileStore", package: "DiarySDK"),
                .product(name: "DiarySDKHTTP", package: "DiarySDK"),
                .product(name: "DiarySDKOffline", package: "DiarySDK"),
            ]
        ),
        // Live changes: write-to-event latency at 100 subscribers and server memory per stream, on PostgreSQL.
        .executableTarget(
            name: "ChangeStreamBenchmarks",
            dependencies: [
                "BenchmarkServer",
                .product(name: "DiarySDK", package: "DiarySDK"),
                .product(name: "DiarySDKHTTP", package: "DiarySDK"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
