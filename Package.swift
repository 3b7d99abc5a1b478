// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "IndoorLab",
    // The IndoorLocator product is pure Swift over Foundation: these are the Apple platforms an app can ship it on.
    platforms: [.macOS(.v13), .iOS(.v16), .watchOS(.v9), .tvOS(.v16), .visionOS(.v1)],
    products: [
        .library(name: "IndoorLocator", targets: ["IndoorLocator"]),
        .library(name: "IndoorLocatorScenarios", targets: ["IndoorLocatorScenarios"]),
        .executable(name: "indoorlab", targets: ["indoorlab"]),
        // The lab's file formats (scenario YAML, recordings, importers) for Swift programs: the fuzz targets in
        // Fuzz/ build on it.
        .library(name: "IndoorLabFormats", targets: ["LabCore", "LabScenarioIO", "LabSimulation", "LabResults", "LabStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // The live service: HTTP and WebSocket, and /metrics.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The simulated phones' WebSocket client (the server's own NIO; no TLS library to compile).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // C libraries from Debian, each behind a module map and a shim header only.
        .systemLibrary(name: "CGSL", pkgConfig: "gsl", providers: [.apt(["libgsl-dev"])]),
        // Heap statistics for the benchmark (glibc's mallinfo2 is not visible from Swift's Glibc module).
        .target(name: "CHeapStats"),
        .systemLibrary(name: "CPLplot", pkgConfig: "plplot", providers: [.apt(["libplplot-dev", "plplot-driver-cairo"])]),
        // DNS-SD's Bonjour API (dns_sd.h), on Linux through Avahi's compatibility library: the live service advertises itself.
        .systemLibrary(name: "CDNSSD", providers: [.apt(["libavahi-compat-libdnssd-dev"])]),

        // The pure model: geometry, scenario types, venue, walls, readings, errors, and the shared maths
        // (Fisher information, quantiles, RSSI↔range, the JSON format). No I/O libraries.
        .target(name: "LabCore"),
        // Scenario files: the YAML reader and validator, the writer, bundled-scenario lookup. (Yams; LabSweep reads its specs with it too.)
        .target(name: "LabScenarioIO", dependencies: ["LabCore", .product(name: "Yams", package: "Yams")]),
        // Radio and compass models, walks, seeded noise: scenario -> epochs.
        .target(name: "LabSimulation", dependencies: ["LabCore", "CGSL"]),
        // The fitting maths the lab and the shipped library share, in pure Swift: the fix problem (residuals and
        // Jacobian), the least-squares solver protocol and its Levenberg–Marquardt, closed forms, the estimate
        // types, and the offset-learning fit that wins the tournament.
        .target(name: "LocatorEngine", dependencies: ["LabCore"]),
        // The estimator protocol, the registry, one file per estimator, and GSL's solver: epoch -> fix.
        .target(name: "LabEstimators", dependencies: ["LabCore", "LocatorEngine", "CGSL"]),
        // The results model: an epoch's result, error statistics, scores, the leaderboard, track metrics, the √CRLB map.
        // Plain records that judging computes, the store writes and reports and plots read.
        .target(name: "LabResults", dependencies: ["LabCore", "LabEstimators"]),
        // Every file format: recordings in SQLite (GRDB), importers, the CSV scanner, results files.
        .target(name: "LabStore", dependencies: ["LabCore", "LabEstimators", "LabResults", .product(name: "GRDB", package: "GRDB.swift")]),
        // Judging: metrics, the Cramér–Rao bound, the tournament, leaderboard, replay, baselines, calibration.
        .target(name: "LabEvaluation", dependencies: ["LabCore", "LabSimulation", "LabEstimators", "LabResults", "LabStore", "CGSL"]),
        // Every figure, over PLplot: results -> plots.
        .target(name: "LabPlot", dependencies: ["LabCore", "LabScenarioIO", "LabEstimators", "LabResults", "LabStore", "LabEvaluation", "LabPlanning", "LabSweep", "CPLplot"]),
        // Reports: what the tool prints and the documents it writes (tables in plain text and Markdown, the JSON reports,
        // the results document): results -> text.
        .target(name: "LabReport", dependencies: ["LabCore", "LabEstimators", "LabResults", "LabStore", "LabEvaluation", "LabPlanning", "LabSweep"]),
        // Beacon-count planner and layout tuner.
        .target(name: "LabPlanning", dependencies: ["LabCore", "LabSimulation", "LabEstimators"]),
        // Parameter studies: a spec's axes expanded into jobs and shards, run locally or as Slurm array tasks, merged with
        // confidence intervals.
        .target(name: "LabSweep", dependencies: ["LabCore", "LabScenarioIO", "LabEstimators", "LabEvaluation", "LabPlanning", "LabResults", "LabStore", "CGSL",
                                                 .product(name: "Yams", package: "Yams")]),
        // The shipped library: the tournament's winner behind a small public API.
        .target(name: "IndoorLocator", dependencies: ["LabCore", "LocatorEngine"]),
        // Loading an IndoorLocator from a scenario file (a separate product: it brings Yams).
        .target(name: "IndoorLocatorScenarios", dependencies: ["IndoorLocator", "LabCore", "LabScenarioIO"]),
        // The benchmark: throughput of every stage, the library included (`indoorlab bench`).
        .target(name: "LabBench", dependencies: ["LabCore", "LabScenarioIO", "LabSimulation", "LabEstimators", "LabStore", "LabEvaluation", "IndoorLocator", "CHeapStats"]),
        // The live venue service: phones stream what they hear over WebSocket and are located by the shipped library;
        // each session becomes a recording (acknowledged after commit); viewers watch a live map. And the simulated
        // phones that stream a walk to it. (Hummingbird, hummingbird-websocket, swift-prometheus.)
        .target(name: "LabLive", dependencies: [
            "LabCore", "LabScenarioIO", "LabSimulation", "LabStore", "IndoorLocator", "IndoorLocatorScenarios", "CDNSSD",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
        ]),
        // The command-line tool, one file per subcommand: parse, call one module function, print.
        .executableTarget(name: "indoorlab", dependencies: [
            "LabCore", "LabScenarioIO", "LabSimulation", "LabEstimators", "LabEvaluation", "LabStore", "LabPlot", "LabPlanning", "LabSweep", "LabBench", "LabReport", "LabResults", "LabLive",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // An app's-eye example that uses nothing but the IndoorLocator product.
        .executableTarget(name: "LocatorExample", dependencies: ["IndoorLocator", "IndoorLocatorScenarios"], path: "Examples/LocatorExample"),

        .testTarget(name: "LabCoreTests", dependencies: ["LabCore", "LabScenarioIO"]),
        .testTarget(name: "LabScenarioIOTests", dependencies: ["LabCore", "LabScenarioIO"]),
        .testTarget(name: "LabSimulationTests", dependencies: ["LabCore", "LabScenarioIO", "LabSimulation"]),
        // The engine's maths and trackers; its fixtures come from the lab (bundled scenarios, the tournament's epochs, GSL's solver).
        .testTarget(name: "LocatorEngineTests", dependencies: ["LocatorEngine", "LabCore", "LabScenarioIO", "LabSimulation", "LabEstimators", "LabResults", "LabStore", "LabEvaluation"]),
        .testTarget(name: "LabEstimatorsTests", dependencies: ["LabCore", "LabEstimators"]),
        .testTarget(name: "LabEvaluationTests", dependencies: ["LabResults", "LabCore", "LabScenarioIO", "LabSimulation", "LabEstimators", "LabStore", "LabEvaluation", "IndoorLocator", "IndoorLocatorScenarios"]),
        .testTarget(name: "LabPlanningTests", dependencies: ["LabCore", "LabScenarioIO", "LabEstimators", "LabEvaluation", "LabPlanning"]),
        .testTarget(name: "LabSweepTests", dependencies: ["LabCore", "LabStore", "LabSweep"]),
        // Imports only IndoorLocator: what an app sees.
        .testTarget(name: "IndoorLocatorTests", dependencies: ["IndoorLocator", "IndoorLocatorScenarios"]),
        .testTarget(name: "IndoorLocatorScenariosTests", dependencies: ["IndoorLocator", "IndoorLocatorScenarios"]),
        .testTarget(name: "LabResultsTests", dependencies: ["LabResults", "LabCore", "LabEstimators"]),
        .testTarget(name: "LabBenchTests", dependencies: ["LabBench"]),
        // Expected/ holds the stored outputs the expected-output tests compare with.
        .testTarget(name: "IndoorlabCLITests", dependencies: ["indoorlab", "LabCore", "LabScenarioIO", "LabSimulation", "LabEstimators", "LabResults", "LabStore", "LabEvaluation",
                                                                 .product(name: "GRDB", package: "GRDB.swift")], exclude: ["Expected"]),
        .testTarget(name: "LabPlotTests", dependencies: ["LabResults", "LabPlot", "LabCore", "LabScenarioIO", "LabStore", "LabEvaluation", "LabEstimators"]),
        .testTarget(name: "LabStoreTests", dependencies: ["LabResults", "LabStore", "LabCore", "LabScenarioIO", "LabSimulation", "LabEvaluation", "LabEstimators",
                                                             .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "LabLiveTests", dependencies: ["LabLive", "LabCore", "LabScenarioIO", "LabSimulation", "LabStore", "LabEstimators", "LabEvaluation", "IndoorLocator"]),
        .testTarget(name: "LabReportTests", dependencies: ["LabReport", "LabCore", "LabEstimators", "LabResults", "LabEvaluation"]),
    ]
)
