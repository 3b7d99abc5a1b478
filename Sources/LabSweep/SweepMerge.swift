import Foundation
import CGSL
import LabCore
import LabStore

/// A mean over seeds with its 95% confidence interval: Student's t, mean ± t(0.975, n − 1)·s/√n (GSL's t quantile).
/// With one seed there is no interval (low and high are NaN).
public struct MeanInterval: Sendable, Hashable {
    public var mean: Double
    public var low: Double
    public var high: Double
    public var count: Int

    public init(_ sample: [Double]) {
        let xs = sample.filter(\.isFinite)
        count = xs.count
        guard !xs.isEmpty else { mean = .nan; low = .nan; high = .nan; return }
        let m = xs.reduce(0, +) / Double(xs.count)
        mean = m
        guard xs.count >= 2 else { low = .nan; high = .nan; return }
        let s = (xs.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(xs.count - 1)).squareRoot()
        let t = gsl_cdf_tdist_Pinv(0.975, Double(xs.count - 1))
        let half = t * s / Double(xs.count).squareRoot()
        low = m - half; high = m + half
    }
}

/// The merged results of a sweep: every cell, and per axis value and estimator the mean over seeds with its 95%
/// confidence interval.
public struct SweepSummary: Sendable {
    /// One combination of axis values and one estimator, over the seeds.
    public struct Cell: Sendable, Hashable {
        public var values: [String]
        public var estimator: String
        public var meanError: MeanInterval
        public var p90Error: MeanInterval
        /// Fixes over epochs, all seeds together.
        public var availability: Double
    }

    /// Error against one axis for one estimator: at each of the axis's values, the mean over seeds of that seed's
    /// mean error averaged over the other axes' values (none where one of those cells had no fix).
    public struct Curve: Sendable, Hashable {
        public var axis: String
        public var estimator: String
        public var x: [Double]
        public var error: [MeanInterval]
    }

    public var spec: SweepSpec
    /// Every cell's row, in job order, estimators in the spec's order.
    public var rows: [SweepRow]
    public var cells: [Cell]
    /// One per numeric axis with two values or more, and estimator.
    public var curves: [Curve]

    public init(spec: SweepSpec, rows unsorted: [SweepRow]) {
        self.spec = spec
        let order = Dictionary(uniqueKeysWithValues: spec.estimators.enumerated().map { ($1.rawValue, $0) })
        let rows = unsorted.sorted { ($0.job, order[$0.estimator] ?? 0) < ($1.job, order[$1.estimator] ?? 0) }
        let perCombination = spec.seeds.count * spec.estimators.count
        var cells: [Cell] = []
        // Rows come in job order and the seed varies fastest: each combination is one run of rows.
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + perCombination, rows.count)]
            for e in spec.estimators.map(\.rawValue) {
                let mine = chunk.filter { $0.estimator == e }
                let epochs = mine.map(\.epochs).reduce(0, +), fixes = mine.map(\.fixes).reduce(0, +)
                cells.append(Cell(values: chunk.first!.values, estimator: e, meanError: MeanInterval(mine.map(\.meanError)),
                                  p90Error: MeanInterval(mine.map(\.p90Error)), availability: epochs > 0 ? Double(fixes) / Double(epochs) : 0))
            }
            start += perCombination
        }
        self.rows = rows
        self.cells = cells
        var curves: [Curve] = []
        for (a, axis) in spec.axes.enumerated() where axis.values.count >= 2 && axis.values.allSatisfy({ $0.number != nil }) {
            for e in spec.estimators.map(\.rawValue) {
                var xs: [Double] = [], ys: [MeanInterval] = []
                for v in axis.values {
                    let perSeed = spec.seeds.map { seed -> Double in
                        // A cell without a fix leaves the point out: a mean over the cells that had one would not compare.
                        let errs = rows.filter { $0.estimator == e && $0.seed == seed && $0.values[a] == v.text }.map(\.meanError)
                        return errs.isEmpty || !errs.allSatisfy(\.isFinite) ? .nan : errs.reduce(0, +) / Double(errs.count)
                    }
                    xs.append(v.number!)
                    ys.append(MeanInterval(perSeed))
                }
                curves.append(Curve(axis: axis.path, estimator: e, x: xs, error: ys))
            }
        }
        self.curves = curves
    }

    /// The summary table (docs/sweeps.md, "Files"): one row per combination of axis values and estimator.
    public var csv: String {
        var out = (spec.axes.map(\.path) + ["estimator", "seeds", "mean_error_m", "mean_error_ci_low_m", "mean_error_ci_high_m",
                                              "p90_error_m", "p90_error_ci_low_m", "p90_error_ci_high_m", "availability"])
            .map(SweepCSV.field).joined(separator: ",") + "\n"
        for c in cells {
            let n = SweepCSV.number
            out += (c.values + [c.estimator, "\(c.meanError.count)", n(c.meanError.mean), n(c.meanError.low), n(c.meanError.high),
                                n(c.p90Error.mean), n(c.p90Error.low), n(c.p90Error.high), String(format: "%.6f", c.availability)])
                .map(SweepCSV.field).joined(separator: ",") + "\n"
        }
        return out
    }
}

/// Collects the shard files of a run into one dataset.
public enum SweepMerge {
    /// Every row of the `count` shards in `runner`'s folder, checked against the spec: each job once, each estimator.
    /// - Throws: ``InputError`` listing the shards missing (and the command that runs one), or naming a damaged file.
    public static func rows(_ runner: SweepRunner, shards count: Int) throws -> [SweepRow] {
        let spec = runner.spec
        let missing = (0..<count).filter { !runner.isDone($0, of: count) }
        guard missing.isEmpty else {
            let list = missing.count > 12 ? missing.prefix(12).map(String.init).joined(separator: ", ") + ", …" : missing.map(String.init).joined(separator: ", ")
            throw InputError(file: runner.directory, "\(missing.count) of \(count) shards have no results yet (\(list)); run each with `indoorlab sweep run \(spec.file) --shard I/\(count) --out \(runner.directory)`, or all that are missing with `indoorlab sweep \(spec.file) --shards \(count) --out \(runner.directory)`")
        }
        var rows: [SweepRow] = []
        for shard in 0..<count {
            let path = runner.shardPath(shard, of: count)
            let mine = try SweepCSV.read(path, axes: spec.axes.map(\.path))
            let expected = spec.jobs(shard: shard, of: count).map(\.index)
            let jobs = mine.map(\.job)
            guard jobs == expected.flatMap({ Array(repeating: $0, count: spec.estimators.count) }),
                  mine.map(\.estimator) == expected.flatMap({ _ in spec.estimators.map(\.rawValue) }) else {
                throw InputError(file: path, "does not hold this spec's shard \(shard) of \(count) (its jobs or estimators differ: was the spec changed since? remove the folder's shards to start again)")
            }
            rows += mine
        }
        return rows
    }

    /// Merges the shards and writes `sweep.csv` (every cell) and `summary.csv` (means and 95% intervals) in the folder.
    public static func merge(_ runner: SweepRunner, shards count: Int) throws -> SweepSummary {
        let summary = SweepSummary(spec: runner.spec, rows: try rows(runner, shards: count))
        try OutputFile.write(Data(SweepCSV.text(summary.rows, axes: runner.spec.axes.map(\.path)).utf8), to: runner.directory + "/sweep.csv",
                             inputs: [runner.spec.file])
        try OutputFile.write(Data(summary.csv.utf8), to: runner.directory + "/summary.csv", inputs: [runner.spec.file])
        return summary
    }
}
