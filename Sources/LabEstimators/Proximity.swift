import LabCore
import LocatorEngine

/// Apple's CLProximity buckets for a range estimate.
public enum ProximityBucket: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    case immediate = 0, near, far, unknown

    /// immediate: d < 0.5 m; near: d < 3 m; far: otherwise; unknown: not heard (nil or not finite).
    public static func classify(distance d: Double?) -> ProximityBucket {
        guard let d, d.isFinite, d >= 0 else { return .unknown }
        if d < 0.5 { return .immediate }
        if d < 3 { return .near }
        return .far
    }

    public static func < (a: ProximityBucket, b: ProximityBucket) -> Bool { a.rawValue < b.rawValue }
    public var description: String { ["immediate", "near", "far", "unknown"][rawValue] }
}

/// The fix is the nearest beacon of the best proximity bucket (ties by RSSI): the museum guide's
/// "which exhibit am I at". The uncertainty is the bucket's outer radius (the range itself when far).
public final class ProximityEstimator: PositionEstimator {
    public static let name = "proximity"
    public static let summary = "nearest beacon of the best CLProximity bucket"
    public static let inputs = EstimatorInputs(uses: [.rssi], minimumBeacons: 1)
    let venue: Venue

    public init(venue: Venue) { self.venue = venue }

    public func locate(_ observation: Observation) -> EstimateOutcome {
        if let problem = observation.problem(beaconCount: venue.beaconCount) { return .noFix(.invalidInput(problem)) }
        guard !observation.beacons.isEmpty else { return .noFix(.tooFewBeacons(heard: 0, needed: 1)) }
        var best: (bucket: ProximityBucket, range: Double, rssi: Double, beacon: Int)?
        if venue.isPlanar {
            // Range grows with P0 − RSSI, and buckets with range: the nearest beacon is the best-bucket
            // beacon, so only its range needs the power law.
            var pick = observation.beacons[0]
            var key = venue.beaconP0[pick.beacon] - pick.rssi
            for o in observation.beacons.dropFirst() {
                let k = venue.beaconP0[o.beacon] - o.rssi
                if k < key || (k == key && o.rssi > pick.rssi) { key = k; pick = o }
            }
            let r = venue.horizontalRange(beacon: pick.beacon, rssi: pick.rssi)
            best = (ProximityBucket.classify(distance: r), r, pick.rssi, pick.beacon)
        } else {
            for o in observation.beacons {
                let r = venue.horizontalRange(beacon: o.beacon, rssi: o.rssi)
                let b = ProximityBucket.classify(distance: r)
                if let cur = best {
                    if b < cur.bucket || (b == cur.bucket && (r < cur.range || (r == cur.range && o.rssi > cur.rssi))) {
                        best = (b, r, o.rssi, o.beacon)
                    }
                } else { best = (b, r, o.rssi, o.beacon) }
            }
        }
        guard let best else { return .noFix(.tooFewBeacons(heard: 0, needed: 1)) }
        let radius: Double = best.bucket == .immediate ? 0.5 : best.bucket == .near ? 3 : best.range
        var used = BeaconSet(); used.insert(best.beacon)
        return .fix(Fix(position: venue.beaconPositions[best.beacon], uncertainty: radius, beaconsUsed: used))
    }
}

extension EstimatorKind {
    public static let proximity = EstimatorKind(ProximityEstimator.self)
}
