import ArgumentParser
import Foundation
import LabCore
import LabScenarioIO
import LabEstimators
import LabEvaluation
import LabStore
import LabReport
import LabResults

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay recordings through the estimators and check the accuracy against the stored baselines.",
        discussion: """
        Each recording's samples are grouped into scan windows; windows with ground truth are scored as 'compare' scores them. Stored baselines (estimator, metric, value, tolerance) are checked: an error metric (mean, median, p75, p90, rmse; metres) regresses when it exceeds value + tolerance, a rate (availability, room-hit, exhibit-hit, frieze-hit) when it falls below value − tolerance.

        --update-baseline stores the current figures instead, with tolerance max(0.05 m, 10 %) for errors and 0.02 for rates, replacing the baselines of the estimators run. Baselines live in the recording and, for review, in NAME.baselines.json beside NAME.sqlite (sorted keys, one figure per entry): when that file exists replay checks against it; --update-baseline writes both.

        --strict (the CI gate): a recording with no baseline checked, or without both estimators the library ships among those checked (offset-learning, its one-scan fix; particle-filter, its stream), fails too. --junit FILE writes JUnit XML, one test case per recording × estimator × metric.

        Runs on one recording wait for each other's lock (INDOORLAB_BUSY_TIMEOUT seconds, default 30), so concurrent runs lose nothing; a write interrupted by a kill is rolled back on the next open.

        Exit codes: 0 every baseline holds (or was updated), 1 a regression (a table of what moved is printed) or a strict failure, 2 bad input (missing, non-SQLite, truncated, foreign or invalid file; the table, row and column are named), 3 a recording stayed locked past the wait.

        Default estimators: those with stored baselines, else all.
        Example: indoorlab replay --strict --junit out/replay.xml Recordings/*.sqlite
        """)

    @Argument(help: "Recording files.")
    var files: [String]

    @Option(help: "Comma-separated estimators, or 'all' (default: those with baselines, else all).", transform: EstimatorList.parse)
    var estimators: [EstimatorKind]?

    @Flag(help: "Print the results as JSON.")
    var json = false

    @Flag(help: "Store the current figures as the baselines.")
    var updateBaseline = false

    @Option(help: "Score with this radio model (a 'calibrate --save-fit' file) instead of each recording's own: a model fitted on other data.")
    var radio: String?

    @Flag(help: "The CI gate: also fail when a recording has no baseline checked or either estimator the library ships (the one-scan fix and the stream's tracker) is not among those checked.")
    var strict = false

    @Option(help: "Write the verdicts as JUnit XML here (one test case per recording × estimator × metric).")
    var junit: String?

    func validate() throws {
        if radio != nil && updateBaseline { throw ValidationError("--radio and --update-baseline do not go together: baselines hold the recording's own model") }
        if strict && updateBaseline { throw ValidationError("--strict checks baselines; --update-baseline replaces them: run one, then the other") }
        if junit != nil && updateBaseline { throw ValidationError("--junit reports checks; --update-baseline replaces the baselines instead of checking them") }
    }

    func run() throws {
        // Every file is read and checked before anything runs or is written.
        for (i, a) in files.enumerated() {
            if let b = files[..<i].first(where: { samePath(a, $0) }) {
                throw ValidationError("\(a) and \(b) are the same recording: give each recording once")
            }
        }
        let sidecars = files.map(BaselineFile.path(forRecording:))
        let inputs = files + sidecars + (radio.map { [$0] } ?? [])
        try reportingInputErrors { try checkOutput(junit, inputs: inputs) }
        var recordings = try reportingInputErrors { try files.map { try RecordingStore.read(path: $0) } }
        // The reviewable baselines file, when there is one, is what is checked.
        for (i, sidecar) in sidecars.enumerated() {
            if let b = try reportingInputErrors({ try BaselineFile.read(path: sidecar, recording: recordings[i].info.name) }) {
                recordings[i].baselines = b
            }
        }
        if let radio {
            let fit = try reportingInputErrors { try RadioFit.read(path: radio) }
            for i in recordings.indices {
                // A fit from another recording may know more beacons or materials than this one: said, not an error.
                let unused = fit.unused(by: recordings[i].venue)
                let parts = [unused.beacons.isEmpty ? nil : "beacon\(unused.beacons.count == 1 ? "" : "s") \(unused.beacons.joined(separator: ", "))",
                             unused.materials.isEmpty ? nil : "material\(unused.materials.count == 1 ? "" : "s") \(unused.materials.joined(separator: ", "))"].compactMap { $0 }
                if !parts.isEmpty { printError("note: \(radio): fits \(parts.joined(separator: " and ")), which \(files[i]) does not have: not used") }
                recordings[i].venue = fit.applied(to: recordings[i].venue, readings: recordings[i].rssi)
            }
        }
        var reports: [ReplayReport.Recording] = []
        var tables: [String] = []
        var regressions: [(String, BaselineCheck)] = []
        var strictFailures: [(String, String)] = []
        var suites: [JUnitReport.Suite] = []
        let results = recordings.map { RecordingReplay.run($0, estimators: estimators) }
        // A baseline of nothing (availability 0 of 0) would pass every later gate; checked before any is stored.
        if updateBaseline, let i = results.firstIndex(where: { r in !r.results.contains { $0.beaconsHeard > 0 } }) {
            try reportingInputErrors {
                throw InputError(file: files[i], "has no scored epoch that heard a beacon (a scan window with readings and ground truth): no baselines to store")
            }
        }
        for (i, (file, result)) in zip(files, results).enumerated() {
            var updated = false
            if updateBaseline {
                // Merged with the baselines of other estimators under the recording's lock, file and table together.
                try reportingInputErrors {
                    try RecordingStore.updateBaselines(BaselineJudge.baselines(from: result.scores), estimators: Set(result.estimators),
                                                       path: file, file: sidecars[i])
                }
                updated = true
            }
            if !updated { regressions += result.regressions.map { (file, $0) } }
            let problems = strict ? RecordingReplay.strictProblems(result) : []
            strictFailures += problems.map { (file, $0) }
            suites.append(JUnitReport.Suite(file: file, result: result, strict: strict, strictProblems: problems))
            reports.append(ReplayReport.Recording(file: file, result: result, baselinesUpdated: updated))
            tables.append(ReplayTable.scores(file: file, result: result, updated: updated))
        }
        if let junit { try writeOutput(JUnitReport.xml(suites), to: junit, inputs: inputs) }
        let passed = regressions.isEmpty && strictFailures.isEmpty
        if json {
            try writeOutput(jsonString(ReplayReport(recordings: reports, regressions: regressions.count,
                                                    strictFailures: strictFailures.map { "\($0.0): \($0.1)" }, passed: passed)), to: nil)
        } else {
            print(tables.joined(separator: "\n"))
            if !regressions.isEmpty {
                print("\nREGRESSIONS (\(regressions.count))")
                print(ReplayTable.regressions(regressions))
            }
            if regressions.isEmpty && !updateBaseline {
                let checked = reports.reduce(0) { $0 + $1.checks.count }
                print(checked > 1 ? "all \(checked) baselines hold" : checked == 1 ? "the 1 baseline holds"
                      : "no baselines stored: nothing checked (store them with --update-baseline)")
            }
            // Under --strict the last line is the verdict: a log's tail must not read as a pass when the gate failed.
            if !strictFailures.isEmpty {
                let ungated = Set(strictFailures.map(\.0)).count
                let count = "\(ungated) recording\(ungated == 1 ? "" : "s") not gated"
                print("\nSTRICT: \(count)")
                for (file, problem) in strictFailures { print("  \(file): \(problem)") }
                print("FAILED (--strict): \(count)" + (regressions.isEmpty ? "" : ", and \(regressions.count) regression\(regressions.count == 1 ? "" : "s")"))
            }
        }
        if !passed { throw ExitCode(1) }
    }
}

