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
    ],
    swiftLanguageModes: [.v6]
)
