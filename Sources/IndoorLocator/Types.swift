import Foundation
internal import LocatorEngine

/// A position on the venue's floorplan, in metres: x east, y north, origin at the south-west corner.
public struct Position: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Metres east of the venue's origin.
    public var x: Double
    /// Metres north of the venue's origin.
    public var y: Double

    /// Creates a position from its coordinates in metres.
    public init(x: Double, y: Double) { self.x = x; self.y = y }

    /// Straight-line distance to another position, metres.
    public func distance(to other: Position) -> Double { ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot() }

    /// The position as `(x m, y m)`, to the centimetre.
    public var description: String { String(format: "(%.2f m, %.2f m)", x, y) }
}

/// Who a beacon is, as it advertises itself: an iBeacon (proximity UUID, major, minor), an Eddystone-UID
/// (10-byte namespace, 6-byte instance), or any other string identifier (a MAC address, a device name, an
/// AltBeacon id, a UWB accessory's id).
public struct BeaconIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The kinds of identity.
    public enum Kind: Sendable, Hashable, Codable {
        /// Apple's iBeacon: the venue's proximity UUID, usually a zone (major) and the beacon (minor).
        case iBeacon(uuid: UUID, major: UInt16, minor: UInt16)
        /// Google's Eddystone-UID: namespace (20 hex digits) and instance (12 hex digits), lower case.
        case eddystoneUID(namespace: String, instance: String)
        /// Any other identifier, compared exactly.
        case name(String)
    }

    /// Which kind, with its fields.
    public let kind: Kind

    /// An iBeacon identity.
    public init(uuid: UUID, major: UInt16, minor: UInt16) { kind = .iBeacon(uuid: uuid, major: major, minor: minor) }

    /// An Eddystone-UID identity from its hex namespace (10 bytes) and instance (6 bytes); "0x", spaces and
    /// dashes are ignored, case does not matter.
    /// - Throws: ``LocatorError`` when either is not hex of the right length.
    public init(eddystoneNamespace namespace: String, instance: String) throws {
        func hex(_ s: String, bytes: Int, field: String) throws -> String {
            var t = s.lowercased().replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "-", with: "")
            if t.hasPrefix("0x") { t.removeFirst(2) }
            guard t.count == 2 * bytes, t.allSatisfy(\.isHexDigit) else {
                throw LocatorError("Eddystone-UID \(field) must be \(bytes) bytes of hex (\(2 * bytes) digits), got '\(s.prefix(40))'")
            }
            return t
        }
        kind = .eddystoneUID(namespace: try hex(namespace, bytes: 10, field: "namespace"), instance: try hex(instance, bytes: 6, field: "instance"))
    }

    /// Any string identifier (not empty; the locator refuses an empty one).
    public init(name: String) { kind = .name(name) }

    /// The identity in one line: `UUID/major/minor` for an iBeacon, `eddystone:namespace/instance` (hex) for an
    /// Eddystone-UID, the string itself for a name.
    public var description: String {
        switch kind {
        case .iBeacon(let u, let major, let minor): return "\(u.uuidString)/\(major)/\(minor)"
        case .eddystoneUID(let n, let i): return "eddystone:\(n)/\(i)"
        case .name(let s): return s
        }
    }
}

/// Where a beacon is mounted, and how strong it is at 1 m.
public struct BeaconPlacement: Sendable, Hashable {
    /// The identity the beacon advertises.
    public var identity: BeaconIdentity
    /// Floorplan position, metres.
    public var position: Position
    /// Mounting height above the floor, metres; nil means at the phone's height.
    public var height: Double?
    /// RSSI at 1 m in dBm ("measured power"); nil uses the path-loss model's.
    public var measuredPower: Double?

    /// Creates a placement.
    public init(identity: BeaconIdentity, position: Position, height: Double? = nil, measuredPower: Double? = nil) {
        self.identity = identity; self.position = position; self.height = height; self.measuredPower = measuredPower
    }
}

