import LabCore
import LabEstimators
import LabResults

/// Runs estimators over epochs and judges each outcome against the truth.
public struct EpochJudge: Sendable {
    public let venue: Venue
    let bound: CramerRaoBound

    /// A judge whose bound is `bound` (default: the ideal, known-offset bound).
    public init(venue: Venue, bound: CramerRaoBound? = nil) { self.venue = venue; self.bound = bound ?? CramerRaoBound(venue: venue) }

    /// The observation an estimator gets for an epoch (mean RSSI per beacon, headings).
    public func observation(for e: Epoch) -> Observation {
        Observation(readings: e.readings, headings: e.headings, beaconCount: venue.beaconCount, t: e.t, steps: e.steps)
    }

    /// The bound for what was actually received in this epoch (beacons heard, their reading counts,
    /// and any headings), m².
    public func crlb(for e: Epoch, observation o: Observation) -> Double {
        let r = received(o)
        return bound.information(at: e.truth, beacons: r.beacons, bearings: r.bearings).traceOfInverse
    }

    /// What an epoch received, as the bounds count it: each heard beacon with its independent readings (with
    /// correlated shadowing the advertisements of one window share their shadowing draw: one reading however
    /// many were averaged), and the bearings toward known landmarks.
    func received(_ o: Observation) -> (beacons: [(beacon: Int, readings: Double)], bearings: [(landmark: Point, sigmaDegrees: Double)]) {
        let correlated = venue.radio.correlationDistance != nil
        let bearings = o.headings.compactMap { h -> (landmark: Point, sigmaDegrees: Double)? in
            (h.target ?? h.frieze).map { (venue.landmarks[$0].position, h.accuracy) }
        }
        return (o.beacons.map { ($0.beacon, correlated ? 1 : Double($0.count)) }, bearings)
    }

    /// The posterior bound of each epoch of one walk, m² (``PosteriorBound``).
    public func pcrb(walk epochs: ArraySlice<Epoch>, observations: [Observation], posterior: PosteriorBound) -> [Double] {
        posterior.bounds(walk: zip(epochs, observations).map { e, o in
            let r = received(o)
            return (e.truth, e.t, r.beacons, r.bearings)
        }, steps: observations.contains { $0.steps != nil } ? observations.map(\.steps) : nil)
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
        case .fix(let f) where !(abs(f.position.x) <= EpochResult.coordinateLimit && abs(f.position.y) <= EpochResult.coordinateLimit):
            // A fix no map can show is no fix (the results file could not hold it either).
            r.reason = NoFixReason.solverFailed("the fix is not finite").code
        case .fix(let f):
            r.fix = f.position
            r.uncertainty = f.uncertainty
            r.covariance = f.covariance
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
