// swift-tools-version:6.0
import PackageDescription

// The SDK depends on no package at all. Programs that need one (the reference server, the `diary` CLI, the
// benchmarks) live in their own packages under Examples/ and Benchmarks/ and depend on this one by path.
let package = Package(
    name: "DiarySDK",
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [
        .library(name: "DiarySDK", targets: ["DiarySDK"]),
        .library(name: "DiarySDKInMemory", targets: ["DiarySDKInMemory"]),
        .library(name: "DiarySDKFileStore", targets: ["DiarySDKFileStore"]),
        .library(name: "DiarySDKHTTP", targets: ["DiarySDKHTTP"]),
        .library(name: "DiarySDKConformance", targets: ["DiarySDKConformance"]),
        .library(name: "DiarySDKOffline", targets: ["DiarySDKOffline"]),
    ],
    targets: [
        .target(name: "DiarySDK"),
        .target(name: "DiarySDKInMemory", dependencies: ["DiarySDK"]),
        .target(name: "DiarySDKFileStore", dependencies: ["DiarySDK"]),
        .target(name: "DiarySDKHTTP", dependencies: ["DiarySDK"]),
        .target(name: "DiarySDKConformance", dependencies: ["DiarySDK"]),
        .target(name: "DiarySDKOffline", dependencies: ["DiarySDK", "DiarySDKFileStore", "DiarySDKHTTP"]),
        // A child process for the file store's crash tests: it writes in a loop and reports each acknowledged write.
        .executableTarget(name: "DiarySDKCrashWriter", dependencies: ["DiarySDK", "DiarySDKFileStore"]),
        // The offline backend's crash-test child: it writes while syncing and is killed at random moments.
        .executableTarget(
            name: "DiarySDKOfflineCrashWriter", dependencies: ["DiarySDK", "DiarySDKHTTP", "DiarySDKOffline"]),
        // What the package's own tests share (running the crash-test children); not a product.
        .target(name: "DiarySDKTestSupport", dependencies: ["DiarySDK"]),
        .testTarget(name: "DiarySDKTests", dependencies: ["DiarySDK", "DiarySDKConformance"]),
        .testTarget(name: "DiarySDKFeedTests", dependencies: ["DiarySDK", "DiarySDKInMemory", "DiarySDKConformance"]),
        .testTarget(
            name: "DiarySDKInMemoryTests",
            dependencies: ["DiarySDK", "DiarySDKInMemory", "DiarySDKConformance"]
        ),
        .testTarget(
            name: "DiarySDKFileStoreTests",
            dependencies: [
                "DiarySDK", "DiarySDKFileStore", "DiarySDKConformance", "DiarySDKCrashWriter", "DiarySDKTestSupport",
            ],
            // Stores written by earlier releases, opened by the schema tests (found through #filePath).
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "DiarySDKHTTPTests",
            dependencies: [
                "DiarySDK", "DiarySDKHTTP", "DiarySDKConformance", "DiarySDKInMemory", "DiarySDKOffline",
                "DiarySDKOfflineCrashWriter", "DiarySDKTestSupport",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
