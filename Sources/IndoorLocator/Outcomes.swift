import Foundation
internal import LocatorEngine

/// The region the true position lies in with probability ``confidence``: an ellipse centred on the fix.
///
/// It is the fit's linearised covariance (the device offset a nuisance parameter), widened to hold where the
/// likelihood has fallen by the 95% threshold along 16 directions around it (RSSI is logarithmic in distance, so
/// the likelihood usually falls more slowly than its quadratic), taking in another local fit within that
/// threshold, and scaled by how much larger the residuals run than the path-loss σ says, as the locator learns over
/// its scans. Each beacon's mean also carries the radio model's error (``PathLossModel/modelError``), which
/// averaging does not remove, and when the app feeds steps the readings are corrected for the walker's body.
/// `indoorlab coverage --seeds 5` measures how often it holds the truth in simulation, with the radio model right and
/// under field impairments (unknown phones, beacon spread, outliers, the walker's body), with independent or
/// correlated shadowing; the target is 93–97% of fixes in each.
///
/// A tracked location from the stream states the particle filter's spread instead: the weighted particles'
/// covariance, and with ``PathLossModel/correlationDistance`` that covariance times what weighing correlated scans as
/// news leaves out (a new track's first location states its first scan's posterior: the cloud drawn around the fit and
/// weighed by that scan). `indoorlab coverage --estimator particle-filter --seeds 5` measures it on the tournament's
/// walks and static points. The measured shares are in docs/coverage.md, how both ellipses are built in
/// docs/library.md, "Honest uncertainty".
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
    /// The readings fit places more than 2 m apart equally well, e.g. the two crossings of two beacons' circles, or
    /// anywhere on one beacon's circle: which, in words.
    case ambiguous(String)
    /// The solver found no answer (a degenerate scan).
    case solverFailed(String)

    /// The reason in words, for a log or a status line.
    public var description: String {
        switch self {
        case .noMeasurements: return "no usable measurements in the scan"
        case .tooFewBeacons(let h, let n): return "too few beacons: heard \(h), need \(n)"
        case .tooFewHeadings(let h, let n): return "too few frieze headings: have \(h), need \(n)"
        case .collinearBeacons(let n): return "the \(n) beacons heard are collinear: the fix and its mirror image fit equally well"
        case .ambiguous(let s): return "ambiguous: \(s)"
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
