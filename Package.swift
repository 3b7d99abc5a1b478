// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "IndoorLab",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "IndoorLocator", targets: ["IndoorLocator"]),
        .executable(name: "indoorlab", targets: ["indoorlab"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // C libraries from Debian, each behind a module map and a shim header only.
        .systemLibrary(name: "CGSL", pkgConfig: "gsl", providers: [.apt(["libgsl-dev"])]),
        // Heap statistics for the benchmark (glibc's mallinfo2 is not visible from Swift's Glibc module).
        .target(name: "CHeapStats"),
        .systemLibrary(name: "CPLplot", pkgConfig: "plplot", providers: [.apt(["libplplot-dev", "plplot-driver-cairo"])]),

        // Geometry, the scenario model and its loader/validator, readings, errors.
        .target(name: "LabCore", dependencies: [.product(name: "Yams", package: "Yams")]),
        // Radio and compass models, walks, seeded noise: scenario -> epochs.
        .target(name: "LabSimulation", dependencies: ["LabCore", "CGSL"]),
        // The estimator protocol and each estimator: epoch -> fix.
        .target(name: "LabEstimators", dependencies: ["LabCore", "CGSL"]),
        // Metrics, the Cramér–Rao bound, the tournament and its leaderboard: fixes -> results.
        .target(name: "LabEvaluation", dependencies: ["LabCore", "LabSimulation", "LabEstimators", "CGSL"]),
        // Recordings in SQLite (GRDB), importers, calibration.
        .target(name: "LabStore", dependencies: ["LabCore", "LabSimulation", "LabEstimators", "LabEvaluation", "CGSL", .product(name: "GRDB", package: "GRDB.swift")]),
        // Figures over PLplot: results -> plots.
        .target(name: "LabPlot", dependencies: ["LabCore", "LabEvaluation", "CPLplot"]),
        // Beacon-count planner and layout tuner.
        .target(name: "LabPlanning", dependencies: ["LabCore", "LabSimulation", "LabEstimators", "LabEvaluation"]),
        // The shipped library: the tournament's winner behind a small public API.
        .target(name: "IndoorLocator", dependencies: ["LabCore", "LabEstimators"]),
        // The command-line tool, one file per subcommand.
        .executableTarget(name: "indoorlab", dependencies: [
            "LabCore", "LabSimulation", "LabEstimators", "LabEvaluation", "LabStore", "LabPlot", "LabPlanning", "IndoorLocator", "CHeapStats",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // An app's-eye example that uses nothing but the IndoorLocator product.
        .executableTarget(name: "LocatorExample", dependencies: ["IndoorLocator"], path: "Examples/LocatorExample"),

        .testTarget(name: "LabCoreTests", dependencies: ["LabCore"]),
        .testTarget(name: "LabSimulationTests", dependencies: ["LabCore", "LabSimulation"]),
        .testTarget(name: "LabEstimatorsTests", dependencies: ["LabCore", "LabSimulation", "LabEstimators", "LabEvaluation"]),
        .testTarget(name: "LabEvaluationTests", dependencies: ["LabCore", "LabSimulation", "LabEstimators", "LabEvaluation", "IndoorLocator"]),
        .testTarget(name: "LabPlanningTests", dependencies: ["LabCore", "LabEstimators", "LabEvaluation", "LabPlanning"]),
        // Imports only IndoorLocator: what an app sees.
        .testTarget(name: "IndoorLocatorTests", dependencies: ["IndoorLocator"]),
        .testTarget(name: "IndoorlabCLITests", dependencies: ["indoorlab"]),
        .testTarget(name: "LabPlotTests", dependencies: ["LabPlot", "LabCore", "LabEvaluation", "LabEstimators"]),
        .testTarget(name: "LabStoreTests", dependencies: ["LabStore", "LabCore", "LabSimulation", "LabEvaluation", "LabEstimators"]),
    ]
)
