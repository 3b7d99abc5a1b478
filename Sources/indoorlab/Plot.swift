import ArgumentParser
import Foundation
import LabCore
import LabStore
import LabScenarioIO
import LabEstimators
import LabEvaluation
import LabPlot
import LabSimulation
import LabReport

struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw figures from saved results (PNG and SVG): cdf, map, heatmap, crlb, error-time, track, leaderboard, all; or offset-learning.",
        discussion: """
        Reads what 'compare --out DIR' wrote (run.json, <scenario>-epochs.csv,
        <scenario>-crlb-map.json) and recomputes nothing; only 'crlb --scenario S'
        without --results computes the bound map from the scenario. Writes
        <out-dir>/<scenario>-<kind>.png and .svg (leaderboard: <out-dir>/leaderboard.*).
          cdf          error CDF of each estimator, P75 marked (also for the
                       run's real protocols, which have no floorplan figures)
          map          floorplan, one walk's true path and fixes (one seed)
          heatmap      one estimator's mean error per test point, all seeds
          crlb         √CRLB over the floorplan, from <scenario>-crlb-map.json
                       (--scenario without --results: from the scenario file)
          error-time   error over time along one walk (one seed) per estimator,
                       under the posterior bound √PCRB (default: the winner,
                       particle-filter, ekf and the best snapshot estimator)
          track        one estimator's fixes along one walk (default: the
                       winner), coloured by time, with the 95% ellipse of its
                       stated covariance every few seconds and the true path
          leaderboard  P75 per estimator per scenario
          all          cdf, map, heatmap, crlb, error-time, track per scenario,
                       cdf per real protocol, and the leaderboard
          offset-learning
                       simulates, takes no --results: the library's one-scan
                       fix (offset-learning) learning an unknown phone offset
                       scan by scan along a walk of --scenario (default
                       museum-gallery), one walk per seed; --offset (default
                       15 dB; negative: --offset -15), --runs, --scans,
                       --all-impairments, --json
        Without --scenario, a per-scenario kind is drawn for every scenario of the run.
        Examples: indoorlab plot map --results out/compare --scenario museum-gallery
                  indoorlab plot track --results out/compare \\
                      --scenario killian-court@field --estimator particle-filter
                  indoorlab plot offset-learning --offset -15 --scenario smart-home
        """)

    @Argument(help: "cdf, map, heatmap, crlb, error-time, track, leaderboard, all or offset-learning.")
    var kind: String

    @Option(help: "Results directory written by 'indoorlab compare --out'.")
    var results: String?

    @Option(help: "Scenario name (as in the run), or for crlb without --results a scenario file or bundled name.")
    var scenario: String?

    @Option(help: "cdf: estimators to show (default: all); map: whose fixes (default: the winner and least-squares); error-time: whose errors.",
            transform: EstimatorList.parse)
    var estimators: [EstimatorKind]?

    @Option(help: "heatmap: whose error; track: whose track (default: the leaderboard's winner).", transform: { try EstimatorList.parse($0) })
    var estimator: [EstimatorKind]?

    @Option(parsing: .unconditional, help: "map, error-time, track: the seed whose fixes are drawn (default: the run's first seed); offset-learning: the first seed (default 1).")
    var seed: UInt64?

    @Option(help: "map, error-time, track, offset-learning: the walk (default: the scenario's first walk).")
    var walk: String?

    @Option(parsing: .unconditional, help: "offset-learning: the phone's true offset, dB (default: 15).")
    var offset: Double?

    @Flag(help: "offset-learning: every field impairment of the scenario on, not the offset alone (what is learned is then the apparent offset).")
    var allImpairments = false

    @Option(parsing: .unconditional, help: "offset-learning: walks (seeds --seed, --seed + 1, …; default: 10).")
    var runs: Int?

    @Option(parsing: .unconditional, help: "offset-learning: scans per walk (default: 60).")
    var scans: Int?

    @Flag(help: "offset-learning: also print the curves as JSON (then standard output is the JSON alone, and the figures' paths go to standard error).")
    var json = false

    @Option(name: .customLong("out-dir"), help: "Directory for the figures, created if missing (make demo draws the committed ones into Plots/ with --out-dir Plots).")
    var outDir: String = "out/plots"

    @Option(help: "Comma-separated formats: png, svg (default: both).", transform: Plot.parseFormats)
    var format: [PlotFormat] = [.png, .svg]

    static let kinds = ["cdf", "map", "heatmap", "crlb", "error-time", "track", "leaderboard", "all", "offset-learning"]

    var offsetDB: Double { offset ?? 15 }
    var runCount: Int { runs ?? 10 }
    var scanCount: Int { scans ?? 60 }

    /// The options each figure kind reads: one given to a kind that does not read it is refused rather than ignored (a
    /// user who asks for `cdf --offset 3` would take the figure for one with that offset).
    var optionsGiven: [(given: Bool, option: String, kinds: [String])] {
        [(scenario != nil, "--scenario", ["cdf", "map", "heatmap", "crlb", "error-time", "track", "offset-learning"]),
         (estimators != nil, "--estimators", ["cdf", "map", "error-time"]),
         (estimator != nil, "--estimator", ["heatmap", "track"]),
         (seed != nil, "--seed", ["map", "error-time", "track", "offset-learning"]),
         (walk != nil, "--walk", ["map", "error-time", "track", "offset-learning"]),
         (offset != nil, "--offset", ["offset-learning"]),
         (allImpairments, "--all-impairments", ["offset-learning"]),
         (runs != nil, "--runs", ["offset-learning"]),
         (scans != nil, "--scans", ["offset-learning"]),
         (json, "--json", ["offset-learning"])]
    }

    static func parseFormats(_ text: String) throws -> [PlotFormat] {
        try text.split(separator: ",").map {
            guard let f = PlotFormat(rawValue: $0.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw ValidationError("unknown format '\($0)'; known: png, svg")
            }
            return f
        }
    }

    func validate() throws {
        guard Plot.kinds.contains(kind) else {
            let later = FigureKind(rawValue: kind).map { " ('\($0.rawValue)' is not drawn from tournament results yet)" } ?? ""
            throw ValidationError("unknown figure '\(kind)'\(later); known: \(Plot.kinds.joined(separator: ", "))")
        }
        if let estimator, estimator.count != 1 { throw ValidationError("--estimator takes one estimator") }
        for o in optionsGiven where o.given && !o.kinds.contains(kind) {
            throw ValidationError("\(o.option) does not apply to '\(kind)' (it applies to \(o.kinds.joined(separator: ", ")))")
        }
        if kind == "offset-learning" {
            guard results == nil else { throw ValidationError("offset-learning simulates; it takes no --results") }
            guard offsetDB.isFinite, abs(offsetDB) <= 60 else { throw ValidationError("--offset must be a finite number of dB within ±60") }
            guard (1...1000).contains(runCount) else { throw ValidationError("--runs must be between 1 and 1000") }
            if let seed, seed > UInt64.max - UInt64(runCount - 1) {
                throw ValidationError("--seed \(seed) with --runs \(runCount) runs past the last seed, \(UInt64.max)")
            }
            guard (1...100_000).contains(scanCount) else { throw ValidationError("--scans must be between 1 and 100000") }
            if runCount * scanCount > WorkBudget.maximumLearningFixes {
                throw ValidationError("--runs \(runCount) × --scans \(scanCount) is \(runCount * scanCount) fixes; the budget is \(WorkBudget.maximumLearningFixes) (fewer runs or scans)")
            }
        } else if results == nil && !(kind == "crlb" && scenario != nil) {
            throw ValidationError("--results DIR is required (run 'indoorlab compare --out DIR' first); only crlb can do with --scenario alone")
        }
        if format.isEmpty { throw ValidationError("--format needs at least one of png, svg") }
    }

    func run() throws {
        let directories = try reportingInputErrors { try OutputDirectories([("--out-dir", outDir)]) }
        var succeeded = false
        defer { directories.finish(succeeded: succeeded) }
        do {
            // With --json, standard output is the JSON alone; the figures' paths go to standard error.
            for path in try reportingInputErrors(draw) { if json { printError(path) } else { print(path) } }
            succeeded = true
        } catch let e as PlotError {
            printError("error: \(e)")
            throw badInputExit
        }
    }

    private func draw() throws -> [String] {
        if kind == "offset-learning" {
            let s = try BundledScenarios.load(scenario ?? "museum-gallery")
            let first = seed ?? 1
            let curve = try OffsetLearningCurve.measure(scenario: s, walk: walk, offset: offsetDB,
                                                        allImpairments: allImpairments, seeds: (0..<runCount).map { first + UInt64($0) }, scans: scanCount)
            guard curve.runs.contains(where: { $0.learned.contains(where: \.isFinite) }) else {
                printError("error: plot offset-learning: with a \(Format.fixed(offsetDB, 0)) dB phone no scan of \(s.name) gave a fix, so nothing was learned")
                throw ExitCode(1)
            }
            if json { print(try LabJSON.string(curve)) }
            let figure = OffsetLearningFigure.make(curve)
            return try PlotRenderer.shared.render(figure, to: outDir + "/\(s.name)-offset-learning", formats: format)
        }
        guard let results else {
            // crlb straight from a scenario file.
            let s = try BundledScenarios.load(scenario!)
            return try PlotRenderer.shared.render(ResultFigures.crlb(scenario: s, map: BoundMapper.map(s)),
                                                  to: FigureKind.crlb.basePath(directory: outDir, scenario: s.name), formats: format)
        }
        let plotter = try StandardPlots.plotter(resultsDirectory: results)
        if kind == "all" { return try plotter.drawStandardSet(outputDirectory: outDir, formats: format) }
        let k = FigureKind(rawValue: kind)!
        let options = PlotOptions(estimators: estimators?.map { $0.rawValue }, estimator: estimator?.first?.rawValue,
                                  seed: seed, walk: walk, formats: format)
        if !k.isPerScenario || scenario != nil {
            return try plotter.draw(k, scenario: scenario, options: options, outputDirectory: outDir)
        }
        // Every scenario: build every figure first so that bad input writes nothing.
        // (cdf also for the run's real protocols, which have no floorplan for the other kinds).
        let names = plotter.scenarioNames + (k == .cdf ? plotter.realNames : [])
        let figures = try names.map { ($0, try plotter.figure(k, scenario: $0, options: options)) }
        return try figures.flatMap { name, f in
            try PlotRenderer.shared.render(f, to: k.basePath(directory: outDir, scenario: name), formats: format)
        }
    }
}
