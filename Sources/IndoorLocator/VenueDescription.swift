import Foundation

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
