import Foundation
import LabCore
import LabEstimators

/// The summary of one estimator on one scenario (all seeds pooled).
public struct ScenarioScore: Sendable, Codable, Hashable {
    public var scenario: String
    public var estimator: EstimatorKind
    public var stats: ErrorStatistics
    public var roomHitRate: Double?
    public var exhibitHitRate: Double?
    public var friezeHitRate: Double?
    /// sqrt(mean CRLB) over the epochs with a fix, metres.
    public var crlbRMSE: Double?
    /// RMSE / sqrt(mean CRLB): 1 is the physical limit.
    public var efficiency: Double?

    public init(scenario: String, estimator: EstimatorKind, results: [EpochResult]) {
        self.scenario = scenario
        self.estimator = estimator
        let errors = results.compactMap(\.error)
        stats = ErrorStatistics(errors: errors, attempts: results.count)
        func rate(_ values: [Bool?]) -> Double? {
            let known = values.compactMap { $0 }
            return known.isEmpty ? nil : Double(known.filter { $0 }.count) / Double(known.count)
        }
        roomHitRate = rate(results.map(\.roomHit))
        exhibitHitRate = rate(results.map(\.exhibitHit))
        let looks = results.filter { $0.fix != nil }.reduce(HitRate()) { $0 + HitRate(hits: $1.friezeHits, cases: $1.friezeLooks) }
        friezeHitRate = looks.rate
        let bounds = results.filter { $0.fix != nil && $0.crlb.isFinite }.map(\.crlb)
        if !bounds.isEmpty {
            let c = (bounds.reduce(0, +) / Double(bounds.count)).squareRoot()
            crlbRMSE = c
            efficiency = stats.rmse.isFinite && c > 0 ? stats.rmse / c : nil
        }
    }
}

/// The tournament's verdict: scores per estimator and scenario, an overall row per estimator, the winner.
public struct Leaderboard: Sendable, Codable {
    public struct Overall: Sendable, Codable, Hashable {
        public var estimator: EstimatorKind
        /// Mean of the per-scenario P75, metres.
        public var meanP75: Double
        /// Lowest per-scenario availability.
        public var minAvailability: Double
        public var meanRMSE: Double
        public var eligible: Bool
    }

    public var scenarios: [String]
    public var seeds: [UInt64]
    public var scores: [ScenarioScore]
    public var overall: [Overall]
    public var winner: EstimatorKind?
    public var rule: String

    /// Availability an estimator needs in every scenario to be eligible to win.
    public static let availabilityThreshold = 0.9
    public static let ruleText = "lowest mean P75 across the scenarios among estimators with availability ≥ 90% in every scenario (ties: lower mean RMSE)"

    public init(results: [EpochResult], scenarios: [String], seeds: [UInt64]) {
        self.scenarios = scenarios
        self.seeds = seeds
        rule = Leaderboard.ruleText
        var groups: [String: [EpochResult]] = [:]
        for r in results { groups["\(r.scenario)\u{1}\(r.estimator.rawValue)", default: []].append(r) }
        let estimators = Set(results.map(\.estimator)).sorted()
        var scores: [ScenarioScore] = []
        for s in scenarios {
            for e in estimators {
                if let rs = groups["\(s)\u{1}\(e.rawValue)"] { scores.append(ScenarioScore(scenario: s, estimator: e, results: rs)) }
            }
        }
        self.scores = scores
        overall = estimators.map { e in
            let mine = scores.filter { $0.estimator == e }
            let p75 = mine.map(\.stats.p75), rmse = mine.map(\.stats.rmse)
            let minAvail = mine.map(\.stats.availability).min() ?? 0
            let meanP75 = p75.contains { !$0.isFinite } ? .infinity : p75.reduce(0, +) / Double(max(p75.count, 1))
            let meanRMSE = rmse.contains { !$0.isFinite } ? .infinity : rmse.reduce(0, +) / Double(max(rmse.count, 1))
            return Overall(estimator: e, meanP75: meanP75, minAvailability: minAvail, meanRMSE: meanRMSE,
                           eligible: minAvail >= Leaderboard.availabilityThreshold && meanP75.isFinite)
        }.sorted { ($0.eligible ? 0 : 1, $0.meanP75, $0.meanRMSE) < ($1.eligible ? 0 : 1, $1.meanP75, $1.meanRMSE) }
        winner = overall.first(where: \.eligible)?.estimator
    }

    public func score(_ scenario: String, _ estimator: EstimatorKind) -> ScenarioScore? {
        scores.first { $0.scenario == scenario && $0.estimator == estimator }
    }
}
