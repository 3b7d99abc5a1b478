@preconcurrency internal import CGSL
import LabCore

/// Error statistics of one estimator over a set of epochs (DESIGN.md, "Accuracy: metrics and the bound").
public struct ErrorStatistics: Sendable, Codable, Hashable {
    /// Epochs attempted.
    public var count: Int
    /// Epochs with a fix.
    public var fixes: Int
    /// fixes / count.
    public var availability: Double
    public var mean: Double
    /// CE50.
    public var median: Double
    /// The EvAAL/IPIN ranking figure.
    public var p75: Double
    public var p90: Double
    /// CE95.
    public var p95: Double
    public var rmse: Double
    public var max: Double

    /// Statistics of horizontal errors (metres) of the epochs with a fix, out of `attempts` epochs.
    /// Percentiles interpolate linearly between order statistics (GSL's quantile definition).
    public init(errors: [Double], attempts: Int) {
        count = attempts
        fixes = errors.count
        availability = attempts > 0 ? Double(errors.count) / Double(attempts) : 0
        guard !errors.isEmpty else {
            mean = .nan; median = .nan; p75 = .nan; p90 = .nan; p95 = .nan; rmse = .nan; max = .nan
            return
        }
        var sorted = errors
        sorted.withUnsafeMutableBufferPointer { gsl_sort($0.baseAddress, 1, $0.count) }
        func q(_ f: Double) -> Double {
            sorted.withUnsafeBufferPointer { gsl_stats_quantile_from_sorted_data($0.baseAddress, 1, $0.count, f) }
        }
        mean = sorted.withUnsafeBufferPointer { gsl_stats_mean($0.baseAddress, 1, $0.count) }
        median = q(0.5); p75 = q(0.75); p90 = q(0.9); p95 = q(0.95)
        rmse = (sorted.reduce(0) { $0 + $1 * $1 } / Double(sorted.count)).squareRoot()
        max = sorted.last!
    }
}

/// A rate of hits over the cases where the question applies; nil rate when it never applied.
public struct HitRate: Sendable, Codable, Hashable {
    public var hits: Int
    public var cases: Int
    public init(hits: Int = 0, cases: Int = 0) { self.hits = hits; self.cases = cases }
    public var rate: Double? { cases > 0 ? Double(hits) / Double(cases) : nil }
    public static func + (a: HitRate, b: HitRate) -> HitRate { HitRate(hits: a.hits + b.hits, cases: a.cases + b.cases) }
}