/// What `replay --json` prints.
struct ReplayReport: Encodable {
    struct Score: Encodable {
        var estimator: String
        var epochs: Int, fixes: Int
        var availability: Double
        var mean: Double?, median: Double?, p75: Double?, p90: Double?, p95: Double?, rmse: Double?, max: Double?
        var roomHitRate: Double?, exhibitHitRate: Double?, friezeHitRate: Double?
        /// Why no epoch got a fix (only when none did).
        var noFix: String?
        init(_ s: ScenarioScore, noFix: String?) {
            self.noFix = noFix
            func f(_ v: Double) -> Double? { v.isFinite ? v : nil }
            estimator = s.estimator.rawValue; epochs = s.stats.count; fixes = s.stats.fixes; availability = s.stats.availability
            mean = f(s.stats.mean); median = f(s.stats.median); p75 = f(s.stats.p75); p90 = f(s.stats.p90); p95 = f(s.stats.p95)
            rmse = f(s.stats.rmse); max = f(s.stats.max)
            roomHitRate = s.roomHitRate; exhibitHitRate = s.exhibitHitRate; friezeHitRate = s.friezeHitRate
        }
    }
    struct Check: Encodable {
        var estimator: String, metric: String, baseline: Double, now: Double?, change: Double?, tolerance: Double, status: String
        init(_ c: BaselineCheck) {
            estimator = c.estimator.rawValue; metric = c.metric.rawValue; baseline = c.baseline; now = c.now; change = c.change
            tolerance = c.tolerance; status = c.status.rawValue
        }
    }
    struct Recording: Encodable {
        var file: String, name: String, source: String, epochs: Int, windowsWithoutTruth: Int
        var scores: [Score]
        var checks: [Check]
        var baselinesUpdated: Bool
        init(file: String, result: RecordingReplay.Result, baselinesUpdated: Bool) {
            self.file = file; name = result.recording.name; source = result.recording.source.rawValue
            epochs = result.epochs; windowsWithoutTruth = result.windowsWithoutTruth
            scores = result.scores.map { Score($0, noFix: result.noFixes[$0.estimator]) }
            checks = baselinesUpdated ? [] : result.checks.map(Check.init)
            self.baselinesUpdated = baselinesUpdated
        }
    }
    var recordings: [Recording]
    var regressions: Int
    /// Strict-mode failures ("FILE: reason"); empty without --strict.
    var strictFailures: [String]
    var passed: Bool
}

