import Foundation
import LabCore
import LabEstimators
import LabResults

extension ScenarioScore {
    /// Scores one estimator's results on one scenario.
    public init(scenario: String, estimator: EstimatorKind, results: [EpochResult]) {
        let errors = results.compactMap(\.error)
        let stats = ErrorStatistics(errors: errors, attempts: results.count)
        func rate(_ values: [Bool?]) -> Double? {
            let known = values.compactMap { $0 }
            return known.isEmpty ? nil : Double(known.filter { $0 }.count) / Double(known.count)
        }
        let looks = results.filter { $0.fix != nil }.reduce(HitRate()) { $0 + HitRate(hits: $1.friezeHits, cases: $1.friezeLooks) }
        let bounds = results.filter { $0.fix != nil && $0.crlb.isFinite }.map(\.crlb)
        var crlbRMSE: Double?, efficiency: Double?
        if !bounds.isEmpty {
            let c = (bounds.reduce(0, +) / Double(bounds.count)).squareRoot()
            crlbRMSE = c
            efficiency = stats.rmse.isFinite && c > 0 ? stats.rmse / c : nil
        }
        let three = results.filter { $0.beaconsHeard >= 3 }
        self.init(scenario: scenario, estimator: estimator, stats: stats, roomHitRate: rate(results.map(\.roomHit)),
                  exhibitHitRate: rate(results.map(\.exhibitHit)), friezeHitRate: looks.rate, crlbRMSE: crlbRMSE,
                  efficiency: efficiency,
                  availabilityWithThree: three.isEmpty ? nil : Double(three.filter { $0.fix != nil }.count) / Double(three.count))
    }
}

extension Leaderboard {
    /// The best eligible snapshot estimator (each fix from its own scan). Over the whole tournament, when a tracker
    /// wins, it is the library's one-scan fix (``EstimatorKind/shipped``); a run over fewer estimators may name another.
    public var bestSnapshot: EstimatorKind? {
        overall.first { $0.eligible && !$0.estimator.inputs.uses.contains(.motion) }?.estimator
    }

    /// Why an estimator may not win: the first clause of the winner rule (``ruleText``) it fails.
    public enum Ineligibility: Equatable, Sendable {
        /// An offline smoother: it uses later scans, which no live app has.
        case offline
        /// It collapsed on these real protocols.
        case collapses(on: [String])
        /// Its availability in `scenario` (its lowest) is under ``availabilityThreshold``, and so it is in `more` other
        /// scenarios.
        case unavailable(scenario: String, availability: Double, more: Int)
        /// It has no P75 in these scenarios.
        case noP75(in: [String])
    }

    /// Why `o` may not win (nil when it is eligible).
    public func ineligibility(of o: Overall) -> Ineligibility? {
        if o.eligible { return nil }
        if o.estimator.inputs.offline { return .offline }
        if !o.collapsedOn.isEmpty { return .collapses(on: o.collapsedOn) }
        let mine = scores.filter { $0.estimator == o.estimator }
        if let worst = mine.min(by: { $0.ruleAvailability < $1.ruleAvailability }),
           worst.ruleAvailability < Self.availabilityThreshold {
            let more = mine.filter { $0.ruleAvailability < Self.availabilityThreshold }.count - 1
            return .unavailable(scenario: worst.scenario, availability: worst.ruleAvailability, more: more)
        }
        return .noP75(in: mine.filter { !$0.stats.p75.isFinite }.map(\.scenario))
    }

    /// Availability an estimator needs in every scenario to be eligible to win.
    public static let availabilityThreshold = 0.9
    /// On a real protocol, a mean error beyond this many times the best baseline's is a collapse.
    public static let collapseFactor = 1.5
    /// The simple estimators a real protocol's collapse is measured against.
    public static let baselines: [EstimatorKind] = [.proximity, .centroid, .weightedCentroid, .powerCentroid]
    public static let ruleText = """
        lowest mean P75 across every scenario, condition and real protocol, among live estimators (not offline \
        smoothers, which use later scans) with availability ≥ 90% everywhere (of the scans that heard at least three beacons) that do not collapse on any real protocol (collapse: mean error > 1.5 × the best \
        baseline's — proximity, centroid, weighted-centroid, power-centroid — on that protocol); ties: lower mean RMSE
        """

    /// Ranks the estimators of `results` by the winner rule (``ruleText``). `realProtocols` names the labels
    /// that are real recordings (the collapse test applies to them; it needs a baseline among the results).
    /// `venues` (by label) are the scenarios whose walks get ``TrackMetrics``.
    public init(results: [EpochResult], scenarios: [String], seeds: [UInt64], realProtocols: Set<String> = [], venues: [String: Venue] = [:]) {
        var groups: [String: [EpochResult]] = [:]
        for r in results { groups["\(r.scenario)\u{1}\(r.estimator.rawValue)", default: []].append(r) }
        let estimators = Set(results.map(\.estimator)).sorted()
        var scores: [ScenarioScore] = []
        for s in scenarios {
            for e in estimators {
                if let rs = groups["\(s)\u{1}\(e.rawValue)"] { scores.append(ScenarioScore(scenario: s, estimator: e, results: rs)) }
            }
        }
        // The best baseline's mean error on each real protocol.
        var baselineMean: [String: Double] = [:]
        for sc in scores where realProtocols.contains(sc.scenario) && Leaderboard.baselines.contains(sc.estimator) && sc.stats.mean.isFinite {
            baselineMean[sc.scenario] = min(baselineMean[sc.scenario] ?? .infinity, sc.stats.mean)
        }
        let overall = estimators.map { e in
            let mine = scores.filter { $0.estimator == e }
            let p75 = mine.map(\.stats.p75), rmse = mine.map(\.stats.rmse)
            let minAvail = mine.map(\.ruleAvailability).min() ?? 0
            let meanP75 = p75.contains { !$0.isFinite } ? .infinity : p75.reduce(0, +) / Double(max(p75.count, 1))
            let meanRMSE = rmse.contains { !$0.isFinite } ? .infinity : rmse.reduce(0, +) / Double(max(rmse.count, 1))
            let collapsed = mine.filter { sc in
                guard let best = baselineMean[sc.scenario] else { return false }
                return !(sc.stats.mean <= Leaderboard.collapseFactor * best)
            }.map(\.scenario)
            return Overall(estimator: e, meanP75: meanP75, minAvailability: minAvail, meanRMSE: meanRMSE,
                           eligible: minAvail >= Leaderboard.availabilityThreshold && meanP75.isFinite && collapsed.isEmpty
                                     && !e.inputs.offline,
                           collapsedOn: collapsed)
        }.sorted { ($0.eligible ? 0 : 1, $0.meanP75, $0.meanRMSE) < ($1.eligible ? 0 : 1, $1.meanP75, $1.meanRMSE) }
        self.init(scenarios: scenarios, seeds: seeds, scores: scores, overall: overall,
                  winner: overall.first(where: \.eligible)?.estimator, rule: Leaderboard.ruleText)
        if !venues.isEmpty { tracking = TrackScore.all(results: results, venues: venues) }
    }
}
