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

    public var description: String { String(format: "(%.2f m, %.2f m)", x, y) }
}

/// An iBeacon's identity as advertised: proximity UUID, major and minor.
public struct BeaconIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The proximity UUID shared by a venue's beacons.
    public var uuid: UUID
    /// Usually a zone (gallery, floor).
    public var major: UInt16
    /// Usually the individual beacon.
    public var minor: UInt16

    /// Creates an identity.
    public init(uuid: UUID, major: UInt16, minor: UInt16) { self.uuid = uuid; self.major = major; self.minor = minor }

    public var description: String { "\(uuid.uuidString)/\(major)/\(minor)" }
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
/// Take the values from `indoorlab calibrate` on a recording made in the venue.
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

    /// Creates a model; the defaults are typical iBeacon values.
    public init(measuredPower: Double = -59, exponent: Double = 2.0, shadowingSigma: Double = 4.0,
                receiverHeight: Double = 1.2, scanWindow: Double = 1.0, sensitivity: Double? = nil) {
        self.measuredPower = measuredPower; self.exponent = exponent; self.shadowingSigma = shadowingSigma
        self.receiverHeight = receiverHeight; self.scanWindow = scanWindow; self.sensitivity = sensitivity
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

/// One advertisement heard from a beacon.
public struct RSSISample: Sendable, Hashable {
    /// Who sent it.
    public var beacon: BeaconIdentity
    /// Received signal strength, dBm.
    public var rssi: Double
    /// When it was heard, seconds (any clock, used only by the stream API).
    public var timestamp: Double

    /// Creates a sample.
    public init(beacon: BeaconIdentity, rssi: Double, timestamp: Double = 0) {
        self.beacon = beacon; self.rssi = rssi; self.timestamp = timestamp
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
    /// When it was taken, seconds (stream API).
    public var timestamp: Double

    /// Creates a heading.
    public init(degrees: Double, accuracy: Double = 10, frieze: String? = nil, timestamp: Double = 0) {
        self.degrees = degrees; self.accuracy = accuracy; self.frieze = frieze; self.timestamp = timestamp
    }
}

/// A position fix.
public struct Location: Sendable, Hashable {
    /// The estimated position.
    public var position: Position
    /// Uncertainty radius (DRMS: sqrt of the covariance trace), metres.
    public var uncertainty: Double?
    /// The beacons the fix was computed from.
    public var beaconsUsed: [BeaconIdentity]
    /// The frieze the camera is pointing at, when headings were given.
    public var friezeInView: String?
    /// The phone's RSSI offset from the calibration phone as estimated with this fix (learned over the scans so
    /// far), when the fit estimated it.
    public var deviceOffset: DeviceOffset?
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

/// The outcome of asking for a position: a fix, or why there is none.
public enum LocationOutcome: Sendable, Hashable {
    /// A fix.
    case located(Location)
    /// No fix; the reason says why (too few beacons heard, degenerate geometry, bad input).
    case unavailable(reason: String)

    /// The fix, if any.
    public var location: Location? { if case .located(let l) = self { return l } else { return nil } }
}

/// Why a locator could not be built.
public struct LocatorError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the field or file.
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
