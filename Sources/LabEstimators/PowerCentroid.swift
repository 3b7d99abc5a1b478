import LabCore
import LocatorEngine

/// Baseline: the heard beacons' positions weighted by received power, wᵢ = 10^(RSSIᵢ/10) (milliwatts).
/// A phone offset multiplies every weight by the same factor, so the fix does not depend on it: the
/// strongest simple baseline on real data with unknown phones.
public final class PowerCentroidEstimator: PositionEstimator {
    public static let name = "power-centroid"
    public static let summary = "beacon positions weighted by received power 10^(RSSI/10); needs no calibration"
    public static let inputs = EstimatorInputs(uses: [.rssi], minimumBeacons: 1)
    let venue: Venue

    public init(venue: Venue) { self.venue = venue }

    public func locate(_ observation: Observation) -> EstimateOutcome {
        CentroidFix.locate(observation, venue: venue) { ClosedForm.powerCentroid(venue: venue, beacons: $0) }
    }
}

extension EstimatorKind {
    public static let powerCentroid = EstimatorKind(PowerCentroidEstimator.self)
}
