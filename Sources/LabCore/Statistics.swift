/// How a quantile of a finite sample is defined.
public enum QuantileMethod: String, Sendable, Hashable, Codable {
    /// Linear interpolation between order statistics at index (n − 1)·p (Hyndman–Fan type 7; GSL's
    /// `gsl_stats_quantile_from_sorted_data`, numpy's default). What the lab's P75, P90 and CE95 mean.
    case linear
    /// The ⌈p·n⌉-th smallest value (Hyndman–Fan type 1): always one of the observations.
    case nearestRank
}

/// A sample sorted once, for several quantiles and its mean. The one home of quantiles in the lab.
public struct SortedSample: Sendable, Hashable {
    /// The values, ascending.
    public let values: [Double]

    /// Sorts `values` (NaN is not allowed: it has no place in an order).
    public init(_ values: [Double]) { self.values = values.sorted() }
    /// Wraps values already sorted ascending.
    public init(alreadySorted values: [Double]) { self.values = values }

    public var count: Int { values.count }
    public var isEmpty: Bool { values.isEmpty }

    /// The p-quantile (0 ≤ p ≤ 1) by `method`; NaN for an empty sample.
    public func quantile(_ p: Double, method: QuantileMethod = .linear) -> Double {
        let n = values.count
        guard n > 0 else { return .nan }
        switch method {
        case .linear:
            let index = Double(n - 1) * p
            let lhs = Int(index.rounded(.down))
            let delta = index - Double(lhs)
            if lhs >= n - 1 { return values[n - 1] }
            if lhs < 0 { return values[0] }
            return (1 - delta) * values[lhs] + delta * values[lhs + 1]
        case .nearestRank:
            let rank = Int((p * Double(n)).rounded(.up))
            return values[Swift.min(n - 1, Swift.max(0, rank - 1))]
        }
    }

    /// Arithmetic mean as a running mean (mean += (x − mean)/(i + 1)), GSL's recurrence; NaN when empty.
    public var mean: Double {
        guard !values.isEmpty else { return .nan }
        var m = 0.0
        for (i, x) in values.enumerated() { m += (x - m) / Double(i + 1) }
        return m
    }

    /// √(mean of squares); NaN when empty.
    public var rootMeanSquare: Double {
        guard !values.isEmpty else { return .nan }
        return (values.reduce(0) { $0 + $1 * $1 } / Double(values.count)).squareRoot()
    }
}
