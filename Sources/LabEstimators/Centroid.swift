import LabCore

/// Baselines: the centroid of the heard beacons, or their centroid weighted by 1/range².
public final class CentroidEstimator: PositionEstimator {
    public let kind: EstimatorKind
    let venue: Venue
    let weighted: Bool

    public init(venue: Venue, weighted: Bool) {
        self.venue = venue; self.weighted = weighted
        kind = weighted ? .weightedCentroid : .centroid
    }

    public func locate(_ observation: Observation) -> EstimateOutcome {
        if let problem = observation.problem(beaconCount: venue.beaconCount) { return .noFix(.invalidInput(problem)) }
        guard !observation.beacons.isEmpty else { return .noFix(.tooFewBeacons(heard: 0, needed: 1)) }
        let p = ClosedForm.centroid(venue: venue, beacons: observation.beacons, weighted: weighted)
        return .fix(Fix(position: p, beaconsUsed: BeaconSet(observation.beacons.lazy.map(\.beacon))))
    }
}
