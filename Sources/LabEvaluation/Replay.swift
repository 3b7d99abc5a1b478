import Foundation
import LabCore
import LabEstimators
import LabStore
import LabResults

/// Runs estimators over a recording's epochs, scores them against its ground truth and its baselines.
public enum RecordingReplay {
    public struct Result: Sendable {
        public var recording: RecordingInfo
        public var epochs: Int
        /// Windows with readings but no ground truth (not scored).
        public var windowsWithoutTruth: Int
        public var estimators: [EstimatorKind]
        /// One score per estimator, as `compare` computes it.
        public var scores: [ScenarioScore]
        /// Per-epoch outcomes (for results files and plots).
        public var results: [EpochResult]
        /// The verdict on each stored baseline of the estimators run.
        public var checks: [BaselineCheck]
        /// Why each estimator that fixed no epoch fixed none (``whyNoFix(_:venue:results:)``).
        public var noFixes: [EstimatorKind: String] = [:]
        public var regressions: [BaselineCheck] { checks.filter { $0.status == .regression } }
    }

    /// The estimators a replay runs when none are asked for: those with stored baselines, or every one.
    public static func defaultEstimators(_ r: Recording) -> [EstimatorKind] {
        let stored = Set(r.baselines.map(\.estimator))
        return stored.isEmpty ? EstimatorKind.allCases : stored.sorted()
    }

    /// What strict mode (`replay --strict`, the CI gate) counts as a failure beyond regressions: a recording
    /// with no baseline checked, or either estimator the library ships not checked: the one-scan fix
    /// (``EstimatorKind/shipped``) and the stream's tracker (``EstimatorKind/shippedTracker``).
    public static func strictProblems(_ result: Result) -> [String] {
        if result.checks.isEmpty { return ["no baseline checked (store them with --update-baseline)"] }
        let shipped: [(EstimatorKind, String)] = [(.shipped, "the shipped estimator"), (.shippedTracker, "the shipped tracker")]
        return shipped.compactMap { kind, what in
            guard !result.checks.contains(where: { $0.estimator == kind }) else { return nil }
            // Without --estimators replay runs the estimators with stored baselines, so one not run most likely has none.
            let store = "store them with --estimators \(kind.rawValue) --update-baseline"
            let why = result.estimators.contains(kind)
                ? "it has no baselines (\(store))"
                : "it was not run (without --estimators, replay runs those with stored baselines; \(store), or add it to --estimators)"
            return "\(what) (\(kind.rawValue)) was not checked: \(why)"
        }
    }

    /// Replays `r` through `estimators` (default: ``defaultEstimators(_:)``).
    /// The score's scenario label is the recording's name; the seed is the simulation's (0 for real data).
    public static func run(_ r: Recording, estimators: [EstimatorKind]? = nil) -> Result {
        let kinds = estimators ?? defaultEstimators(r)
        var venue = r.venue.venue
        // A live session's recording keeps the seed its phone's locator drew from: replay's trackers draw from it too,
        // so they give the fixes the phone was sent.
        if r.info.source == .live, let seed = r.info.seed { venue.seed = seed }
        let built = EpochBuilder(venue: venue).epochs(r)
        let results = Tournament.evaluate(epochs: built.epochs, observations: built.observations, venue: venue, estimators: kinds,
                                          scenario: r.info.name, seed: r.info.seed ?? 0)
        let scores = kinds.map { k in ScenarioScore(scenario: r.info.name, estimator: k, results: results.filter { $0.estimator == k }) }
        var noFixes: [EstimatorKind: String] = [:]
        for k in kinds { noFixes[k] = whyNoFix(k, venue: venue, results: results.filter { $0.estimator == k }) }
        return Result(recording: r.info, epochs: built.epochs.count, windowsWithoutTruth: built.windowsWithoutTruth,
                      estimators: kinds, scores: scores, results: results,
                      checks: BaselineJudge.check(scores, against: r.baselines), noFixes: noFixes)
    }

    /// Why `kind` fixed none of its `results` (one estimator's, one pass or recording): what it needs that the venue
    /// or the scans lack, else its most frequent no-fix reason; nil when it fixed one or there were no epochs.
    public static func whyNoFix(_ kind: EstimatorKind, venue: Venue, results: [EpochResult]) -> String? {
        guard !results.isEmpty, !results.contains(where: { $0.fix != nil }) else { return nil }
        let inputs = kind.inputs
        if inputs.uses.contains(.survey) && venue.survey == nil && venue.radioMap == nil {
            return "needs a survey of the venue, and there is none: compare surveys simulated venues; a real recording's survey comes from its calibration part, or give 'replay --radio' a fit made with 'calibrate --radio-map'"
        }
        if inputs.minimumBeacons == 0, inputs.uses.contains(.headings) {
            if venue.friezes.isEmpty { return "needs headings toward friezes, and the venue has none" }
            if let needed = inputs.minimumHeadings, results.allSatisfy({ $0.reason == "too-few-headings" }) {
                return "needs \(needed) headings toward friezes in a scan, and no scan has them"
            }
        }
        var counts: [String: Int] = [:]
        for r in results { counts[r.reason ?? "none", default: 0] += 1 }
        let top = counts.max { ($0.value, $1.key) < ($1.value, $0.key) }!
        return "no fix in any epoch (\(top.value == results.count ? "every one" : "most often"): \(top.key))"
    }
}