/// The radio model the locator inverts: log-distance path loss with log-normal shadowing,
/// RSSI(d) = P0 − 10·n·log10(d / 1 m) + X, X ~ N(0, σ²).
///
/// Take the values from `indoorlab calibrate` on a recording made in the venue, with the phones and
/// conditions the app will meet. It splits the spread in two: `sigma`, the readings' scatter within a scan window
/// (``shadowingSigma``), and `model_error`, what averaging a window cannot remove — beacons off their nominal power,
/// the walker's body (``modelError``). Give both: with the model error left at 0 the uncertainty ellipses are too
/// small on real phones.
public struct PathLossModel: Sendable, Hashable {
    /// RSSI at 1 m, dBm (typically −59 for iBeacons).
    public var measuredPower: Double
    /// Path-loss exponent n: 2 in free space, 1.6–3.5 indoors.
    public var exponent: Double
    /// Shadowing standard deviation σ, dB (3–8 for BLE).
    public var shadowingSigma: Double
    /// Height at which the phone is held, metres.
    public var receiverHeight: Double
    /// How many seconds of readings make one scan when the locator is fed a stream.
    public var scanWindow: Double
    /// The weakest RSSI the phone reports, dBm, when known: a far beacon is heard only when the noise lifts
    /// it above this, so its heard mean reads high, and the fit accounts for that. Nil: not modelled.
    public var sensitivity: Double?
    /// The distance over which shadowing stays correlated, metres, when it does (nil: independent samples).
    /// With correlated shadowing the samples of one beacon within a scan share one shadowing draw, so
    /// averaging them does not shrink the error, and the fix counts each beacon once.
    public var correlationDistance: Double?
    /// How far a beacon's averaged RSSI may sit from the path-loss law for reasons averaging does not remove,
    /// dB: each beacon's own transmit power, the user's body, paths the model does not know. A beacon heard
    /// k times in a scan counts with variance σ²/k + modelError², and the uncertainty ellipse grows to match.
    /// The default, 0, trusts the law exactly, which is overconfident on real phones; 3–4 dB suits a venue whose
    /// beacons were not calibrated one by one (`indoorlab calibrate` measures it on a recording with ground truth).
    public var modelError: Double
    /// Time between a beacon's advertisements, seconds, and the share of them the phone loses: how many samples of
    /// a beacon a scan window holds, which tells the tracker how far above its mean the strongest sample lies (a
    /// beacon is heard when that one clears ``sensitivity``).
    public var advertisingInterval: Double
    /// The share of advertisements the phone loses, in [0, 1).
    public var packetLoss: Double
    /// The chance that a scan reports nothing of a beacon however strongly it reads, in [0, 1): a busy receiver, a
    /// throttled or duty-cycled scan (`indoorlab calibrate` measures it on a recording; a phone of the UJI dataset
    /// missed 60% of its scans' beacons near or far, the Daniş receivers 2%). The stream's tracker then weighs a missed
    /// beacon by at most this: a miss near a beacon tells little when scans often miss.
    public var dropout: Double
    /// σ of each beacon's own power about its ``BeaconPlacement/measuredPower`` (or ``measuredPower``), dB, when the
    /// beacons were not calibrated one by one. Keep it in ``modelError`` too (a one-scan fix cannot learn it); the
    /// stream's tracker learns each beacon's error as the walker passes it and takes this part out. 0: not learned.
    public var beaconPowerSigma: Double
    /// The walker's body: the extra loss, dB, of a beacon behind the walker, within ``bodyHalfAngle`` degrees of
    /// straight behind. Keep its share in ``modelError`` too. In the stream, the snapshot fix corrects each beacon's
    /// reading for the body from the last step's heading (kept while the walker stands) and keeps the share in its
    /// error; the stream's tracker takes the share out, knowing where the walker faces from the steps when the app
    /// feeds them, else from the particles' velocities once the track has moved (a phone that never moves keeps it in
    /// the model error).
    /// 0: not modelled.
    public var bodyLoss: Double
    /// Half the angle behind the walker that the body shadows, degrees, in (0, 180].
    public var bodyHalfAngle: Double

