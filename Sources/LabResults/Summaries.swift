import LabCore
import LabEstimators

// The summaries a run writes to run.json and replay prints: plain records. LabEvaluation computes them
// (ErrorStatistics(errors:attempts:), ScenarioScore(scenario:estimator:results:), Leaderboard(results:…)).

/// Error statistics of one estimator over a set of epochs (docs/results-format.md, the epochs file's columns).
/// Quantiles are ``QuantileMethod/linear`` quantiles of the horizontal errors of the epochs with a fix.
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

    public init(count: Int, fixes: Int, availability: Double, mean: Double, median: Double, p75: Double, p90: Double,
                p95: Double, rmse: Double, max: Double) {
        self.count = count; self.fixes = fixes; self.availability = availability; self.mean = mean; self.median = median
        self.p75 = p75; self.p90 = p90; self.p95 = p95; self.rmse = rmse; self.max = max
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
    /// RMSE / sqrt(mean CRLB). Near 1: as good as an unbiased estimator can be. Below 1 is possible: the
    /// bound holds for unbiased estimators, and fixes kept inside the venue, or pulled toward the beacons
    /// by a prior-like start, are biased; a few seeds also leave sampling noise in both figures.
    public var efficiency: Double?
    /// The share of the epochs that heard at least three beacons with a fix (nil when none did): the availability the winner
    /// rule reads. A one-scan fix answers a scan of one or two beacons only where it determines a position, so over every
    /// scan that heard a beacon (``ErrorStatistics/availability``) it stays below a tracker's.
    public var availabilityWithThree: Double?
    /// What the winner rule's availability clause reads: ``availabilityWithThree``, or the availability when no epoch heard three.
    public var ruleAvailability: Double { availabilityWithThree ?? stats.availability }

    public init(scenario: String, estimator: EstimatorKind, stats: ErrorStatistics, roomHitRate: Double?, exhibitHitRate: Double?,
                friezeHitRate: Double?, crlbRMSE: Double?, efficiency: Double?, availabilityWithThree: Double? = nil) {
        self.scenario = scenario; self.estimator = estimator; self.stats = stats; self.roomHitRate = roomHitRate
        self.exhibitHitRate = exhibitHitRate; self.friezeHitRate = friezeHitRate; self.crlbRMSE = crlbRMSE; self.efficiency = efficiency
        self.availabilityWithThree = availabilityWithThree
    }
}

/// The tournament's verdict: scores per estimator and scenario, an overall row per estimator, the winner.
public struct Leaderboard: Sendable, Codable {
    public struct Overall: Sendable, Codable, Hashable {
        public var estimator: EstimatorKind
        /// Mean of the per-scenario P75, metres.
        public var meanP75: Double
        /// Lowest per-scenario availability the winner rule reads (``ScenarioScore/ruleAvailability``).
        public var minAvailability: Double
        public var meanRMSE: Double
        public var eligible: Bool
        /// Real protocols on which it collapsed (mean error beyond the collapse threshold × the best baseline's).
        public var collapsedOn: [String]
        public init(estimator: EstimatorKind, meanP75: Double, minAvailability: Double, meanRMSE: Double, eligible: Bool,
                    collapsedOn: [String] = []) {
            self.estimator = estimator; self.meanP75 = meanP75; self.minAvailability = minAvailability
            self.meanRMSE = meanRMSE; self.eligible = eligible; self.collapsedOn = collapsedOn
        }

        enum CodingKeys: String, CodingKey { case estimator, meanP75, minAvailability, meanRMSE, eligible, collapsedOn }

