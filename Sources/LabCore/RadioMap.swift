/// A survey: the mean RSSI of every beacon at known spots (a fingerprinting database). Built from a surveyed
/// walk or grid (the calibration phone, a different seed than the one scored) or from a recording's
/// calibration part; fingerprinting estimators match scans against it.
public struct RadioMap: Sendable, Hashable {
    public let positions: [Point]
    public let beaconCount: Int
    /// Row-major [spot][beacon] mean RSSI, dBm; NaN where the beacon was not heard.
    public let rssi: [Double]

    public init(positions: [Point], beaconCount: Int, rssi: [Double]) {
        precondition(rssi.count == positions.count * beaconCount, "one RSSI per spot and beacon")
        self.positions = positions; self.beaconCount = beaconCount; self.rssi = rssi
    }

    /// One spot per epoch (its truth), the mean RSSI of each beacon heard in it. Epochs that heard nothing
    /// are left out.
    public init(epochs: [Epoch], beaconCount: Int) {
        var positions: [Point] = []
        var values: [Double] = []
        var sums = [Double](repeating: 0, count: beaconCount), counts = [Int](repeating: 0, count: beaconCount)
        for e in epochs where !e.readings.isEmpty {
            for i in 0..<beaconCount { sums[i] = 0; counts[i] = 0 }
            for r in e.readings where r.beacon >= 0 && r.beacon < beaconCount && r.rssi.isFinite {
                sums[r.beacon] += r.rssi; counts[r.beacon] += 1
            }
            positions.append(e.truth)
            for i in 0..<beaconCount { values.append(counts[i] > 0 ? sums[i] / Double(counts[i]) : .nan) }
        }
        self.init(positions: positions, beaconCount: beaconCount, rssi: values)
    }

    public var isEmpty: Bool { positions.isEmpty }
}
