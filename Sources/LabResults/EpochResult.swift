import LabCore
import LabEstimators

/// One estimator's outcome on one epoch, with everything the metrics and plots need.
/// Written by `compare --out` (one CSV row each) so figures are drawn without recomputing.
public struct EpochResult: Sendable, Hashable {
    public var scenario: String
    public var seed: UInt64
    public var estimator: EstimatorKind
    /// Walk name, or "grid" for a static test point.
    public var walk: String
    public var epoch: Int
    public var t: Double
    public var truth: Point
    /// nil when there was no fix.
    public var fix: Point?
    public var uncertainty: Double?
    /// Short code of the no-fix reason.
    public var reason: String?
    /// Horizontal error, metres; nil without a fix.
    public var error: Double?
    /// trace of the inverse Fisher information for the readings of this epoch, m².
    public var crlb: Double
    public var beaconsHeard: Int
    /// Room hit: 1/0, nil when the truth is outside every room or there is no fix.
    public var roomHit: Bool?
    /// Exhibit hit: nearest exhibit of fix = nearest exhibit of truth; nil without exhibits or fix.
    public var exhibitHit: Bool?
    /// Headings with a known target, and how many of them the fix+heading matched to that target.
    public var friezeLooks: Int
    public var friezeHits: Int
    /// The posterior Cramér–Rao bound of this walk epoch (``PosteriorBound``), m²; nil on the static grid.
    public var pcrb: Double? = nil
    /// The fix's stated position covariance, m², when the estimator gives one (the track figure draws it as an
    /// ellipse).
    public var covariance: Covariance2? = nil

    /// The farthest from the origin a truth or a fix may lie, metres: a fix beyond is no fix (``EpochJudge``), and a
    /// results file holding one was not written by the lab.
    public static let coordinateLimit = 1e6
    /// The largest time a results row may carry, seconds (thirty years of recording).
    public static let timeLimit = 1e9

    public init(scenario: String, seed: UInt64, estimator: EstimatorKind, walk: String, epoch: Int, t: Double, truth: Point,
                fix: Point?, uncertainty: Double?, reason: String?, error: Double?, crlb: Double, beaconsHeard: Int,
                roomHit: Bool?, exhibitHit: Bool?, friezeLooks: Int, friezeHits: Int) {
        self.scenario = scenario; self.seed = seed; self.estimator = estimator; self.walk = walk; self.epoch = epoch
        self.t = t; self.truth = truth; self.fix = fix; self.uncertainty = uncertainty; self.reason = reason
        self.error = error; self.crlb = crlb; self.beaconsHeard = beaconsHeard; self.roomHit = roomHit
        self.exhibitHit = exhibitHit; self.friezeLooks = friezeLooks; self.friezeHits = friezeHits
    }
}