        /// Results written before the collapse test have no `collapsedOn`: read as none.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(estimator: try c.decode(EstimatorKind.self, forKey: .estimator), meanP75: try c.decode(Double.self, forKey: .meanP75),
                      minAvailability: try c.decode(Double.self, forKey: .minAvailability), meanRMSE: try c.decode(Double.self, forKey: .meanRMSE),
                      eligible: try c.decode(Bool.self, forKey: .eligible),
                      collapsedOn: try c.decodeIfPresent([String].self, forKey: .collapsedOn) ?? [])
        }
    }

    public var scenarios: [String]
    public var seeds: [UInt64]
    public var scores: [ScenarioScore]
    public var overall: [Overall]
    public var winner: EstimatorKind?
    public var rule: String
    /// Track metrics on the scenarios' walks (nil in results written before tracking was measured).
    public var tracking: [TrackScore]?

    public init(scenarios: [String], seeds: [UInt64], scores: [ScenarioScore], overall: [Overall], winner: EstimatorKind?, rule: String) {
        self.scenarios = scenarios; self.seeds = seeds; self.scores = scores; self.overall = overall
        self.winner = winner; self.rule = rule
    }

    public func score(_ scenario: String, _ estimator: EstimatorKind) -> ScenarioScore? {
        scores.first { $0.scenario == scenario && $0.estimator == estimator }
    }
}

/// How an estimator's fixes move along walks, beside the error statistics (docs/tracking.md). Computed
/// (LabEvaluation, `TrackMetrics(results:venue:)`) from one estimator's results on one scenario (every seed and
/// walk; grid epochs are ignored), walk by walk in epoch order.
public struct TrackMetrics: Sendable, Codable, Hashable {
    /// Walk epochs, and those with a fix.
    public var epochs: Int
    public var fixes: Int
    /// Pairs of consecutive fixes (consecutive epochs both with a fix) whose segment crosses a wall, out of all
    /// such pairs: a track through a wall is a track no walker made. Nil when no pair.
    public var wallCrossingRate: Double?
    /// Mean delay from the walker entering a room to the fixes first being in that room, s, over the entries the
    /// fixes reached before the walker left; ``missedRoomEntries`` counts the others.
    public var roomEntryDelay: Double?
    public var roomEntries: Int
    public var missedRoomEntries: Int
    /// RMS of the fix's movement between consecutive epochs while the walker stood still (the truth did not
    /// move), m.
    public var stillJitter: Double?
    /// Mean time from a walk's first scan to its first fix, s (walks that never got a fix are left out).
    public var timeToFirstFix: Double?
    /// RMSE over the walk epochs with a fix, m; √ of the mean posterior bound over the same epochs, m; and their
    /// ratio, the efficiency against the PCRB (nil without bounds).
    public var rmse: Double
    public var pcrbRMSE: Double?
    public var pcrbEfficiency: Double?
    /// P75 of the walk epochs' errors, m.
    public var p75: Double
    /// P75 of the errors while the walker stood (the truth where it was the scan window before: a pause at an exhibit, a
    /// surveyor at a reference point) and while it walked (the rest, a walk's first epoch included), m; nil when no
    /// such epoch has a fix.
    public var standingP75: Double?
    public var walkingP75: Double?

    public init(epochs: Int, fixes: Int, wallCrossingRate: Double?, roomEntryDelay: Double?, roomEntries: Int, missedRoomEntries: Int,
                stillJitter: Double?, timeToFirstFix: Double?, rmse: Double, pcrbRMSE: Double?, pcrbEfficiency: Double?, p75: Double,
                standingP75: Double? = nil, walkingP75: Double? = nil) {
        self.epochs = epochs; self.fixes = fixes; self.wallCrossingRate = wallCrossingRate; self.roomEntryDelay = roomEntryDelay
        self.roomEntries = roomEntries; self.missedRoomEntries = missedRoomEntries; self.stillJitter = stillJitter
        self.timeToFirstFix = timeToFirstFix; self.rmse = rmse; self.pcrbRMSE = pcrbRMSE; self.pcrbEfficiency = pcrbEfficiency; self.p75 = p75
        self.standingP75 = standingP75; self.walkingP75 = walkingP75
    }
}

/// One estimator's ``TrackMetrics`` on one scenario.
public struct TrackScore: Sendable, Codable, Hashable {
    public var scenario: String
    public var estimator: EstimatorKind
    public var metrics: TrackMetrics
    public init(scenario: String, estimator: EstimatorKind, metrics: TrackMetrics) {
        self.scenario = scenario; self.estimator = estimator; self.metrics = metrics
    }
}
