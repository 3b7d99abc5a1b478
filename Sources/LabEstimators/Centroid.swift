import LabCore
import LocatorEngine

/// Baseline: the mean position of the heard beacons.
public final class CentroidEstimator: PositionEstimator {
    public static let name = "centroid"
    public static let summary = "mean position of the beacons heard"
    public static let inputs = EstimatorInputs(uses: [.rssi], minimumBeacons: 1)
    let venue: Venue

    public init(venue: Venue) { self.venue = venue }

    public func locate(_ observation: Observation) -> EstimateOutcome {
        CentroidFix.locate(observation, venue: venue) { ClosedForm.centroid(venue: venue, beacons: $0, weighted: false) }
    }
}

/// Baseline: the heard beacons' positions weighted by 1/range² (range from the path-loss law).
public final class WeightedCentroidEstimator: PositionEstimator {
    public static let name = "weighted-centroid"
    public static let summary = "beacon positions weighted by 1/range²"
    public static let inputs = EstimatorInputs(uses: [.rssi], minimumBeacons: 1)
    let venue: Venue

    public init(venue: Venue) { self.venue = venue }

    public func locate(_ observation: Observation) -> EstimateOutcome {
        CentroidFix.locate(observation, venue: venue) { ClosedForm.centroid(venue: venue, beacons: $0, weighted: true) }
    }
}

/// The fix every centroid baseline gives: the input checks, then `centre` of the heard beacons.
enum CentroidFix {
    static func locate(_ observation: Observation, venue: Venue, centre: ([BeaconObservation]) -> Point) -> EstimateOutcome {
        if let problem = observation.problem(beaconCount: venue.beaconCount) { return .noFix(.invalidInput(problem)) }
        guard !observation.beacons.isEmpty else { return .noFix(.tooFewBeacons(heard: 0, needed: 1)) }
        return .fix(Fix(position: centre(observation.beacons), beaconsUsed: BeaconSet(observation.beacons.lazy.map(\.beacon))))
    }
}

extension EstimatorKind {
    public static let centroid = EstimatorKind(CentroidEstimator.self)
    public static let weightedCentroid = EstimatorKind(WeightedCentroidEstimator.self)
}
