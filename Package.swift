// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "DiarySDK",
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [
        .library(name: "DiarySDK", targets: ["DiarySDK"]),
        .library(name: "DiarySDKInMemory", targets: ["DiarySDKInMemory"]),
        .library(name: "DiarySDKFileStore", targets: ["DiarySDKFileStore"]),
        .library(name: "DiarySDKHTTP", targets: ["DiarySDKHTTP"]),
        .library(name: "DiarySDKConformance", targets: ["DiarySDKConformance"]),
    ],
    targets: [
        .target(name: "DiarySDK"),
        .target(name: "DiarySDKInMemory", dependencies: ["DiarySDK"]),
        .target(name: "DiarySDKFileStore", dependencies: ["DiarySDK"]),
        .target(name: "DiarySDKHTTP", dependencies: ["DiarySDK"]),
        .target(name: "DiarySDKConformance", dependencies: ["DiarySDK"]),
        .testTarget(name: "DiarySDKTests", dependencies: ["DiarySDK"]),
        .testTarget(
            name: "DiarySDKInMemoryTests",
            dependencies: ["DiarySDK", "DiarySDKInMemory", "DiarySDKConformance"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
