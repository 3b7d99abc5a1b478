import LabCore
import LabEstimators
import LabStore
import LabEvaluation
import LabResults

/// The tournament's leaderboard as plain-text tables, as `compare` prints them.
public enum LeaderboardTable {
    /// A figure in metres to two decimals, or a dash when there is none.
    public static func m(_ v: Double) -> String { Figures.metres(v) }

    public static func render(_ b: Leaderboard) -> String {
        func pct(_ v: Double?) -> String { Figures.percent(v, digits: 0) }
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
            out += TextTable.render(rows)
        }
        out += "\noverall (errors in metres; \(b.seeds.count) seed\(b.seeds.count == 1 ? "" : "s"))\n"
        var rows = [["rank", "estimator", "mean P75", "mean RMSE", "min avail (3+ heard)", "eligible"]]
        for (i, o) in b.overall.enumerated() {
            rows.append(["\(i + 1)", o.estimator.rawValue, m(o.meanP75), m(o.meanRMSE), pct(o.minAvailability), eligibility(o, in: b)])
        }
        out += TextTable.render(rows)
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
    public static func eligibility(_ o: Leaderboard.Overall, in b: Leaderboard) -> String {
        switch b.ineligibility(of: o) {
        case nil: return "yes"
        case .offline: return "no: offline (uses later scans)"
        case .collapses(let protocols): return "no: collapses on \(protocols.joined(separator: ", "))"
        case .unavailable(let scenario, let availability, let more):
            return "no: \(Format.fixed(availability * 100, 1))% available with 3+ heard in \(scenario)\(more > 0 ? " and \(more) more" : "")"
                + " (needs \(Format.fixed(Leaderboard.availabilityThreshold * 100, 0))%)"
        case .noP75(let scenarios): return "no: no P75 in \(scenarios.joined(separator: ", "))"
        }
    }

    /// The walks' table per scenario: errors on walk epochs only, the posterior bound, and how the fixes move; then
    /// the best tracker against the best snapshot estimator.
    public static func tracking(_ scores: [TrackScore]) -> String {
        let m = Figures.metres
        func pct(_ v: Double?) -> String { Figures.percent(v, digits: 1) }
        var out = "\nwalks: errors on walk epochs only (m; P75 while standing and while walking apart), the posterior bound (√PCRB, m; eff = RMSE/√PCRB), wall crossings between consecutive fixes, room-entry delay (s; missed entries), jitter standing still (m), time to first fix (s)\n"
        var scenarios: [String] = []
        for s in scores where !scenarios.contains(s.scenario) { scenarios.append(s.scenario) }
        for name in scenarios {
            let mine = scores.filter { $0.scenario == name }
            out += "\n\(name) walks\n"
            var rows = [["estimator", "P75", "standing", "walking", "RMSE", "√PCRB", "eff", "wall-x", "room delay", "missed", "jitter", "TTFF"]]
            for s in mine {
                let t = s.metrics
                rows.append([s.estimator.rawValue, m(t.p75), m(t.standingP75), m(t.walkingP75), m(t.rmse), m(t.pcrbRMSE), m(t.pcrbEfficiency), pct(t.wallCrossingRate),
                             m(t.roomEntryDelay), "\(t.missedRoomEntries)/\(t.roomEntries)", m(t.stillJitter), m(t.timeToFirstFix)])
            }
            out += TextTable.render(rows)
            let trackers = mine.filter { $0.estimator.inputs.uses.contains(.motion) && $0.metrics.p75.isFinite }
            let snapshots = mine.filter { !$0.estimator.inputs.uses.contains(.motion) && $0.metrics.p75.isFinite }
            if let t = trackers.min(by: { $0.metrics.p75 < $1.metrics.p75 }), let s = snapshots.min(by: { $0.metrics.p75 < $1.metrics.p75 }) {
                out += "best tracker \(t.estimator.rawValue)\(t.estimator.inputs.offline ? " (offline)" : "") P75 \(m(t.metrics.p75)) vs the best snapshot estimator on these walks, \(s.estimator.rawValue), \(m(s.metrics.p75)): ratio \(Format.fixed(t.metrics.p75 / s.metrics.p75, 2))\n"
            }
        }
        return out
    }

    /// Mean error under the cross-calibrated protocol against the same scans with the matching calibration
    /// (the reference; not part of the winner rule). `references` may hold others (``surveyedReference(_:references:)``'s): only
    /// the `-matched` ones are read.
    public static func matchedReference(_ b: Leaderboard, references: [(name: String, results: [EpochResult])]) -> String {
        "\nreal data, cross-calibrated against the matching calibration (model fitted on the scored scans themselves; reference, not in the rule)\n"
            + TextTable.render(matchedReferenceRows(b, references: references))
    }

    /// The rows of ``matchedReference(_:references:)``, its header first.
    public static func matchedReferenceRows(_ b: Leaderboard, references: [(name: String, results: [EpochResult])]) -> [[String]] {
        referenceRows(b, references: references, suffix: "-matched", column: "matched")
    }

    /// Mean error under each protocol against the same protocol with its calibration part's survey as a radio map, for the
    /// estimators that read one (a reference, not part of the winner rule).
    public static func surveyedReference(_ b: Leaderboard, references: [(name: String, results: [EpochResult])]) -> String {
        "\nreal data, without and with the survey (the calibration part's survey as a radio map; reference, not in the rule)\n"
            + TextTable.render(surveyedReferenceRows(b, references: references))
    }

    /// The rows of ``surveyedReference(_:references:)``, its header first.
    public static func surveyedReferenceRows(_ b: Leaderboard, references: [(name: String, results: [EpochResult])]) -> [[String]] {
        referenceRows(b, references: references, suffix: "-surveyed", column: "surveyed")
    }

    /// Per reference protocol named `<protocol><suffix>`, each estimator's mean error under the protocol, under the reference
    /// and their ratio (protocol / reference: above 1, the reference does better); estimators the references did not run are
    /// left out.
    static func referenceRows(_ b: Leaderboard, references all: [(name: String, results: [EpochResult])], suffix: String, column: String) -> [[String]] {
        let references = all.filter { $0.name.hasSuffix(suffix) }
        var rows = [["estimator"] + references.flatMap { r in
            let cross = String(r.name.dropLast(suffix.count))
            return ["\(cross) mean", column, "ratio"]
        }]
        let ran = Set(references.flatMap { $0.results.map(\.estimator) })
        for e in b.overall.map(\.estimator) where ran.contains(e) {
            var row = [e.rawValue]
            for r in references {
                let cross = String(r.name.dropLast(suffix.count))
                let reference = ErrorStatistics(errors: r.results.filter { $0.estimator == e }.compactMap(\.error), attempts: 1).mean
                let crossMean = b.score(cross, e)?.stats.mean ?? .nan
                row += [m(crossMean), m(reference), reference > 0 && crossMean.isFinite ? Format.fixed(crossMean / reference, 2) : "—"]
            }
            rows.append(row)
        }
        return rows
    }
}