    /// Creates a model; the defaults are typical iBeacon values.
    public init(measuredPower: Double = -59, exponent: Double = 2.0, shadowingSigma: Double = 4.0,
                receiverHeight: Double = 1.2, scanWindow: Double = 1.0, sensitivity: Double? = nil,
                correlationDistance: Double? = nil, modelError: Double = 0, advertisingInterval: Double = 0.1,
                packetLoss: Double = 0, beaconPowerSigma: Double = 0, bodyLoss: Double = 0, bodyHalfAngle: Double = 60,
                dropout: Double = 0) {
        self.measuredPower = measuredPower; self.exponent = exponent; self.shadowingSigma = shadowingSigma
        self.receiverHeight = receiverHeight; self.scanWindow = scanWindow; self.sensitivity = sensitivity
        self.correlationDistance = correlationDistance; self.modelError = modelError
        self.advertisingInterval = advertisingInterval; self.packetLoss = packetLoss; self.beaconPowerSigma = beaconPowerSigma
        self.dropout = dropout
        self.bodyLoss = bodyLoss; self.bodyHalfAngle = bodyHalfAngle
    }
}

/// A frieze (or any landmark the user can point the phone at) with its position.
public struct Frieze: Sendable, Hashable {
    /// The name the app shows, and the name ``CompassHeading/frieze`` refers to.
    public var name: String
    /// Floorplan position, metres.
    public var position: Position
    /// Compass heading the frieze's face looks toward, degrees; nil = visible from all sides.
    public var facing: Double?

    /// Creates a frieze.
    public init(name: String, position: Position, facing: Double? = nil) {
        self.name = name; self.position = position; self.facing = facing
    }
}

/// A wall of the venue: a straight segment and the signal loss, in dB, of a line of sight through it
/// (drywall 3.4, concrete 6.9, glass 2.0 are typical at 2.4 GHz).
public struct WallSegment: Sendable, Hashable {
    /// One end, metres.
    public var from: Position
    /// The other end, metres.
    public var to: Position
    /// Loss per crossing, dB.
    public var loss: Double

    /// Creates a wall.
    public init(from: Position, to: Position, loss: Double) { self.from = from; self.to = to; self.loss = loss }
}

/// A room of the venue: its name and its outline (a polygon, corners in order). Fixes name the room they fall in.
public struct Room: Sendable, Hashable {
    /// The name ``Location/room`` reports.
    public var name: String
    /// The corners, in order (either direction), metres.
    public var outline: [Position]

    /// Creates a room.
    public init(name: String, outline: [Position]) { self.name = name; self.outline = outline }
}

/// One advertisement heard from a beacon.
public struct RSSISample: Sendable, Hashable {
    /// Who sent it.
    public var beacon: BeaconIdentity
    /// Received signal strength, dBm. 0 (CoreLocation's "unknown"), positive values, values below
    /// ``weakestRSSI`` and NaN are ignored and counted in ``IgnoredSamples``.
    public var rssi: Double
    /// When it was heard.
    public var timestamp: Date

    /// The weakest RSSI a Bluetooth controller reports, dBm: its RSSI is a signed byte, −127 to +20 dBm. Anything
    /// weaker did not come from a radio.
    public static let weakestRSSI = -127.0

    /// Creates a sample; without a timestamp, heard now (the stream's scan windows go by the timestamps).
    public init(beacon: BeaconIdentity, rssi: Double, timestamp: Date = Date()) {
        self.beacon = beacon; self.rssi = rssi; self.timestamp = timestamp
    }
}

/// What measured a distance.
public enum RangingTechnology: String, Sendable, Hashable, Codable, CaseIterable {
    /// Ultra-wideband two-way ranging (Apple's Nearby Interaction, FiRa accessories).
    case uwb
    /// Bluetooth Channel Sounding (Bluetooth 6.0).
    case bleChannelSounding
    /// Wi-Fi round-trip time (IEEE 802.11mc/az fine timing measurement).
    case wifiRTT
    /// CoreLocation's `CLBeacon.accuracy`: a distance derived from RSSI by the system. Do not feed the same
    /// beacon's RSSI as well, or the scan counts twice.
    case coreLocationAccuracy
    /// Anything else; give its σ.
    case other

