/// One received advertisement: which beacon (index into the scenario's beacons), when, how strong.
public struct RSSIReading: Sendable, Hashable, Codable {
    public var beacon: Int
    /// Seconds since the start of the walk or recording.
    public var t: Double
    /// Received signal strength, dBm.
    public var rssi: Double
    public init(beacon: Int, t: Double, rssi: Double) { self.beacon = beacon; self.t = t; self.rssi = rssi }
}

/// One compass heading taken while pointing the phone at a frieze.
public struct HeadingReading: Sendable, Hashable, Codable {
    public var t: Double
    /// Compass heading, degrees clockwise from north.
    public var heading: Double
    /// The compass's stated standard deviation, degrees.
    public var accuracy: Double
    /// Landmark index of the frieze, when the app knows which one it points at; nil = must be matched.
    public var frieze: Int?
    /// Landmark index of the frieze truly looked at (ground truth; nil in real recordings without it).
    public var target: Int?
    public init(t: Double, heading: Double, accuracy: Double, frieze: Int?, target: Int?) {
        self.t = t; self.heading = heading; self.accuracy = accuracy; self.frieze = frieze; self.target = target
    }
}

/// One step from the phone's step detector (pedestrian dead reckoning): how far and which way.
public struct StepReading: Sendable, Hashable, Codable {
    /// When the step ended, seconds.
    public var t: Double
    /// Step length, metres.
    public var length: Double
    /// Direction of the step, degrees clockwise from north (the compass's, with its bias).
    public var heading: Double
    /// Standard deviation of the length, metres.
    public var lengthAccuracy: Double
    /// Standard deviation of the heading, degrees.
    public var headingAccuracy: Double
    public init(t: Double, length: Double, heading: Double, lengthAccuracy: Double, headingAccuracy: Double) {
        self.t = t; self.length = length; self.heading = heading
        self.lengthAccuracy = lengthAccuracy; self.headingAccuracy = headingAccuracy
    }

    /// The longest step a step detector reports, metres (a running stride is under 2 m); also the largest σ of a
    /// step's length.
    public static let longest = 3.0

    /// Whether every field is a usable number: t finite, length and its σ in [0, ``longest``], heading in [0, 360),
    /// its σ in [0, 180].
    public var isValid: Bool {
        t.isFinite && length >= 0 && length <= StepReading.longest && heading >= 0 && heading < 360
            && lengthAccuracy >= 0 && lengthAccuracy <= StepReading.longest && headingAccuracy >= 0 && headingAccuracy <= 180
    }
}

/// How a ground-truth position was obtained.
public enum TruthSource: String, Sendable, Hashable, Codable, CaseIterable {
    case simulated, checkpoint = "qr-checkpoint", survey, annotated
}

/// One scan window: what the phone heard and looked at, and where it truly was.
public struct Epoch: Sendable, Hashable, Codable {
    /// Walk name, or nil for a static test point.
    public var walk: String?
    public var index: Int
    /// Time at the middle of the scan window, seconds.
    public var t: Double
    public var truth: Point
    public var truthSource: TruthSource
    /// Room index of the truth, if inside one.
    public var room: Int?
    public var readings: [RSSIReading]
    public var headings: [HeadingReading]
    /// Checkpoint index of a QR code scanned during this window.
    public var checkpoint: Int?
    /// Steps the phone's step detector reported since the previous epoch (pedestrian dead reckoning); nil when
    /// the phone has no step detector (empty: it has one, and the walker stood still).
    public var steps: [StepReading]?

    public init(walk: String?, index: Int, t: Double, truth: Point, truthSource: TruthSource = .simulated, room: Int?,
                readings: [RSSIReading], headings: [HeadingReading] = [], checkpoint: Int? = nil, steps: [StepReading]? = nil) {
        self.walk = walk; self.index = index; self.t = t; self.truth = truth; self.truthSource = truthSource
        self.room = room; self.readings = readings; self.headings = headings; self.checkpoint = checkpoint
        self.steps = steps
    }
}

/// What an estimator sees of one beacon in one scan window: the mean of the RSSI heard.
public struct BeaconObservation: Sendable, Hashable {
    public var beacon: Int
    /// Mean RSSI over the window, dBm.
    public var rssi: Double
    /// How many advertisements were averaged.
    public var count: Int
    public init(beacon: Int, rssi: Double, count: Int = 1) { self.beacon = beacon; self.rssi = rssi; self.count = count }
}

