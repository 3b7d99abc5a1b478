import LabCore
import LabPlanning

/// What `plan` prints, and its JSON.
public enum PlanReport {
    /// What `plan --json` prints. No run time: the same inputs give the same JSON.
    public struct JSON: Encodable {
        var scenario: String
        var met: Bool
        var beacons: Int
        var result: Planner.Result
        var plots: [String]
        public init(scenario: String, result: Planner.Result, plots: [String]) {
            self.scenario = scenario; met = result.met; beacons = result.chosen.count; self.result = result; self.plots = plots
        }
    }

    /// The plan's search, count by count (predicted and simulated), and its verdict: the target met with the fewest
    /// beacons, or out of reach with the best found.
    public static func text(scenario: String, result: Planner.Result, options o: Planner.Options) -> String {
        func pct(_ v: Double) -> String { Figures.percent(v, digits: 0) }
        let m = Figures.metresOrNoFix
        var out = "\(scenario): \(result.points) walkable points (\(Format.fixed(result.walkableArea, 0)) m²), \(counted(result.candidates, "candidate position")) (\(o.mount.rawValue))\n"
        if let best = result.outOfReach {
            out += "target NOT met: P90 ≤ \(Format.metres(o.targetP90)) m on \(pct(o.coverage)) of the walkable area is out of reach: even with a beacon at every candidate position (\(result.candidates)) the predicted area P90 is \(m(best.areaQuantile)) (coverage \(pct(best.coverage))), the best this venue allows at --candidate-spacing \(Format.number(o.candidateSpacing)) m; nothing was searched or simulated\n"
            return out
        }
        var rows = [["beacons", "predicted area P90", "predicted coverage", "simulated area P90", "simulated coverage"]]
        for st in result.steps {
            rows.append(["\(st.count)", m(st.predicted.areaQuantile), pct(st.predicted.coverage),
                         st.simulated.map { m($0.areaQuantile) } ?? "—", st.simulated.map { pct($0.coverage) } ?? "—"])
        }
        out += TextTable.render(rows)
        let c = result.chosen
        if result.met {
            out += "target met: \(c.count) beacons give P90 ≤ \(Format.metres(o.targetP90)) m on \(pct(c.simulated?.coverage ?? 0)) of the walkable area (simulated with \(o.estimator.rawValue), \(o.draws) draws per point); \(c.count - 1) did not\n"
            if result.spread.count > 1 { out += spreadLine(result.spread) }
        } else {
            let most = min(o.maxBeacons, result.candidates)
            out += "target NOT met: P90 ≤ \(Format.metres(o.targetP90)) m on \(pct(o.coverage)) of the walkable area is out of reach up to \(counted(most, "beacon"))"
                + (result.candidates < o.maxBeacons ? " (only \(counted(result.candidates, "candidate position")) at --candidate-spacing \(Format.number(o.candidateSpacing)) m)." : ".") + "\n"
            out += "best found: \(c.count) beacons, area P90 \(m(c.simulated?.areaQuantile ?? c.predicted.areaQuantile)) (\(c.simulated == nil ? "predicted" : "simulated")), coverage \(pct(c.simulated?.coverage ?? c.predicted.coverage))\n"
        }
        return out
    }

    /// "spread over seeds 1–3: 21–23 beacons (1: 22, 2: 21, 3: 23)": the count each seed's draws confirm.
    static func spreadLine(_ spread: [Planner.SeedCount]) -> String {
        let counts = spread.compactMap(\.count)
        let each = spread.map { "\($0.seed): \($0.count.map(String.init) ?? "none")" }.joined(separator: ", ")
        let range = counts.isEmpty ? "none" : counts.min()! == counts.max()! ? "\(counts.min()!)" : "\(counts.min()!)–\(counts.max()!)"
        let missing = spread.count - counts.count
        return "spread over \(spread.count) seeds: \(range) beacons (seed: count \(each))"
            + (missing > 0 ? "; \(missing) found no count up to the limit" : "") + "\n"
    }
}