    /// A typical standard deviation, metres, at distance `d`, for when the ranging API gives none: UWB 0.1 m,
    /// Channel Sounding 0.5 m, Wi-Fi RTT 1.5 m, `CLBeacon.accuracy` half the distance (it inherits the RSSI's
    /// shadowing), other 1 m. Rough figures: prefer the σ your ranging stack reports or one you measured.
    public func typicalSigma(at d: Double) -> Double {
        switch self {
        case .uwb: return 0.1
        case .bleChannelSounding: return 0.5
        case .wifiRTT: return 1.5
        case .coreLocationAccuracy: return max(0.5 * d, 0.5)
        case .other: return 1.0
        }
    }
}

/// A distance to a beacon measured by ranging (time of flight or phase), with its standard deviation.
public struct RangeSample: Sendable, Hashable {
    /// To whom.
    public var beacon: BeaconIdentity
    /// Distance between the phone and the beacon, metres (3-D: the beacon's height counts).
    public var distance: Double
    /// Its standard deviation, metres.
    public var sigma: Double
    /// What measured it.
    public var technology: RangingTechnology
    /// When it was measured.
    public var timestamp: Date

    /// Creates a range; without a σ, the technology's ``RangingTechnology/typicalSigma(at:)``; without a timestamp,
    /// measured now.
    public init(beacon: BeaconIdentity, distance: Double, sigma: Double? = nil, technology: RangingTechnology,
                timestamp: Date = Date()) {
        self.beacon = beacon; self.distance = distance; self.technology = technology; self.timestamp = timestamp
        self.sigma = sigma ?? technology.typicalSigma(at: distance)
    }
}

/// A compass heading taken while pointing the phone at a frieze.
public struct CompassHeading: Sendable, Hashable {
    /// Degrees clockwise from north.
    public var degrees: Double
    /// The compass's standard deviation, degrees.
    public var accuracy: Double
    /// The frieze's name when the app knows which one it is; nil lets the locator match it.
    public var frieze: String?
    /// When it was taken.
    public var timestamp: Date

    /// Creates a heading; without a timestamp, taken now.
    public init(degrees: Double, accuracy: Double = 10, frieze: String? = nil, timestamp: Date = Date()) {
        self.degrees = degrees; self.accuracy = accuracy; self.frieze = frieze; self.timestamp = timestamp
    }
}

/// One step of the walker, from the phone's step detector (pedestrian dead reckoning: CoreMotion's `CMPedometer`,
/// Android's step detector) with the direction the phone's compass gave for it.
public struct StepSample: Sendable, Hashable {
    /// Step length, metres (0–3).
    public var length: Double
    /// Direction of the step, degrees clockwise from north (0 ≤ heading < 360), as the compass gave it: the tracker
    /// learns the compass's bias.
    public var heading: Double
    /// The length's standard deviation, metres.
    public var lengthAccuracy: Double
    /// The heading's standard deviation, degrees.
    public var headingAccuracy: Double
    /// When the step ended.
    public var timestamp: Date

    /// Creates a step. The default σs suit a phone held in front: 0.15 m (a step-length model's error), 10°; without a
    /// timestamp, the step ended now.
    public init(length: Double, heading: Double, lengthAccuracy: Double = 0.15, headingAccuracy: Double = 10,
                timestamp: Date = Date()) {
        self.length = length; self.heading = heading; self.lengthAccuracy = lengthAccuracy
        self.headingAccuracy = headingAccuracy; self.timestamp = timestamp
    }
}

/// One thing the phone measured, for the stream APIs: an RSSI sample, a range, a heading or a step.
public enum LocatorInput: Sendable, Hashable {
    /// A received signal strength from a beacon.
    case rssi(RSSISample)
    /// A distance to a beacon or anchor measured by ranging (UWB, Channel Sounding, Wi-Fi RTT).
    case range(RangeSample)
    /// A compass heading taken while pointing the phone at a frieze.
    case heading(CompassHeading)
    /// A step from the phone's step detector: once the stream has had one, a scan window without steps means the
    /// walker stood still.
    case step(StepSample)

