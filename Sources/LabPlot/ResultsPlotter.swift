import Foundation
import LabCore
import LabStore
import LabResults

/// Choices for one figure drawn from saved results (the flags of `indoorlab plot`). nil means the default.
public struct PlotOptions: Sendable {
    /// cdf: which estimators (default: all); map: whose fixes (default: the winner and least-squares).
    public var estimators: [String]?
    /// heatmap: whose error (default: the leaderboard's winner).
    public var estimator: String?
    /// map: which seed (default: the first of the run).
    public var seed: UInt64?
    /// map: which walk (default: the scenario's first walk).
    public var walk: String?
    public var formats: [PlotFormat]

    public init(estimators: [String]? = nil, estimator: String? = nil, seed: UInt64? = nil, walk: String? = nil,
                formats: [PlotFormat] = [.png, .svg]) {
        self.estimators = estimators; self.estimator = estimator; self.seed = seed; self.walk = walk; self.formats = formats
    }
}

/// Draws the standard figures of a results directory written by `indoorlab compare --out DIR`
/// (`DIR/run.json` and `DIR/<scenario>-epochs.csv`). Reads everything a figure needs before writing
/// anything, so a missing or malformed input leaves no file behind.
public struct ResultsPlotter {
    public let directory: String
    public let manifest: RunManifest
    /// Loads a scenario named in the manifest (the CLI also looks among the bundled scenarios).
    public var loadScenario: (RunManifest.ScenarioEntry) throws -> Scenario
    public var renderer: PlotRenderer

    /// Opens a results directory (reads its manifest).
    /// - Throws: ``InputError`` naming `run.json` when it is missing or malformed.
    public init(directory: String, loadScenario: @escaping (RunManifest.ScenarioEntry) throws -> Scenario,
                renderer: PlotRenderer = .shared) throws {
        self.directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        self.manifest = try RunManifest.read(directory: self.directory)
        self.loadScenario = loadScenario
        self.renderer = renderer
    }

    public var scenarioNames: [String] { manifest.scenarios.map(\.name) }
    /// The real protocols whose epochs the run saved (cdf only: no scenario file holds their floorplan).
    public var realNames: [String] { manifest.real.map(\.name) }
    /// The real protocols for a message listing what the run holds ("" when none).
    private var realList: String { realNames.isEmpty ? "" : "; real protocols (cdf only): \(realNames.joined(separator: ", "))" }

    public func resultsPath(_ scenario: String) -> String { directory + "/" + RunManifest.resultsFileName(scenario) }

    /// The scenario's per-epoch results.
    /// - Throws: ``InputError`` for an unknown scenario or a missing or malformed CSV (with file and line).
    public func results(_ scenario: String) throws -> [EpochResult] {
        let real = realNames.contains(scenario)
        if !real { try entry(scenario) }
        let rows = try ResultsFile.read(path: resultsPath(scenario), scenario: scenario)
        // The epochs must be this run's: a failed rewrite, or a file copied in, would mix two runs in one figure.
        let seeds = manifest.seeds   // a real protocol's particle filters run with every seed, its other estimators with the first
        if let stray = rows.first(where: { !seeds.contains($0.seed) }) {
            throw InputError(file: resultsPath(scenario), "holds seed \(stray.seed), which the run (\(RunManifest.fileName)) does not: seeds \(seeds.map(String.init).joined(separator: ", ")) (the file is from another run)")
        }
        return rows
    }

    /// The scenario entry of `scenario`; a real protocol's name gets the reason it has no floorplan figure.
    @discardableResult
    func entry(_ scenario: String) throws -> RunManifest.ScenarioEntry {
        guard let e = manifest.scenarios.first(where: { $0.name == scenario }) else {
            let manifestFile = directory + "/" + RunManifest.fileName
            if realNames.contains(scenario) {
                throw InputError(file: manifestFile, "'\(scenario)' is a real protocol: its venue came from a recording, so only its cdf is drawn from the results")
            }
            throw InputError(file: manifestFile, "no scenario '\(scenario)' in this run; scenarios: \(scenarioNames.joined(separator: ", "))\(realList)")
        }
        return e
    }

    /// The default estimators on a map: the leaderboard's winner, then least-squares.
    public var defaultMapEstimators: [String] {
        var names: [String] = []
        if let w = manifest.leaderboard.winner?.rawValue { names.append(w) }
        if !names.contains("least-squares") { names.append("least-squares") }
        return names
    }

    /// The default estimators of error over time: the winner, the two live trackers (particle filter, ekf), the best
    /// snapshot estimator (each once, in that order).
    public var defaultTrackEstimators: [String] {
        var names: [String] = []
        for n in [manifest.leaderboard.winner?.rawValue, "particle-filter", "ekf", manifest.leaderboard.bestSnapshot?.rawValue] {
            if let n, !names.contains(n) { names.append(n) }
        }
        return names
    }

    /// The estimator of a one-estimator figure (heatmap, track): the one asked for, else the winner, else the run's first.
    func oneEstimator(_ options: PlotOptions) throws -> String {
        guard let est = options.estimator ?? manifest.leaderboard.winner?.rawValue ?? manifest.estimators.first?.rawValue else {
            throw InputError(file: directory + "/" + RunManifest.fileName, "no estimator in this run")
        }
        return est
    }

