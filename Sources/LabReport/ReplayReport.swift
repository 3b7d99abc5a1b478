import LabCore
import LabEstimators
import LabResults
import LabStore
import LabEvaluation

/// What `replay --json` prints.
public struct ReplayReport: Encodable {
    public struct Score: Encodable {
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
    public struct Check: Encodable {
        var estimator: String, metric: String, baseline: Double, now: Double?, change: Double?, tolerance: Double, status: String
        init(_ c: BaselineCheck) {
            estimator = c.estimator.rawValue; metric = c.metric.rawValue; baseline = c.baseline; now = c.now; change = c.change
            tolerance = c.tolerance; status = c.status.rawValue
        }
    }
    public struct Recording: Encodable {
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

    public init(_ outcome: ReplayGate.Outcome) {
        recordings = outcome.verdicts.map { Recording(file: $0.file, result: $0.result, baselinesUpdated: $0.updated) }
        regressions = outcome.regressions.count
        strictFailures = outcome.strictFailures.map { "\($0.file): \($0.problem)" }
        passed = outcome.passed
    }
}

/// What `replay` prints.
public enum ReplayTable {
    static let m = Figures.metres
    static func pct(_ v: Double?) -> String { Figures.percent(v, digits: 1) }

    static func value(_ v: Double?, _ metric: String) -> String {
        guard let v else { return "—" }
        return BaselineMetric(rawValue: metric)?.higherIsBetter == true ? pct(v) : Format.fixed(v, 3)
    }

    public static func scores(file: String, result r: RecordingReplay.Result, updated: Bool) -> String {
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

    public static func regressions(_ list: [(String, BaselineCheck)]) -> String {
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

    /// Everything `replay` prints: each recording's scores, the regressions, and the verdict. Under --strict the last
    /// line is the verdict, so that a log's tail never reads as a pass when the gate failed.
    public static func render(_ outcome: ReplayGate.Outcome, updatingBaselines: Bool) -> String {
        var out = outcome.verdicts.map { scores(file: $0.file, result: $0.result, updated: $0.updated) }.joined(separator: "\n") + "\n"
        let regressions = outcome.regressions
        if !regressions.isEmpty {
            out += "\nREGRESSIONS (\(regressions.count))\n"
            out += self.regressions(regressions.map { ($0.file, $0.check) }) + "\n"
        }
        if regressions.isEmpty && !updatingBaselines {
            let checked = outcome.verdicts.reduce(0) { $0 + ($1.updated ? 0 : $1.result.checks.count) }
            out += (checked > 1 ? "all \(checked) baselines hold" : checked == 1 ? "the 1 baseline holds"
                    : "no baselines stored: nothing checked (store them with --update-baseline)") + "\n"
        }
        let strictFailures = outcome.strictFailures
        if !strictFailures.isEmpty {
            let ungated = Set(strictFailures.map(\.file)).count
            let count = "\(ungated) recording\(ungated == 1 ? "" : "s") not gated"
            out += "\nSTRICT: \(count)\n"
            for (file, problem) in strictFailures { out += "  \(file): \(problem)\n" }
            out += "FAILED (--strict): \(count)" + (regressions.isEmpty ? "" : ", and \(regressions.count) regression\(regressions.count == 1 ? "" : "s")") + "\n"
        }
        return out
    }
}
