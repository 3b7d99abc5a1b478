import Foundation

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
