// swift-tools-version:6.1
// Fuzz targets for the lab's readers and the IndoorLocator library (libFuzzer with AddressSanitizer). A package of its own, so the main
// build never sees `-sanitize=fuzzer`: `make fuzz` builds and runs them (see docs/fuzzing.md).
import PackageDescription

let package = Package(
    name: "IndoorLabFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "IndoorLab", path: ".."),
        // Only fuzz-recording's edits use it (to tamper with a recording the way an attacker with sqlite3 could).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Writing fuzz input into files, splitting one input into several files, and what counts as a finding.
        .target(name: "CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzDriver", .product(name: "IndoorLabFormats", package: "IndoorLab")]),
        .executableTarget(name: "fuzz-scenario", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-lab-csv", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-uji", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-danis", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-recording", dependencies: ["FuzzSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        // The library an app embeds, driven through its public API only.
        .executableTarget(name: "fuzz-locator", dependencies: ["FuzzSupport", .product(name: "IndoorLocator", package: "IndoorLab")]),
    ]
)
