import Foundation
import LabCore
import LabEstimators
import LabStore
import LabResults

extension BaselineMetric {
    /// The figure in a score; nil when it does not apply (no fixes, no rooms, no exhibits, no looks).
    public func value(in s: ScenarioScore) -> Double? {
        let v: Double?
        switch self {
        case .availability: v = s.stats.availability
        case .mean: v = s.stats.mean
        case .median: v = s.stats.median
        case .p75: v = s.stats.p75
        case .p90: v = s.stats.p90
        case .rmse: v = s.stats.rmse
        case .roomHit: v = s.roomHitRate
        case .exhibitHit: v = s.exhibitHitRate
        case .friezeHit: v = s.friezeHitRate
        }
        return v.flatMap { $0.isFinite ? $0 : nil }
    }

    /// Tolerance stored by `replay --update-baseline`: max(0.05 m, 10 % of the value) for errors, 0.02 for rates.
    public func defaultTolerance(for value: Double) -> Double {
        higherIsBetter ? 0.02 : max(0.05, 0.10 * abs(value))
    }
}

/// The verdict on one stored baseline.
public struct BaselineCheck: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable {
        /// Within tolerance.
        case pass
        /// Worse than the baseline by more than the tolerance (or the figure no longer exists).
        case regression
        /// Better than the baseline by more than the tolerance: not a failure; the baseline may be updated.
        case improved
    }
    public var estimator: EstimatorKind
    public var metric: BaselineMetric
    public var baseline: Double
    public var tolerance: Double
    /// nil: the figure no longer exists (e.g. no fixes at all).
    public var now: Double?
    public var status: Status

    /// now − baseline (nil when there is no current value).
    public var change: Double? { now.map { $0 - baseline } }

    public init(_ b: Baseline, now: Double?) {
        estimator = b.estimator; metric = b.metric; baseline = b.value; tolerance = b.tolerance; self.now = now
        guard let now else { status = .regression; return }
        let worse = b.metric.higherIsBetter ? b.value - now : now - b.value
        // A hair of slack so a baseline stored from the same numbers never fails on rounding.
        let slack = 1e-9 * max(1, abs(b.value))
        if worse > b.tolerance + slack { status = .regression }
        else if -worse > b.tolerance + slack { status = .improved }
        else { status = .pass }
    }
}

/// Builds baselines from scores and judges scores against stored baselines.
public enum BaselineJudge {
    /// One baseline per estimator and metric that has a finite value, with the default tolerances.
    public static func baselines(from scores: [ScenarioScore]) -> [Baseline] {
        scores.flatMap { s in
            BaselineMetric.allCases.compactMap { m in
                m.value(in: s).map { Baseline(estimator: s.estimator, metric: m, value: $0, tolerance: m.defaultTolerance(for: $0)) }
            }
        }
    }

    /// Checks every stored baseline of the estimators that were run; baselines of other estimators are ignored.
    public static func check(_ scores: [ScenarioScore], against baselines: [Baseline]) -> [BaselineCheck] {
        var byEstimator: [EstimatorKind: ScenarioScore] = [:]
        for s in scores { byEstimator[s.estimator] = s }
        return baselines
            .filter { byEstimator[$0.estimator] != nil }
            .sorted { ($0.estimator, $0.metric) < ($1.estimator, $1.metric) }
            .map { BaselineCheck($0, now: $0.metric.value(in: byEstimator[$0.estimator]!)) }
    }
}
