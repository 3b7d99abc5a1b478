import ArgumentParser
import Foundation
import LabCore
import LabStore
import LabScenarioIO
import LabEstimators
import LabEvaluation
import LabReport
import LabPlot
import LabResults

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Run the tournament: every estimator on every scenario and seed, judged against the truth and the bound.",
        discussion: """
        Epochs come from each scenario's walks and from static test points on a grid over its rooms. Trackers (ekf, ekf-smoother, particle-filter, particle-smoother) get each walk whole and each test point as a new track; a walks table per scenario follows the leaderboard: errors on walk epochs (P75 while standing and while walking apart), the posterior Cramér–Rao bound, wall crossings, room-entry delay, jitter standing still and time to first fix (docs/tracking.md).

        Winner rule: \(Leaderboard.ruleText).

        Estimators:
        \(hangingList(EstimatorKind.allCases.map { ($0.rawValue, $0.summary) }))

        Example: indoorlab compare --seeds 10 --out out/compare
        """)

    @Argument(help: "Scenario files or bundled names (default: every bundled scenario).")
    var scenarios: [String] = []

    @Option(parsing: .unconditional, help: "Number of seeds per scenario (seeds S, S+1, …, S+N−1 with S from --seed), 1–\(Compare.maximumSeeds). With --real, the particle filters run on the real protocols once per seed too, and their figures there pool the seeds.")
    var seeds: Int = 10

    /// The leaderboard keeps every fix of every seed in memory, so the seeds are bounded (docs/tournament.md,
    /// "Running it").
    static let maximumSeeds = 200

    @Option(parsing: .unconditional, help: "First seed (default: 1).", transform: parseSeed)
    var seed: UInt64 = 1

    @Option(help: "Comma-separated estimators (default: all).", transform: EstimatorList.parse)
    var estimators: [EstimatorKind] = EstimatorKind.allCases

    @Option(help: "Comma-separated conditions: ideal (the model the estimators know), field (unknown phone offset, beacon spread, outliers, body shadowing; see docs/scenario-format.md). Default: ideal.",
            transform: Compare.parseConditions)
    var conditions: [SimulationCondition] = [.ideal]

    @Option(help: "Also score the real datasets in this directory (uji-ble-geo, danis-ble-tracks) under protocols whose radio model comes from another part of the data, e.g. ../shared/datasets. The estimators that draw random numbers (the particle filters) run once per seed; the others, whose fixes no seed changes, once. Trackers follow each recording whole, in time order (UJI: the surveyor's walk, standing at each reference point).")
    var real: String?

    /// The longest estimator name, for the help's list.

    static func parseConditions(_ text: String) throws -> [SimulationCondition] {
        try refusingRepeats(text.split(separator: ",").map {
            let name = $0.trimmingCharacters(in: .whitespaces)
            guard let c = SimulationCondition(rawValue: name) else {
                throw ValidationError("unknown condition '\(name)'; known: \(SimulationCondition.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return c
        }, \.rawValue)
    }

    @Flag(help: "Print the leaderboard as JSON.")
    var json = false

    @Option(help: "Write per-epoch results (<scenario>-epochs.csv, also per real protocol) and run.json here, for plots and later comparisons (docs/results-format.md).")
    var out: String?

    @Option(help: "Write the full results as a Markdown document here (what `make demo` keeps in docs/results.md): the winner, the leaderboard by condition and real protocol, P75 per scenario, the winner against the bound, the matched-calibration reference and every table printed.")
    var report: String?

    @Option(help: "Draw the standard figures (cdf, map, heatmap, crlb, error-time, track per scenario, cdf per real protocol, and the leaderboard) here, from the saved results.")
    var plots: String?

    func validate() throws {
        guard (1...Compare.maximumSeeds).contains(seeds) else {
            throw ValidationError("--seeds must be between 1 and \(Compare.maximumSeeds), found \(seeds): \(seeds < 1 ? "a run needs at least one seed" : "every fix of every seed is kept for the leaderboard (about 20 MB per seed with the bundled scenarios); run more seeds as several runs with --seed")")
        }
        if seeds > 1, seed > UInt64.max - UInt64(seeds - 1) {
            throw ValidationError("--seed \(seed) with --seeds \(seeds) runs past the last seed, \(UInt64.max)")
        }
        guard !conditions.isEmpty else { throw ValidationError("--conditions needs at least one of ideal, field") }
        guard !estimators.isEmpty else { throw ValidationError("--estimators needs at least one estimator") }
        if let real {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), isDirectory.boolValue else {
                let what = FileManager.default.fileExists(atPath: real) ? "is a file, not a directory" : "no such directory"
                throw ValidationError("--real \(real): \(what) (give the folder that holds uji-ble-geo and danis-ble-tracks, e.g. ../shared/datasets)")
            }
            guard RealProtocols.present(in: real) else {
                throw ValidationError("--real \(real): found neither uji-ble-geo/dep/geo.csv nor danis-ble-tracks/trk/*_all_sensors.mbd there")
            }
        }
    }

    /// This run as a reader would type it (for the results document): the options that change the results.
    var commandLine: String {
        var words = ["indoorlab compare"] + scenarios
        words.append("--seeds \(seeds)")
        if seed != 1 { words.append("--seed \(seed)") }
        if estimators != EstimatorKind.allCases { words.append("--estimators \(estimators.map(\.rawValue).joined(separator: ","))") }
        words.append("--conditions \(conditions.map(\.rawValue).joined(separator: ","))")
        if let real { words.append("--real \(real)") }
        return words.joined(separator: " ")
    }

    /// Refuses a scenario file the run would write over: one in --out named like its results (run.json,
    /// *-epochs.csv, *-crlb-map.json), or one in --plots named like a figure (*.png, *.svg).
    func checkInputsAreNotOutputs(_ paths: [String]) throws {
        for path in paths {
            let name = URL(fileURLWithPath: path).lastPathComponent, dir = parentPath(path).isEmpty ? "." : parentPath(path)
            if let out, samePath(dir, out), name == "run.json" || name.hasSuffix("-epochs.csv") || name.hasSuffix("-crlb-map.json") {
                throw InputError(file: path, "is an input, and --out \(out) holds the results under names like it: choose another --out")
            }
            if let plots, samePath(dir, plots), name.hasSuffix(".png") || name.hasSuffix(".svg") {
                throw InputError(file: path, "is an input, and --plots \(plots) holds the figures under names like it: choose another --plots")
            }
        }
    }

    func run() throws {
        let paths = scenarios.isEmpty ? BundledScenarios.paths() : scenarios.map(BundledScenarios.resolve)
        guard !paths.isEmpty else { throw ValidationError("no scenarios given, and \(BundledScenarios.noneFound)") }
        let loaded = try paths.map { try loadScenario($0) }
        let fingerprints = paths.map(RunManifest.ScenarioEntry.fingerprint(ofFileAt:))
        try reportingInputErrors { try checkInputsAreNotOutputs(paths) }
        let directories = try reportingInputErrors { try OutputDirectories([("--out", out), ("--plots", plots)]) }
        var succeeded = false
        defer { directories.finish(succeeded: succeeded) }
        let seedList = (0..<seeds).map { seed + UInt64($0) }  // validate() keeps it below UInt64.max
        let tournament = Tournament(scenarios: loaded, seeds: seedList, estimators: estimators, conditions: conditions)
        try checkDistinctNames(loaded, paths: paths)
        let progress = Progress("compare: scenario × seed", total: tournament.jobCount)
        let start = Date()
        var results = try tournament.run { name, seed in progress.advance(detail: "\(name), seed \(seed)") }
        var labels = tournament.labels
        var protocols: [RealProtocol] = []
        var references: [(name: String, results: [EpochResult])] = []
        if let real {
            let set = try reportingInputErrors { try RealProtocolSet(datasets: real) }
            if let clash = set.scored.first(where: { labels.contains($0.name) }) {
                throw ValidationError("a scenario is named '\(clash.name)', as a real protocol of --real is: results are kept by name, so rename the scenario")
            }
            guard !set.scored.isEmpty else { throw ValidationError("--real \(real): found neither uji-ble-geo nor danis-ble-tracks there") }
            if !estimators.contains(where: Leaderboard.baselines.contains) {
                printError("compare: no baseline among --estimators (\(Leaderboard.baselines.map(\.rawValue).joined(separator: ", "))): the collapse test on real protocols is skipped")
            }
            let scored = try reportingInputErrors { try set.run(estimators: estimators, seeds: seedList) { progress.note("real protocol \($0)") } }
            progress.clear()
            protocols = set.scored
            references = scored.references
            results += scored.results
            labels += protocols.map(\.name)
        }
        let elapsed = Date().timeIntervalSince(start)
        let venues = Dictionary(uniqueKeysWithValues: loaded.flatMap { s in conditions.map { ($0.label(s.name), Venue(s, condition: $0)) } })
        let board = Leaderboard(results: results, scenarios: labels, seeds: seedList, realProtocols: Set(protocols.map(\.name)), venues: venues)

        // What the run prints, one block a line as it always printed them.
        var printed = LeaderboardTable.render(board) + "\n"
        if let tracking = board.tracking, !tracking.isEmpty { printed += LeaderboardTable.tracking(tracking) + "\n" }
        for p in protocols { printed += "\(p.name): \(p.summary); \(RealProtocol.scoredScans)\n" }
        let drawing = estimators.filter(\.inputs.draws)
        if !protocols.isEmpty, seedList.count > 1, !drawing.isEmpty {
            printed += "real protocols: \(drawing.map(\.rawValue).joined(separator: ", ")) (which draw random numbers) ran once per seed, their figures pooled over the \(seedList.count) seeds; the other estimators, whose fixes no seed changes, once\n"
        }
        if references.contains(where: { $0.name.hasSuffix("-matched") }) { printed += LeaderboardTable.matchedReference(board, references: references) + "\n" }
        if references.contains(where: { $0.name.hasSuffix("-surveyed") }) { printed += LeaderboardTable.surveyedReference(board, references: references) + "\n" }
        if let report {
            let document = ResultsDocument(command: commandLine, leaderboard: board, protocols: protocols.map { ($0.name, $0.summary) },
                                           references: references, printed: printed)
            try writeOutput(document.render(), to: report, inputs: paths)
        }
        if json {
            try writeOutput(try LabJSON.string(board), to: nil)
        } else {
            print(printed, terminator: "")
            // Distinct epochs: a real protocol's scans count once, however many seeds its particle filters ran.
            let real = Set(protocols.map(\.name))
            let epochs = Set(results.lazy.map { EpochKey(scenario: $0.scenario, seed: real.contains($0.scenario) ? 0 : $0.seed, walk: $0.walk, epoch: $0.epoch) }).count
            print("\(counted(epochs, "epoch")) × \(counted(estimators.count, "estimator")) in \(String(format: "%.1f", elapsed)) s")
        }
        // Plots read saved results, never the run in memory: with --plots and no --out, save to a temporary directory.
        let resultsDir = out ?? (plots != nil ? NSTemporaryDirectory() + "indoorlab-compare-\(ProcessInfo.processInfo.processIdentifier)" : nil)
        if let resultsDir {
            let manifest = RunManifest(scenarios: loaded.indices.flatMap { i in
                                           conditions.map { .init(name: $0.label(loaded[i].name), path: paths[i], fingerprint: fingerprints[i]) }
                                       },
                                       real: protocols.map { .init(name: $0.name, summary: $0.summary) },
                                       seeds: seedList, estimators: estimators, leaderboard: board)
            let maps = Dictionary(uniqueKeysWithValues: loaded.flatMap { s in conditions.map { ($0.label(s.name), BoundMapper.map(s, condition: $0)) } })
            try ResultsDirectory.write(results: results, boundMaps: maps, manifest: manifest, to: resultsDir)
        }
        var figures: [String] = []
        if let plots, let resultsDir {
            figures = try reportingInputErrors { try StandardPlots.drawAll(resultsDirectory: resultsDir, outputDirectory: plots) }
            if out == nil { try? FileManager.default.removeItem(atPath: resultsDir) }
        }
        succeeded = true
        if !json {
            if let out { print("results written to \(out)/") }
            if let plots { print("\(figures.count) figures written to \(plots)/") }
        }
    }
}

/// One scored epoch, whichever estimators scored it.
private struct EpochKey: Hashable {
    let scenario: String, seed: UInt64, walk: String, epoch: Int
}

enum EstimatorList {
    /// Comma-separated names; `all` stands for every estimator.
    static func parse(_ text: String) throws -> [EstimatorKind] {
        if text.trimmingCharacters(in: .whitespaces) == "all" { return EstimatorKind.allCases }
        guard text.contains(where: { $0 != "," && !$0.isWhitespace }) else { throw ValidationError("expected at least one estimator (or 'all'), found '\(text)'") }
        return try refusingRepeats(text.split(separator: ",").map { name in
            guard let k = EstimatorKind(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("unknown estimator '\(name)'\(didYouMean(String(name), among: EstimatorKind.allCases.map(\.rawValue))); known: \(EstimatorKind.knownNames)")
            }
            return k
        }, \.rawValue)
    }
}
