// swift-tools-version:6.0
import PackageDescription

// The bare baseline for issue 12's benchmark (docs/PERFORMANCE.md, "Reference server on PostgreSQL"): a Hummingbird
// handler per route that runs tuned SQL against the reference server's own PostgreSQL tables through postgres-nio
// and answers the same JSON, with nothing of the SDK in between. Its own package, so the benchmark package keeps
// depending on the SDK only; the versions are those Examples/DiaryServer pins.
let package = Package(
    name: "PostgresBaseline",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.3"),
    ],
    targets: [
        .executableTarget(
            name: "BareDiaryServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