/// An estimator's input for one epoch: beacons heard (strongest first) and headings taken.
public struct Observation: Sendable, Hashable {
    public var beacons: [BeaconObservation]
    public var headings: [HeadingReading]
    /// When the scan window was, seconds (the tournament gives its middle, the library's stream its end; only
    /// differences matter): what trackers predict across. Nil when not known.
    public var t: Double?
    /// Steps reported since the previous observation (pedestrian dead reckoning), oldest first; nil when the
    /// phone has no step detector, empty when it has one and no step was taken. Trackers that take them move
    /// by them instead of by the motion model alone.
    public var steps: [StepReading]?

    /// Builds an observation as given (no merging), its beacons put strongest first (``isHeardBefore(_:_:)``); estimators
    /// check it with ``problem``.
    public init(beacons: [BeaconObservation], headings: [HeadingReading] = [], t: Double? = nil, steps: [StepReading]? = nil) {
        // Already in order (as the library's scans come), kept without the copy a sort makes.
        let ordered = beacons.indices.dropFirst().allSatisfy { !Self.isHeardBefore(beacons[$0], beacons[$0 - 1]) }
        self.beacons = ordered ? beacons : beacons.sorted(by: Self.isHeardBefore)
        self.headings = headings
        self.t = t
        self.steps = steps
    }

    /// The order of an observation's beacons: stronger first, and between equal readings the lower index.
    @inlinable public static func isHeardBefore(_ a: BeaconObservation, _ b: BeaconObservation) -> Bool {
        a.rssi > b.rssi || (a.rssi == b.rssi && a.beacon < b.beacon)
    }

    /// Averages raw readings per beacon (in dBm, the maximum-likelihood statistic under log-normal
    /// shadowing); readings that are not finite are dropped.
    public init(readings: [RSSIReading], headings: [HeadingReading] = [], beaconCount: Int, t: Double? = nil,
                steps: [StepReading]? = nil) {
        var sums = [Double](repeating: 0, count: beaconCount)
        var counts = [Int](repeating: 0, count: beaconCount)
        for r in readings where r.rssi.isFinite && r.beacon >= 0 && r.beacon < beaconCount {
            sums[r.beacon] += r.rssi
            counts[r.beacon] += 1
        }
        var obs: [BeaconObservation] = []
        obs.reserveCapacity(8)
        for i in 0..<beaconCount where counts[i] > 0 {
            obs.append(BeaconObservation(beacon: i, rssi: sums[i] / Double(counts[i]), count: counts[i]))
        }
        self.init(beacons: obs, headings: headings, t: t, steps: steps)
    }

    /// Why this observation cannot be used as it is (NaN, unknown or repeated beacons), or nil when it is fine.
    /// Allocation-free: it runs before every fix.
    public func problem(beaconCount: Int) -> String? {
        var seenLow: UInt64 = 0, seenHigh: UInt64 = 0
        for (k, b) in beacons.enumerated() {
            if !b.rssi.isFinite { return "RSSI of beacon #\(b.beacon) is not a finite number" }
            if b.beacon < 0 || b.beacon >= beaconCount { return "beacon #\(b.beacon) is not in the venue" }
            let repeated: Bool
            if b.beacon < 64 {
                repeated = seenLow & (1 << UInt64(b.beacon)) != 0; seenLow |= 1 << UInt64(b.beacon)
            } else if b.beacon < 128 {
                repeated = seenHigh & (1 << UInt64(b.beacon - 64)) != 0; seenHigh |= 1 << UInt64(b.beacon - 64)
            } else {
                repeated = beacons[..<k].contains { $0.beacon == b.beacon }
            }
            if repeated { return "beacon #\(b.beacon) appears twice in one epoch" }
        }
        if let t, !t.isFinite { return "the scan's time is not a finite number" }
        for h in headings where !h.heading.isFinite || !h.accuracy.isFinite || h.accuracy < 0 {
            return "a heading or its accuracy is not a finite number (accuracy must be ≥ 0)"
        }
        for s in steps ?? [] where !s.isValid {
            return "a step is not valid (length and its σ in [0, 3] m, heading in [0, 360), its σ in [0, 180]°)"
        }
        return nil
    }
}
