import LabCore
import LocatorEngine

/// Fingerprinting, the family of products such as Anyplace and FIND: weighted k-nearest neighbours over the
/// venue's survey (``Venue/survey``), with the phone's offset removed.
///
/// The distance between a scan and a survey spot is taken over the beacons both heard: the difference vector
/// (scan − spot) is centred on its mean — a common offset cancels — and its mean square is the core of the
/// distance; each beacon heard on one side only adds ``mismatchPenalty``. Spots sharing fewer than
/// ``minimumCommon`` beacons with the scan (fewer if the scan heard fewer) are skipped. The fix is the mean of the
/// ``neighbours`` nearest spots weighted by 1/(distance + 0.1 dB). A venue with a radio map (``Venue/radioMap``) but no
/// survey is matched against the map's grid (``SurveyMap/init(radioMap:venue:)``). Without either: no fix.
public final class FingerprintEstimator: PositionEstimator {
    public static let name = "fingerprint"
    public static let summary = "weighted k-nearest neighbours over a survey, RSSI differences (offset cancels)"
    public static let inputs = EstimatorInputs(uses: [.rssi, .survey], minimumBeacons: 1)
    /// k of k-nearest neighbours.
    public static let neighbours = 3
    /// Fewest beacons a spot must share with the scan (fewer when the scan heard fewer).
    public static let minimumCommon = 3
    /// What a beacon heard on one side only (scan or spot) adds to the squared distance, dB²: as if it were
    /// 10 dB off. A weaker phone hears fewer beacons, so absence is weak evidence, not a reading at the floor.
    public static let mismatchPenalty = 100.0

    let venue: Venue
    /// The venue's survey, or one read off its radio map.
    let survey: SurveyMap?
    private var scan: [Double]
    private var best: [(distance: Double, spot: Int)] = []

    public init(venue: Venue) {
        self.venue = venue
        survey = venue.survey ?? venue.radioMap.flatMap { $0.beaconCount == venue.beaconCount ? SurveyMap(radioMap: $0, venue: venue) : nil }
        scan = [Double](repeating: .nan, count: venue.beaconCount)
        best.reserveCapacity(Self.neighbours + 1)
    }

    public func locate(_ observation: Observation) -> EstimateOutcome {
        if let problem = observation.problem(beaconCount: venue.beaconCount) { return .noFix(.invalidInput(problem)) }
        guard let map = survey, !map.isEmpty, map.beaconCount == venue.beaconCount else {
            return .noFix(.invalidInput("the venue has no survey or radio map to match against"))
        }
        guard !observation.beacons.isEmpty else { return .noFix(.tooFewBeacons(heard: 0, needed: 1)) }
        for i in scan.indices { scan[i] = .nan }
        for o in observation.beacons { scan[o.beacon] = o.rssi }
        let n = map.beaconCount
        best.removeAll(keepingCapacity: true)
        let needed = min(Self.minimumCommon, observation.beacons.count)
        for spot in map.positions.indices {
            var sum = 0.0, sumSq = 0.0, common = 0.0, oneSided = 0.0
            let base = spot * n
            for b in 0..<n {
                let q = scan[b], m = map.rssi[base + b]
                if q.isNaN && m.isNaN { continue }
                if q.isNaN || m.isNaN {
                    oneSided += 1
                    continue
                }
                let d = q - m
                sum += d; sumSq += d * d; common += 1
            }
            guard common >= Double(needed), common > 0 else { continue }
            let mean = sum / common
            let distance = ((max(sumSq / common - mean * mean, 0) * common + oneSided * Self.mismatchPenalty) / (common + oneSided)).squareRoot()
            if best.count < Self.neighbours || distance < best[best.count - 1].distance {
                let at = best.firstIndex { distance < $0.distance } ?? best.count
                best.insert((distance, spot), at: at)
                if best.count > Self.neighbours { best.removeLast() }
            }
        }
        guard !best.isEmpty else { return .noFix(.degenerateGeometry("no survey spot shares a beacon with the scan")) }
        var sx = 0.0, sy = 0.0, sw = 0.0
        for (d, spot) in best {
            let w = 1 / (d + 0.1)
            sx += w * map.positions[spot].x; sy += w * map.positions[spot].y; sw += w
        }
        return .fix(Fix(position: Point(sx / sw, sy / sw), beaconsUsed: BeaconSet(observation.beacons.lazy.map(\.beacon))))
    }
}

extension EstimatorKind {
    public static let fingerprint = EstimatorKind(FingerprintEstimator.self)
}
