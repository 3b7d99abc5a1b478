/// A survey: the mean RSSI of every beacon at known spots (a fingerprinting database). Built from a surveyed
/// walk or grid (the calibration phone, a different seed than the one scored) or from a recording's
/// calibration part; fingerprinting estimators match scans against it.
public struct SurveyMap: Sendable, Hashable {
    public let positions: [Point]
    public let beaconCount: Int
    /// Row-major [spot][beacon] mean RSSI, dBm; NaN where the beacon was not heard.
    public let rssi: [Double]

    public init(positions: [Point], beaconCount: Int, rssi: [Double]) {
        precondition(rssi.count == positions.count * beaconCount, "one RSSI per spot and beacon")
        self.positions = positions; self.beaconCount = beaconCount; self.rssi = rssi
    }

    /// One spot per distinct truth position: the mean RSSI of each beacon over every epoch at that spot (a
    /// survey stands still at each spot for several scan windows). Spots where nothing was heard are left out.
    public init(epochs: [Epoch], beaconCount: Int) {
        var spotIndex: [Point: Int] = [:]
        var positions: [Point] = []
        var sums: [Double] = [], counts: [Int] = []
        for e in epochs where !e.readings.isEmpty {
            let spot = spotIndex[e.truth] ?? {
                let k = positions.count
                spotIndex[e.truth] = k; positions.append(e.truth)
                sums += repeatElement(0, count: beaconCount); counts += repeatElement(0, count: beaconCount)
                return k
            }()
            for r in e.readings where r.beacon >= 0 && r.beacon < beaconCount && r.rssi.isFinite {
                sums[spot * beaconCount + r.beacon] += r.rssi; counts[spot * beaconCount + r.beacon] += 1
            }
        }
        let values = zip(sums, counts).map { $1 > 0 ? $0 / Double($1) : .nan }
        self.init(positions: positions, beaconCount: beaconCount, rssi: values)
    }

    public var isEmpty: Bool { positions.isEmpty }

    /// A survey read off a radio map: one spot per grid node inside the venue (inside a room, when it has rooms), each
    /// mapped beacon's reading there the law's mean (its P0, n, the walls) plus the map's residual, and NaN (not heard)
    /// where that falls below the sensitivity or the beacon has no map. What fingerprinting matches against when a venue
    /// has a radio map but no survey of its own (``FingerprintEstimator``, `replay --radio FIT`).
    public init(radioMap map: RadioMap, venue: Venue) {
        var positions: [Point] = [], rssi: [Double] = []
        for j in 0..<map.ny {
            for i in 0..<map.nx {
                let p = Point(map.origin.x + Double(i) * map.cellSize, map.origin.y + Double(j) * map.cellSize)
                guard venue.bounds.contains(p), venue.rooms.isEmpty || venue.roomIndex(at: p) != nil else { continue }
                positions.append(p)
                for b in 0..<venue.beaconCount {
                    guard map.maps(beacon: b) else { rssi.append(.nan); continue }
                    let mean = venue.lawMean(beacon: b, at: p) + map.residual(beacon: b, at: p)
                    rssi.append(mean >= venue.radio.sensitivity ? mean : .nan)
                }
            }
        }
        self.init(positions: positions, beaconCount: venue.beaconCount, rssi: rssi)
    }
}
