// swift-tools-version:6.0
import PackageDescription

// Example programs and the `diary` command-line app. They depend on the SDK by path, like an app would depend on a
// released version. `swift run --package-path Examples diary demo` is the README's main job.
let package = Package(
    name: "DiarySDKExamples",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(name: "DiarySDK", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "diary",
            dependencies: [
                .product(name: "DiarySDK", package: "DiarySDK"),
                .product(name: "DiarySDKFileStore", package: "DiarySDK"),
                .product(name: "DiarySDKHTTP", package: "DiarySDK"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            resources: [.copy("Resources")]
        ),
        .executableTarget(name: "QuickStart", dependencies: [
            .product(name: "DiarySDK", package: "DiarySDK"), .product(name: "DiarySDKFileStore", package: "DiarySDK"),
        ]),
        .executableTarget(name: "ChoosingABackend", dependencies: [
            .product(name: "DiarySDK", package: "DiarySDK"), .product(name: "DiarySDKFileStore", package: "DiarySDK"),
            .product(name: "DiarySDKInMemory", package: "DiarySDK"),
        ]),
        .executableTarget(name: "FeedPaging", dependencies: [
            .product(name: "DiarySDK", package: "DiarySDK"), .product(name: "DiarySDKInMemory", package: "DiarySDK"),
        ]),
        .executableTarget(name: "LiveChanges", dependencies: [
            .product(name: "DiarySDK", package: "DiarySDK"), .product(name: "DiarySDKInMemory", package: "DiarySDK"),
        ]),
        .executableTarget(name: "OfflineDiary", dependencies: [
            .product(name: "DiarySDK", package: "DiarySDK"), .product(name: "DiarySDKOffline", package: "DiarySDK"),
        ]),
        .testTarget(
            name: "ExampleProgramTests",
            dependencies: [
                "diary", "QuickStart", "ChoosingABackend", "FeedPaging", "LiveChanges",
                // To prepare stores the CLI then opens (fixed ids, damaged journals), and serve it feeds.
                .product(name: "DiarySDK", package: "DiarySDK"), .product(name: "DiarySDKFileStore", package: "DiarySDK"),
                .product(name: "DiarySDKConformance", package: "DiarySDK"),
            ]
        ),
        // Every Swift block of README.md, docs/*.md and the SDK's doc comments, as code (DocSnippetTests checks that
        // each block is the shown part of one of these files, and runs the guides' end-to-end ones).
        .executableTarget(name: "DocSnippets", dependencies: [
            .product(name: "DiarySDK", package: "DiarySDK"), .product(name: "DiarySDKFileStore", package: "DiarySDK"),
            .product(name: "DiarySDKInMemory", package: "DiarySDK"), .product(name: "DiarySDKHTTP", package: "DiarySDK"),
            .product(name: "DiarySDKConformance", package: "DiarySDK"), "MeteredBackend",
            .product(name: "DiarySDKOffline", package: "DiarySDK"),
        ]),
        .testTarget(
            name: "DocSnippetTests",
            dependencies: [
                "DocSnippets",
                .product(name: "DiarySDK", package: "DiarySDK"),
                .product(name: "DiarySDKInMemory", package: "DiarySDK"),
                .product(name: "DiarySDKConformance", package: "DiarySDK"),
            ]
        ),
        // A custom backend (a metering decorator) and the conformance suite run on it.
        .target(name: "MeteredBackend", dependencies: [.product(name: "DiarySDK", package: "DiarySDK")]),
        .testTarget(
            name: "MeteredBackendTests",
            dependencies: [
                "MeteredBackend",
                .product(name: "DiarySDKInMemory", package: "DiarySDK"),
                .product(name: "DiarySDKConformance", package: "DiarySDK"),
            ]
        ),
        // An app feature (a mood-calendar screen's view model) and its unit tests on the in-memory fake.
        .target(name: "MoodDiaryFeature", dependencies: [.product(name: "DiarySDK", package: "DiarySDK")]),
        .testTarget(
            name: "MoodDiaryFeatureTests",
            dependencies: [
                "MoodDiaryFeature",
                .product(name: "DiarySDK", package: "DiarySDK"),
                .product(name: "DiarySDKInMemory", package: "DiarySDK"),
            ]
        ),
        // A post screen's view model kept current by live changes, and its tests.
        .target(name: "CommunityFeature", dependencies: [.product(name: "DiarySDK", package: "DiarySDK")]),
        .testTarget(
            name: "CommunityFeatureTests",
            dependencies: [
                "CommunityFeature",
                .product(name: "DiarySDK", package: "DiarySDK"),
                .product(name: "DiarySDKInMemory", package: "DiarySDK"),
                .product(name: "DiarySDKFileStore", package: "DiarySDK"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