    /// Builds one figure. `scenario` is required for the per-scenario kinds.
    public func figure(_ kind: FigureKind, scenario: String?, options: PlotOptions = PlotOptions()) throws -> any Figure {
        if kind == .leaderboard { return ResultFigures.leaderboard(manifest.leaderboard, simulatedLabels: Set(manifest.scenarios.map(\.name))) }
        guard let scenario else {
            throw InputError(file: directory + "/" + RunManifest.fileName, "the \(kind.rawValue) figure needs a scenario; scenarios: \(scenarioNames.joined(separator: ", "))\(realList)")
        }
        let file = resultsPath(scenario)
        // The entry (and so the scenario file) only for the floorplan figures: a real protocol has a cdf only.
        var e: RunManifest.ScenarioEntry { get throws { try entry(scenario) } }
        switch kind {
        case .cdf:
            return try ResultFigures.cdf(scenario: scenario, results: results(scenario), estimators: options.estimators, file: file,
                                         real: realNames.contains(scenario))
        case .map:
            return try ResultFigures.map(scenario: loadScenario(e), results: results(scenario), seed: options.seed, walk: options.walk,
                                         estimators: options.estimators, defaultEstimators: defaultMapEstimators, file: file)
        case .heatmap:
            return try ResultFigures.heatmap(scenario: loadScenario(e), results: results(scenario), estimator: oneEstimator(options), file: file)
        case .crlb:
            return ResultFigures.crlb(scenario: try loadScenario(e), map: try ResultsDirectory.readBoundMap(directory: directory, scenario: scenario))
        case .leaderboard:
            return ResultFigures.leaderboard(manifest.leaderboard, simulatedLabels: Set(manifest.scenarios.map(\.name)))
        case .errorTime:
            return try ResultFigures.errorOverTime(scenario: loadScenario(e), results: results(scenario), seed: options.seed, walk: options.walk,
                                                   estimators: options.estimators, defaultEstimators: defaultTrackEstimators, file: file)
        case .track:
            return try ResultFigures.track(scenario: loadScenario(e), results: results(scenario), estimator: oneEstimator(options), seed: options.seed,
                                           walk: options.walk, file: file)
        case .calibration, .beaconCount:
            throw InputError(file: directory, "the \(kind.rawValue) figure is not drawn from tournament results yet")
        }
    }

    /// Draws one figure to `<outputDirectory>/<scenario>-<kind>.<ext>` (`<kind>.<ext>` for the leaderboard).
    /// - Returns: the files written.
    public func draw(_ kind: FigureKind, scenario: String?, options: PlotOptions = PlotOptions(), outputDirectory: String) throws -> [String] {
        let f = try figure(kind, scenario: scenario, options: options)
        return try renderer.render(f, to: kind.basePath(directory: outputDirectory, scenario: scenario), formats: options.formats)
    }

    /// The kinds of the standard set, per scenario.
    public static let standardKinds: [FigureKind] = [.cdf, .map, .heatmap, .crlb, .errorTime, .track]

    /// The standard set: cdf, map, heatmap and crlb for every scenario of the run (error-time and track where it has
    /// walks), the cdf of every real protocol it saved, and the leaderboard.
    /// Every input is read and every figure built before the first file is written.
    public func drawStandardSet(outputDirectory: String, formats: [PlotFormat] = [.png, .svg]) throws -> [String] {
        var jobs: [(any Figure, String)] = [(ResultFigures.leaderboard(manifest.leaderboard, simulatedLabels: Set(manifest.scenarios.map(\.name))),
                                             FigureKind.leaderboard.basePath(directory: outputDirectory, scenario: nil))]
        let winner = manifest.leaderboard.winner?.rawValue ?? manifest.estimators.first?.rawValue
        for e in manifest.scenarios {
            let s = try loadScenario(e)
            let rs = try results(e.name)
            let file = resultsPath(e.name)
            jobs.append((try ResultFigures.cdf(scenario: e.name, results: rs, file: file),
                         FigureKind.cdf.basePath(directory: outputDirectory, scenario: e.name)))
            jobs.append((try ResultFigures.map(scenario: s, results: rs, defaultEstimators: defaultMapEstimators, file: file),
                         FigureKind.map.basePath(directory: outputDirectory, scenario: e.name)))
            if let winner, rs.contains(where: { $0.walk == "grid" }) {
                jobs.append((try ResultFigures.heatmap(scenario: s, results: rs, estimator: winner, file: file),
                             FigureKind.heatmap.basePath(directory: outputDirectory, scenario: e.name)))
            }
            jobs.append((ResultFigures.crlb(scenario: s, map: try ResultsDirectory.readBoundMap(directory: directory, scenario: e.name)),
                         FigureKind.crlb.basePath(directory: outputDirectory, scenario: e.name)))
            // Walks: error over time with the posterior bound, and the winner's track.
            if rs.contains(where: { $0.walk != "grid" }) {
                jobs.append((try ResultFigures.errorOverTime(scenario: s, results: rs, defaultEstimators: defaultTrackEstimators, file: file),
                             FigureKind.errorTime.basePath(directory: outputDirectory, scenario: e.name)))
                if let winner {
                    jobs.append((try ResultFigures.track(scenario: s, results: rs, estimator: winner, file: file),
                                 FigureKind.track.basePath(directory: outputDirectory, scenario: e.name)))
                }
            }
        }
        for name in realNames {
            jobs.append((try ResultFigures.cdf(scenario: name, results: results(name), file: resultsPath(name), real: true),
                         FigureKind.cdf.basePath(directory: outputDirectory, scenario: name)))
        }
        return try jobs.flatMap { try renderer.render($0.0, to: $0.1, formats: formats) }
    }
}