    /// When it was measured.
    public var timestamp: Date {
        switch self {
        case .rssi(let s): return s.timestamp
        case .range(let r): return r.timestamp
        case .heading(let h): return h.timestamp
        case .step(let s): return s.timestamp
        }
    }
}

/// The region the true position lies in with probability ``confidence``: an ellipse centred on the fix.
///
/// It is the fit's linearised covariance (the device offset a nuisance parameter), widened to hold where the
/// likelihood has fallen by the 95% threshold along 16 directions around it (RSSI is logarithmic in distance, so
/// the likelihood usually falls more slowly than its quadratic), taking in another local fit within that
/// threshold, and scaled by how much larger the residuals run than the path-loss σ says, as the locator learns over
/// its scans. Each beacon's mean also carries the radio model's error (``PathLossModel/modelError``), which
/// averaging does not remove, and when the app feeds steps the readings are corrected for the walker's body.
/// Measured in simulation (`indoorlab coverage --seeds 5`, pooled over five venues), it holds the truth in 93.5–94.3%
/// of fixes when the radio model is right and 93.5–96.7% under field impairments (unknown phones, beacon spread,
/// outliers, the walker's body), with independent or correlated shadowing; per venue 89.6–98.4%.
///
/// A tracked location from the stream states the particle filter's spread instead: the weighted particles'
/// covariance, and with ``PathLossModel/correlationDistance`` that covariance times what weighing correlated scans as
/// news leaves out (a new track's first location states its first scan's posterior: the cloud drawn around the fit and
/// weighed by that scan). Measured with `indoorlab coverage --estimator particle-filter --seeds 5` (the tournament's
/// walks and static points, pooled): 95.5% of fixes when the radio model is right and the shadowing independent,
/// 94.8% under field impairments, 93.9% / 93.2% under correlated shadowing (ideal / field; walks 91.5% / 92.5%); per
/// venue on walks 88–99% (README, "Honest uncertainty").
public struct UncertaintyEllipse: Sendable, Hashable {
    /// The confidence every ellipse is stated at.
    public static let confidenceLevel = OffsetFreeFit.statedConfidence
    /// Half the long axis, metres.
    public var semiMajor: Double
    /// Half the short axis, metres.
    public var semiMinor: Double
    /// Direction of the long axis, degrees clockwise from north, in [0, 180).
    public var orientation: Double
    /// The probability that the ellipse holds the true position (0.95).
    public var confidence: Double

    /// Creates an ellipse.
    public init(semiMajor: Double, semiMinor: Double, orientation: Double, confidence: Double = UncertaintyEllipse.confidenceLevel) {
        self.semiMajor = semiMajor; self.semiMinor = semiMinor; self.orientation = orientation; self.confidence = confidence
    }

    /// True when `point` lies inside the ellipse centred at `center`.
    public func contains(_ point: Position, center: Position) -> Bool {
        let t = orientation * .pi / 180
        // Unit vector of the long axis (compass: x = sin, y = cos).
        let ux = sin(t), uy = cos(t)
        let dx = point.x - center.x, dy = point.y - center.y
        let along = dx * ux + dy * uy, across = -dx * uy + dy * ux
        guard semiMajor > 0, semiMinor > 0 else { return dx == 0 && dy == 0 }
        return (along / semiMajor) * (along / semiMajor) + (across / semiMinor) * (across / semiMinor) <= 1
    }
}

/// Samples the locator did not use, counted by reason.
public struct IgnoredSamples: Sendable, Hashable {
    /// From a beacon the locator was not given (a phone hears other venues' beacons too).
    public var unknownBeacon = 0
    /// RSSI 0: CoreLocation's "unknown" (the beacon was ranged but not heard in the last second).
    public var rssiUnknown = 0
    /// RSSI above 0 dBm: not a received power a phone can report.
    public var rssiPositive = 0
    /// RSSI below ``RSSISample/weakestRSSI`` (−127 dBm): weaker than any Bluetooth controller reports.
    public var rssiTooWeak = 0
    /// RSSI, range, σ or heading not a finite number.
    public var notFinite = 0
    /// A range below 0 or a σ not above 0.
    public var invalidRange = 0
    /// A heading naming a frieze the locator was not given.
    public var unknownFrieze = 0
    /// A step with a length outside 0–3 m, a heading outside [0, 360), a σ out of range or a value not finite.
    public var invalidStep = 0

