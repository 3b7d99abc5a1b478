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

    public init(scenario: String, seed: UInt64, estimator: EstimatorKind, walk: String, epoch: Int, t: Double, truth: Point,
                fix: Point?, uncertainty: Double?, reason: String?, error: Double?, crlb: Double, beaconsHeard: Int,
                roomHit: Bool?, exhibitHit: Bool?, friezeLooks: Int, friezeHits: Int) {
        self.scenario = scenario; self.seed = seed; self.estimator = estimator; self.walk = walk; self.epoch = epoch
        self.t = t; self.truth = truth; self.fix = fix; self.uncertainty = uncertainty; self.reason = reason
        self.error = error; self.crlb = crlb; self.beaconsHeard = beaconsHeard; self.roomHit = roomHit
        self.exhibitHit = exhibitHit; self.friezeLooks = friezeLooks; self.friezeHits = friezeHits
    }
}

/// Runs estimators over epochs and judges each outcome against the truth.
public struct EpochJudge: Sendable {
    public let venue: Venue
    let bound: CramerRaoBound

    public init(venue: Venue) { self.venue = venue; bound = CramerRaoBound(venue: venue) }

    /// The observation an estimator gets for an epoch (mean RSSI per beacon, headings).
    public func observation(for e: Epoch) -> Observation {
        Observation(readings: e.readings, headings: e.headings, beaconCount: venue.beaconCount)
    }

    /// The bound for what was actually received in this epoch (beacons heard, their reading counts,
    /// and any headings), m².
    public func crlb(for e: Epoch, observation o: Observation) -> Double {
        // With correlated shadowing the advertisements of one window share their shadowing draw: one
        // independent reading per beacon, however many were averaged.
        let correlated = venue.radio.correlationDistance != nil
        let bearings = o.headings.compactMap { h -> (landmark: Point, sigmaDegrees: Double)? in
            (h.target ?? h.frieze).map { (venue.landmarks[$0].position, h.accuracy) }
        }
        return bound.bound(at: e.truth, beacons: o.beacons.map { ($0.beacon, correlated ? 1 : $0.count) }, bearings: bearings)
    }

    public func judge(_ outcome: EstimateOutcome, epoch e: Epoch, observation o: Observation, crlb: Double,
                      estimator: EstimatorKind, scenario: String, seed: UInt64) -> EpochResult {
        var r = EpochResult(scenario: scenario, seed: seed, estimator: estimator, walk: e.walk ?? "grid", epoch: e.index,
                            t: e.t, truth: e.truth, fix: nil, uncertainty: nil, reason: nil, error: nil, crlb: crlb,
                            beaconsHeard: o.beacons.count, roomHit: nil, exhibitHit: nil, friezeLooks: 0, friezeHits: 0)
        let targets = e.headings.filter { $0.target != nil }
        r.friezeLooks = targets.count
        switch outcome {
        case .noFix(let reason):
            r.reason = reason.code
        case .fix(let f):
            r.fix = f.position
            r.uncertainty = f.uncertainty
            r.error = f.position.distance(to: e.truth)
            if let room = e.room ?? venue.roomIndex(at: e.truth) { r.roomHit = venue.roomIndex(at: f.position) == room }
            if !venue.exhibits.isEmpty {
                r.exhibitHit = venue.nearestLandmark(to: f.position, kind: .exhibit) == venue.nearestLandmark(to: e.truth, kind: .exhibit)
            }
            for h in targets where FriezeMatcher.bestFrieze(for: h.heading, from: f.position, venue: venue) == h.target {
                r.friezeHits += 1
            }
        }
        return r
    }
}
