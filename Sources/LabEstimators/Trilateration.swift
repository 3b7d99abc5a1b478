import LabCore
import LocatorEngine

/// The museum guide's method: intersect the circles of the two strongest beacons and let the third
/// strongest beacon's range pick one of the two intersections.
///
/// Fallbacks, documented because real ranges rarely agree:
/// - circles **apart** (D > r₁ + r₂): both radii are scaled by D / (r₁ + r₂) so the circles touch;
///   the fix is the touching point on the line between the beacons.
/// - one circle **inside** the other (D < |r₁ − r₂|): the fix is midway between the two circles'
///   far points on the line through the centres (where they would touch if the ranges grew/shrank equally).
/// - when the third beacon lies on the line through the first two, the next strongest beacon off that
///   line decides; if every heard beacon is on that line the two points cannot be told apart: no fix.
public final class TrilaterationEstimator: PositionEstimator {
    public static let name = "trilateration"
    public static let summary = "two strongest beacons' circles intersected, the third picks the point"
    public static let inputs = EstimatorInputs(uses: [.rssi], minimumBeacons: 3)
    let venue: Venue

    public init(venue: Venue) { self.venue = venue }

    public func locate(_ observation: Observation) -> EstimateOutcome {
        if let problem = observation.problem(beaconCount: venue.beaconCount) { return .noFix(.invalidInput(problem)) }
        let obs = observation.beacons
        guard obs.count >= 3 else { return .noFix(.tooFewBeacons(heard: obs.count, needed: 3)) }
        let i1 = obs[0].beacon, i2 = obs[1].beacon
        let c1 = venue.beaconPositions[i1], c2 = venue.beaconPositions[i2]
        let r1 = venue.horizontalRange(beacon: i1, rssi: obs[0].rssi)
        let r2 = venue.horizontalRange(beacon: i2, rssi: obs[1].rssi)
        let delta = c2 - c1
        let d = delta.length
        guard d > 1e-9 else { return .noFix(.degenerateGeometry("the two strongest beacons are at the same place")) }
        let u = delta / d

        if d >= r1 + r2 {
            let s = r1 + r2 > 0 ? d / (r1 + r2) : 0.5
            let p = r1 + r2 > 0 ? c1 + u * (r1 * s) : c1 + u * (d / 2)
            return .fix(Fix(position: p, beaconsUsed: BeaconSet([i1, i2])))
        }
        if d <= abs(r1 - r2) {
            let along = r1 > r2 ? (r1 + d + r2) / 2 : (d - r1 - r2) / 2
            return .fix(Fix(position: c1 + u * along, beaconsUsed: BeaconSet([i1, i2])))
        }
        let a = (r1 * r1 - r2 * r2 + d * d) / (2 * d)
        let h = max(r1 * r1 - a * a, 0).squareRoot()
        let mid = c1 + u * a
        let perp = Point(-u.y, u.x)
        let p1 = mid + perp * h, p2 = mid - perp * h

        // The disambiguating beacon: the strongest one not on the line through c1 and c2.
        for k in 2..<obs.count {
            let i3 = obs[k].beacon
            let c3 = venue.beaconPositions[i3]
            let offLine = abs(u.cross(c3 - c1))
            if offLine <= 1e-9 * max(d, 1) { continue }
            let r3 = venue.horizontalRange(beacon: i3, rssi: obs[k].rssi)
            let e1 = abs(p1.distance(to: c3) - r3), e2 = abs(p2.distance(to: c3) - r3)
            return .fix(Fix(position: e1 <= e2 ? p1 : p2, beaconsUsed: BeaconSet([i1, i2, i3])))
        }
        if h <= 1e-12 { return .fix(Fix(position: mid, beaconsUsed: BeaconSet([i1, i2]))) }
        return .noFix(.degenerateGeometry("all heard beacons are collinear: the two intersections cannot be told apart"))
    }
}

extension EstimatorKind {
    public static let trilateration = EstimatorKind(TrilaterationEstimator.self)
}
