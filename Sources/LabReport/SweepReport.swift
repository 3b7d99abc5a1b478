import LabCore
import LabSweep

/// What `sweep` prints: the summary table, one row per combination of axis values and estimator.
public enum SweepReport {
    public static func text(_ summary: SweepSummary) -> String {
        let spec = summary.spec
        func m(_ v: Double) -> String { v.isFinite ? Format.metres(v) + " m" : "—" }
        func ci(_ i: MeanInterval) -> String { i.low.isFinite ? "[\(Format.metres(i.low)), \(Format.metres(i.high))]" : "—" }
        var rows = [spec.axes.map(\.path) + ["estimator", "seeds", "mean error", "95% interval", "P90 error", "availability"]]
        for c in summary.cells {
            rows.append(c.values + [c.estimator, "\(c.meanError.count)", m(c.meanError.mean), ci(c.meanError), m(c.p90Error.mean),
                                    Figures.percent(c.availability, digits: 1)])
        }
        return "\(spec.baseName) (\(spec.condition.rawValue), \(spec.evaluate.rawValue)): \(spec.jobCount) jobs × \(spec.estimators.count) estimators\n"
            + TextTable.render(rows)
    }
}

extension SweepReport {
    /// What `sweep --json` prints: each cell's mean and P90 error with their 95% intervals (null without one).
    public struct JSON: Encodable {
        struct Interval: Encodable { var mean: Double?; var low: Double?; var high: Double?; var seeds: Int }
        struct Cell: Encodable {
            var values: [String: String]
            var estimator: String
            var meanError: Interval
            var p90Error: Interval
            var availability: Double
        }
        var base: String
        var condition: String
        var jobs: Int
        var directory: String
        var cells: [Cell]
        var plots: [String]

        public init(_ s: SweepSummary, directory: String, plots: [String]) {
            func interval(_ i: MeanInterval) -> Interval {
                func v(_ x: Double) -> Double? { x.isFinite ? x : nil }
                return Interval(mean: v(i.mean), low: v(i.low), high: v(i.high), seeds: i.count)
            }
            base = s.spec.baseName; condition = s.spec.condition.rawValue; jobs = s.spec.jobCount; self.directory = directory
            cells = s.cells.map { c in
                Cell(values: Dictionary(uniqueKeysWithValues: zip(s.spec.axes.map(\.path), c.values)), estimator: c.estimator,
                     meanError: interval(c.meanError), p90Error: interval(c.p90Error), availability: c.availability)
            }
            self.plots = plots
        }
    }
}
