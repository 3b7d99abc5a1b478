import LabCore

/// A recording's readings condensed as they stream from the file: for each scan window, each beacon's sum and count of
/// readings, added in the order recorded. That is all an epoch's observation is made of (``Observation``'s
/// `init(readings:…)` averages the same sums in the same order, so the observations are identical), and it takes
/// memory per window and beacon heard, never per reading: replaying a recording of 20 million readings holds none.
public struct CondensedReadings: Sendable {
    /// One beacon's readings in one window.
    struct BeaconSum: Sendable {
        var beacon: Int32
        var count: Int32
        var sum: Double
    }
    /// Per window index, the beacons heard in it in the order first heard.
    private(set) var windows: [Int: [BeaconSum]] = [:]
    /// Readings condensed.
    public private(set) var count = 0
    /// The receiver's floor the readings show.
    private var receiverFloor = ReceiverFloor()

    let builder: EpochBuilder

    init(builder: EpochBuilder) { self.builder = builder }

    /// The window readings are being added to (a recording's readings come in time order, so one at a time), kept out
    /// of ``windows`` until the next window starts.
    private var currentKey: Int?
    private var current: [BeaconSum] = []

    /// Adds one reading (already checked: a beacon of the venue, a plausible RSSI).
    @inline(__always) mutating func add(_ r: RSSIReading) {
        count += 1
        receiverFloor.see(r.rssi)
        let k = builder.windowIndex(r.t)
        if k != currentKey {
            finish()
            currentKey = k
            current = windows.removeValue(forKey: k) ?? []
        }
        let b = Int32(truncatingIfNeeded: r.beacon)
        if let i = current.firstIndex(where: { $0.beacon == b }) {
            current[i].count += 1; current[i].sum += r.rssi
        } else {
            current.append(BeaconSum(beacon: b, count: 1, sum: r.rssi))
        }
    }

    /// Puts the window being added to with the others; call once every reading is added.
    mutating func finish() {
        if let key = currentKey, !current.isEmpty { windows[key] = current }
        currentKey = nil
        current = []
    }

    /// The receiver's floor the readings show (``RadioFit/floor(of:)``), dBm; nil without readings.
    public var floor: Double? { receiverFloor.value }

    /// Window `k`'s beacons as an observation's: each the mean of its readings, by beacon index (the observation puts
    /// them strongest first).
    func beacons(inWindow k: Int) -> [BeaconObservation] {
        (windows[k] ?? []).sorted { $0.beacon < $1.beacon }
            .map { BeaconObservation(beacon: Int($0.beacon), rssi: $0.sum / Double($0.count), count: Int($0.count)) }
    }

    /// Readings, and windows holding any, in windows that `hasTruth` does not accept.
    func withoutTruth(_ hasTruth: (Int) -> Bool) -> (readings: Int, windows: Int) {
        var readings = 0, windows = 0
        for (k, list) in self.windows where !hasTruth(k) {
            windows += 1
            readings += list.reduce(0) { $0 + Int($1.count) }
        }
        return (readings, windows)
    }
}