    /// Creates an empty count.
    public init() {}

    /// How many samples were ignored in all.
    public var total: Int { unknownBeacon + rssiUnknown + rssiPositive + rssiTooWeak + notFinite + invalidRange + unknownFrieze + invalidStep }
}

/// A position fix.
public struct Location: Sendable, Hashable {
    /// The estimated position.
    public var position: Position
    /// When: the newest measurement the fix used (the time asked for, for the stream).
    public var timestamp: Date
    /// The room the position falls in, when the locator was given rooms.
    public var room: String?
    /// The frieze the camera is pointing at, when headings were given.
    public var friezeInView: String?
    /// Where the true position lies with 95% probability, when the fit could say (see ``UncertaintyEllipse`` for
    /// how it is built and how often it holds).
    public var uncertainty: UncertaintyEllipse?
    /// The phone's RSSI offset from the calibration phone as learned over the scans so far, when RSSI was used.
    public var deviceOffset: DeviceOffset?
    /// The beacons the fix was computed from (RSSI and ranges).
    public var beaconsUsed: [BeaconIdentity]
    /// What the fix left out, and why.
    public var ignored: IgnoredSamples
    /// The walker's velocity in metres per second (x east, y north), for tracked locations (the stream's).
    public var velocity: Position? = nil
    /// The stream's tracked locations carry the fix from their scan window alone (what ``IndoorLocator/locate(rssi:ranges:headings:)``
    /// gives): where the window's own measurements put the phone, before the track's history is weighed in.
    public var snapshot: Position? = nil
}

/// How much stronger (positive) or weaker this phone reads than the phone the beacons' measured power was
/// calibrated with, in dB, with the standard deviation of that estimate.
public struct DeviceOffset: Sendable, Hashable, Codable {
    /// The offset, dB.
    public var decibels: Double
    /// Its standard deviation, dB.
    public var sigma: Double
    /// Creates an offset.
    public init(decibels: Double, sigma: Double) { self.decibels = decibels; self.sigma = sigma }
}

/// Why there is no fix.
public enum LocationUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing usable was measured in the scan.
    case noMeasurements
    /// Too few beacons heard or ranged (and too few headings to make up for them).
    case tooFewBeacons(heard: Int, needed: Int)
    /// Headings alone need this many friezes.
    case tooFewHeadings(have: Int, needed: Int)
    /// The beacons heard lie on one line: the fix and its mirror image fit equally well.
    case collinearBeacons(count: Int)
    /// The solver found no answer (a degenerate scan).
    case solverFailed(String)

    /// The reason in words, for a log or a status line.
    public var description: String {
        switch self {
        case .noMeasurements: return "no usable measurements in the scan"
        case .tooFewBeacons(let h, let n): return "too few beacons: heard \(h), need \(n)"
        case .tooFewHeadings(let h, let n): return "too few frieze headings: have \(h), need \(n)"
        case .collinearBeacons(let n): return "the \(n) beacons heard are collinear: the fix and its mirror image fit equally well"
        case .solverFailed(let s): return "no fix: \(s)"
        }
    }
}

/// The outcome of asking for a position: a fix, or why there is none.
public enum LocationOutcome: Sendable, Hashable {
    /// A fix.
    case located(Location)
    /// No fix: the reason, and what was ignored.
    case unavailable(LocationUnavailable, ignored: IgnoredSamples)

    /// The fix, if any.
    public var location: Location? { if case .located(let l) = self { return l } else { return nil } }
    /// Why there is no fix, if there is none.
    public var unavailableReason: LocationUnavailable? { if case .unavailable(let r, _) = self { return r } else { return nil } }
    /// What the attempt left out, and why.
    public var ignored: IgnoredSamples {
        switch self {
        case .located(let l): return l.ignored
        case .unavailable(_, let i): return i
        }
    }
}

/// Why a locator could not be built.
public struct LocatorError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the field or file.
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    /// The ``message``.
    public var description: String { message }
}