enum ReplayTable {
    static func m(_ v: Double?) -> String { v.flatMap { $0.isFinite ? Format.fixed($0, 2) : nil } ?? "—" }
    static func pct(_ v: Double?) -> String { v.map { Format.fixed($0 * 100, 1) + "%" } ?? "—" }

    static func value(_ v: Double?, _ metric: String) -> String {
        guard let v else { return "—" }
        return BaselineMetric(rawValue: metric)?.higherIsBetter == true ? pct(v) : Format.fixed(v, 3)
    }

    static func scores(file: String, result r: RecordingReplay.Result, updated: Bool) -> String {
        var out = "\(file) — \(r.recording.name) (\(r.recording.source.rawValue)): \(counted(r.epochs, "epoch"))"
        if r.windowsWithoutTruth > 0 { out += ", \(counted(r.windowsWithoutTruth, "window")) without truth skipped" }
        out += "\n"
        var rows = [["estimator", "avail", "mean", "CE50", "P75", "P90", "RMSE", "room", "exhibit", "frieze", "baselines"]]
        for s in r.scores {
            let mine = r.checks.filter { $0.estimator == s.estimator }
            let status: String
            if updated { status = "updated" }
            else if mine.isEmpty { status = "none" }
            else {
                let bad = mine.filter { $0.status == .regression }.count
                status = bad > 0 ? "\(bad) REGRESSED" : "ok (\(mine.count))"
            }
            let st = s.stats
            rows.append([s.estimator.rawValue, pct(st.availability), m(st.mean), m(st.median), m(st.p75), m(st.p90), m(st.rmse),
                         pct(s.roomHitRate), pct(s.exhibitHitRate), pct(s.friezeHitRate), status])
        }
        out += TextTable.render(rows)
        for s in r.scores { if let why = r.noFixes[s.estimator] { out += "\(s.estimator.rawValue): \(why)\n" } }
        return out
    }

    static func regressions(_ list: [(String, BaselineCheck)]) -> String {
        var rows = [["recording", "estimator", "metric", "baseline", "now", "change", "tolerance"]]
        for (file, c) in list {
            let higher = c.metric.higherIsBetter
            let change = c.change.map { (higher ? Format.fixed($0 * 100, 1) + " pt" : ($0 >= 0 ? "+" : "") + Format.fixed($0, 3) + " m") } ?? "gone"
            let signedChange = higher && (c.change ?? 0) >= 0 ? "+" + change : change
            rows.append([file, c.estimator.rawValue, c.metric.rawValue, value(c.baseline, c.metric.rawValue),
                         value(c.now, c.metric.rawValue), signedChange,
                         higher ? Format.fixed(c.tolerance * 100, 1) + " pt" : Format.fixed(c.tolerance, 3) + " m"])
        }
        return TextTable.render(rows)
    }
}
