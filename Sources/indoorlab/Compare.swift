import ArgumentParser
import Foundation
import LabCore
import LabStore
import LabScenarioIO
import LabEstimators
import LabEvaluation

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the tournament: every estimator on every scenario and seed, judged against the truth and the bound.",
        discussion: """
        Epochs come from each scenario's walks and from static test points on a grid over its rooms. Trackers (ekf, ekf-smoother, particle-filter, particle-smoother) get each walk whole and each test point as a new track; a walks table per scenario follows the leaderboard: errors on walk epochs, the posterior Cramér–Rao bound, wall crossings, room-entry delay, jitter standing still and time to first fix (docs/tracking.md).

        Winner rule: \(Leaderboard.ruleText).

        Estimators:
        \(hangingList(EstimatorKind.allCases.map { ($0.rawValue, $0.summary) }))

        Example: indoorlab compare --seeds 10 --out out/compare
        """)

    @Argument(help: "Scenario files or bundled names (default: every bundled scenario).")
    var scenarios: [String] = []

    @Option(parsing: .unconditional, help: "Number of seeds per scenario (seeds S, S+1, …, S+N−1 with S from --seed), 1–\(Compare.maximumSeeds). With --real, the particle filters run on the real protocols once per seed too, and their figures there pool the seeds.")
    var seeds: Int = 10

    /// The leaderboard keeps every fix of every seed in memory: about 20 MB per seed for the five bundled
    /// scenarios in both conditions (`/usr/bin/time -f %M indoorlab compare --seeds 2` and `--seeds 6`).
    static let maximumSeeds = 200

    @Option(parsing: .unconditional, help: "First seed (default: 1).", transform: parseSeed)
    var seed: UInt64 = 1

    @Option(help: "Comma-separated estimators (default: all).", transform: EstimatorList.parse)
    var estimators: [EstimatorKind] = EstimatorKind.allCases

    @Option(help: "Comma-separated conditions: ideal (the model the estimators know), field (unknown phone offset, beacon spread, outliers, body shadowing; see docs/scenario-format.md). Default: ideal.",
            transform: Compare.parseConditions)
    var conditions: [SimulationCondition] = [.ideal]

    @Option(help: "Also score the real datasets in this directory (uji-ble-geo, danis-ble-tracks) under protocols whose radio model comes from another part of the data, e.g. ../shared/datasets. The estimators that draw random numbers (the particle filters) run once per seed; the others, whose fixes no seed changes, once.")
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
            let scratch = NSTemporaryDirectory() + "indoorlab-real-\(ProcessInfo.processInfo.processIdentifier)"
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            let all = try reportingInputErrors { try RealProtocols.bundled(datasets: real, scratch: scratch, includeMatched: true) }
            protocols = all.filter { !$0.matched }
            if let clash = protocols.first(where: { labels.contains($0.name) }) {
                throw ValidationError("a scenario is named '\(clash.name)', as a real protocol of --real is: results are kept by name, so rename the scenario")
            }
            for p in all where p.matched { references.append((p.name, try reportingInputErrors { try p.run(estimators: estimators, seeds: seedList) })) }
            guard !protocols.isEmpty else { throw ValidationError("--real \(real): found neither uji-ble-geo nor danis-ble-tracks there") }
            if !estimators.contains(where: Leaderboard.baselines.contains) {
                FileHandle.standardError.write(Data("compare: no baseline among --estimators (\(Leaderboard.baselines.map(\.rawValue).joined(separator: ", "))): the collapse test on real protocols is skipped\n".utf8))
            }
            for p in protocols {
                progress.note("real protocol \(p.name)")
                results += try reportingInputErrors { try p.run(estimators: estimators, seeds: seedList) }
                labels.append(p.name)
            }
            progress.clear()
        }
        let elapsed = Date().timeIntervalSince(start)
        let venues = Dictionary(uniqueKeysWithValues: loaded.flatMap { s in conditions.map { ($0.label(s.name), Venue(s, condition: $0)) } })
        let board = Leaderboard(results: results, scenarios: labels, seeds: seedList, realProtocols: Set(protocols.map(\.name)), venues: venues)

        if json {
            try writeOutput(try LabJSON.string(board), to: nil)
        } else {
            print(LeaderboardTable.render(board))
            if let tracking = board.tracking, !tracking.isEmpty { print(LeaderboardTable.tracking(tracking)) }
            for p in protocols { print("\(p.name): \(p.summary); scans with ≥ \(RealProtocol.minimumBeaconsHeard) beacons heard") }
            let drawing = estimators.filter(\.inputs.draws)
            if !protocols.isEmpty, seedList.count > 1, !drawing.isEmpty {
                print("real protocols: \(drawing.map(\.rawValue).joined(separator: ", ")) (which draw random numbers) ran once per seed, their figures pooled over the \(seedList.count) seeds; the other estimators, whose fixes no seed changes, once")
            }
            if !references.isEmpty { print(LeaderboardTable.matchedReference(board, references: references)) }
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

enum LeaderboardTable {
    /// A figure in metres to two decimals, or a dash when there is none.
    static func m(_ v: Double) -> String { v.isFinite ? Format.fixed(v, 2) : "—" }

    static func render(_ b: Leaderboard) -> String {
        func pct(_ v: Double?) -> String { v.map { Format.fixed($0 * 100, 0) + "%" } ?? "—" }
        let cols = ["estimator", "avail", "mean", "CE50", "P75", "P90", "CE95", "RMSE", "max", "room", "exhibit", "frieze", "√CRLB", "eff"]
        var out = ""
        for s in b.scenarios {
            out += "\n\(s)\n"
            var rows = [cols]
            for sc in b.scores where sc.scenario == s {
                let st = sc.stats
                rows.append([sc.estimator.rawValue, pct(st.availability), m(st.mean), m(st.median), m(st.p75), m(st.p90),
                             m(st.p95), m(st.rmse), m(st.max), pct(sc.roomHitRate), pct(sc.exhibitHitRate),
                             pct(sc.friezeHitRate), sc.crlbRMSE.map(m) ?? "—", sc.efficiency.map { Format.fixed($0, 2) } ?? "—"])
            }
            out += table(rows)
        }
        out += "\noverall (errors in metres; \(b.seeds.count) seed\(b.seeds.count == 1 ? "" : "s"))\n"
        var rows = [["rank", "estimator", "mean P75", "mean RMSE", "min avail", "eligible"]]
        for (i, o) in b.overall.enumerated() {
            rows.append(["\(i + 1)", o.estimator.rawValue, m(o.meanP75), m(o.meanRMSE), pct(o.minAvailability), eligibility(o, in: b)])
        }
        out += table(rows)
        out += "\nwinner: \(b.winner?.rawValue ?? "none") — rule: \(b.rule)\n"
        if let w = b.winner, w.inputs.uses.contains(.motion), let snapshot = b.bestSnapshot {
            // The library's one-scan fix is always the shipped estimator; the run's best snapshot is it only when it won.
            let shipped = snapshot == .shipped ? "; the library's one-scan fix" : ""
            out += "best snapshot estimator (each fix from its own scan\(shipped)): \(snapshot.rawValue)\n"
        }
        out += "eff = RMSE / √(mean CRLB), the bound for unbiased estimators given what each epoch received; below 1 means a biased estimator (fixes kept inside the venue, pulled toward the beacons) or few epochs, not a beaten bound\n"
        return out
    }

    /// The leaderboard's "eligible" column: yes, or why not (the winner rule's first clause it fails).
    static func eligibility(_ o: Leaderboard.Overall, in b: Leaderboard) -> String {
        if o.eligible { return "yes" }
        if o.estimator.inputs.offline { return "no: offline (uses later scans)" }
        if !o.collapsedOn.isEmpty { return "no: collapses on \(o.collapsedOn.joined(separator: ", "))" }
        let mine = b.scores.filter { $0.estimator == o.estimator }
        if let worst = mine.min(by: { $0.stats.availability < $1.stats.availability }),
           worst.stats.availability < Leaderboard.availabilityThreshold {
            let more = mine.filter { $0.stats.availability < Leaderboard.availabilityThreshold }.count - 1
            return "no: \(Format.fixed(worst.stats.availability * 100, 1))% available in \(worst.scenario)\(more > 0 ? " and \(more) more" : "")"
                + " (needs \(Format.fixed(Leaderboard.availabilityThreshold * 100, 0))%)"
        }
        return "no: no P75 in \(mine.filter { !$0.stats.p75.isFinite }.map(\.scenario).joined(separator: ", "))"
    }

    /// The walks' table per scenario: errors on walk epochs only, the posterior bound, and how the fixes move; then
    /// the best tracker against the best snapshot estimator.
    static func tracking(_ scores: [TrackScore]) -> String {
        func m(_ v: Double?) -> String { v.map { $0.isFinite ? Format.fixed($0, 2) : "—" } ?? "—" }
        func pct(_ v: Double?) -> String { v.map { Format.fixed($0 * 100, 1) + "%" } ?? "—" }
        var out = "\nwalks: errors on walk epochs only (m), the posterior bound (√PCRB, m; eff = RMSE/√PCRB), wall crossings between consecutive fixes, room-entry delay (s; missed entries), jitter standing still (m), time to first fix (s)\n"
        var scenarios: [String] = []
        for s in scores where !scenarios.contains(s.scenario) { scenarios.append(s.scenario) }
        for name in scenarios {
            let mine = scores.filter { $0.scenario == name }
            out += "\n\(name) walks\n"
            var rows = [["estimator", "P75", "RMSE", "√PCRB", "eff", "wall-x", "room delay", "missed", "jitter", "TTFF"]]
            for s in mine {
                let t = s.metrics
                rows.append([s.estimator.rawValue, m(t.p75), m(t.rmse), m(t.pcrbRMSE), m(t.pcrbEfficiency), pct(t.wallCrossingRate),
                             m(t.roomEntryDelay), "\(t.missedRoomEntries)/\(t.roomEntries)", m(t.stillJitter), m(t.timeToFirstFix)])
            }
            out += table(rows)
            let trackers = mine.filter { $0.estimator.inputs.uses.contains(.motion) && $0.metrics.p75.isFinite }
            let snapshots = mine.filter { !$0.estimator.inputs.uses.contains(.motion) && $0.metrics.p75.isFinite }
            if let t = trackers.min(by: { $0.metrics.p75 < $1.metrics.p75 }), let s = snapshots.min(by: { $0.metrics.p75 < $1.metrics.p75 }) {
                out += "best tracker \(t.estimator.rawValue)\(t.estimator.inputs.offline ? " (offline)" : "") P75 \(m(t.metrics.p75)) vs the best snapshot estimator on these walks, \(s.estimator.rawValue), \(m(s.metrics.p75)): ratio \(Format.fixed(t.metrics.p75 / s.metrics.p75, 2))\n"
            }
        }
        return out
    }

    /// Mean error under the cross-calibrated protocol against the same scans with the matching calibration
    /// (the reference; not part of the winner rule).
    static func matchedReference(_ b: Leaderboard, references: [(name: String, results: [EpochResult])]) -> String {
        var rows = [["estimator"] + references.flatMap { r in
            let cross = String(r.name.dropLast("-matched".count))
            return ["\(cross) mean", "matched", "ratio"]
        }]
        for e in b.overall.map(\.estimator) {
            var row = [e.rawValue]
            for r in references {
                let cross = String(r.name.dropLast("-matched".count))
                let matched = ErrorStatistics(errors: r.results.filter { $0.estimator == e }.compactMap(\.error), attempts: 1).mean
                let crossMean = b.score(cross, e)?.stats.mean ?? .nan
                row += [m(crossMean), m(matched), matched > 0 && crossMean.isFinite ? Format.fixed(crossMean / matched, 2) : "—"]
            }
            rows.append(row)
        }
        return "\nreal data, cross-calibrated against the matching calibration (model fitted on the scored scans themselves; reference, not in the rule)\n" + table(rows)
    }

    /// A plain-text table, the first row its header: text columns left-aligned, numbers right-aligned (a number, a
    /// percentage, a number and its unit such as "2.46 m", or a dash for none); a column is text when no cell below
    /// the header is a number. No trailing blanks.
    static func table(_ rows: [[String]]) -> String {
        func isNumber(_ v: String) -> Bool {
            guard v != "—", v != "-", let first = v.split(separator: " ").first else { return true }
            return Double(first.hasSuffix("%") ? first.dropLast() : first) != nil
        }
        let widths = (0..<rows[0].count).map { c in rows.map { $0[c].count }.max() ?? 0 }
        let textColumns = Set((0..<rows[0].count).filter { c in rows.dropFirst().allSatisfy { !isNumber($0[c]) } })
        return rows.map { r in
            var line = r.enumerated().map { c, v in textColumns.contains(c) ? v.padding(toLength: widths[c], withPad: " ", startingAt: 0) : v.leftPad(widths[c]) }
                .joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n") + "\n"
    }
}
