import LabCore
import LabPlanning

/// What `tune` prints.
public enum TuneReport {
    /// The layout before and after (and the one tried, when it was not kept), predicted and simulated, and the moves.
    public static func text(scenario: String, result: Tuner.Result) -> String {
        let m = Figures.metresOrNoFix
        let rows = [["", "predicted area P90", "predicted median P90", "simulated area P90", "simulated median P90"],
                    ["before", m(result.before.predicted.areaQuantile), m(result.before.predicted.medianP90), m(result.before.simulated.areaQuantile), m(result.before.simulated.medianP90)],
                    ["after", m(result.after.predicted.areaQuantile), m(result.after.predicted.medianP90), m(result.after.simulated.areaQuantile), m(result.after.simulated.medianP90)]]
            + (result.rejected.map { r in [["tried", m(r.predicted.areaQuantile), m(r.predicted.medianP90), m(r.simulated.areaQuantile), m(r.simulated.medianP90)]] } ?? [])
        var out = "\(scenario): area P90 = P90 error reached on 90% of the walkable points\n"
        out += TextTable.render(rows)
        if rows.joined().contains("no fix") {
            out += "no fix: more than 10% of the points (or of a point's scans) get no fix; the error quantile is unbounded\n"
        }
        if result.reverted {
            out += "kept the original layout: the tried layout (\(result.rejectedMoves.count) beacons moved) lowered the predicted error but simulated worse\n"
            for mv in result.rejectedMoves { out += "  tried \(mv.beacon): \(mv.from) → \(mv.to)\n" }
        } else if result.moves.isEmpty {
            out += "no move lowers the predicted error: the layout is already locally optimal\n"
        } else {
            for mv in result.moves { out += "  \(mv.beacon): \(mv.from) → \(mv.to)  (\(Format.metres(mv.from.distance(to: mv.to))) m)\n" }
        }
        return out
    }
}
