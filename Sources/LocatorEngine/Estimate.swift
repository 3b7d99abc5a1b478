import LabCore

/// A position estimate: where, how sure, and from what.
public struct Fix: Sendable, Hashable {
    public var position: Point
    /// Uncertainty radius (DRMS, sqrt of the covariance trace), metres, when the method has one.
    public var uncertainty: Double?
    /// Beacons the fix was computed from.
    public var beaconsUsed: BeaconSet
    /// Landmark index of the frieze in view (bearing estimators), if any.
    public var frieze: Int?
    /// The phone's RSSI offset the fit estimated, dB (offset-free estimators only).
    public var offset: Double?
    /// The position's covariance, m², when the method has one (``uncertainty`` is √ of its trace).
    public var covariance: Covariance2?
    /// The walker's velocity, m/s (x east, y north), when a tracker estimated it.
    public var velocity: Point?

    public init(position: Point, uncertainty: Double? = nil, beaconsUsed: BeaconSet = BeaconSet(), frieze: Int? = nil, offset: Double? = nil,
                covariance: Covariance2? = nil, velocity: Point? = nil) {
        self.position = position; self.uncertainty = uncertainty; self.beaconsUsed = beaconsUsed; self.frieze = frieze
        self.offset = offset; self.covariance = covariance; self.velocity = velocity
    }
}

/// A distance ranged to a beacon (UWB, Channel Sounding, Wi-Fi RTT), with its standard deviation: an input of
/// the shipped locator's fit.
package struct MeasuredRange: Sendable, Hashable {
    package var beacon: Int
    /// Metres, 3-D.
    package var distance: Double
    /// Metres.
    package var sigma: Double
    package init(beacon: Int, distance: Double, sigma: Double) { self.beacon = beacon; self.distance = distance; self.sigma = sigma }
}

/// Why an estimator gave no fix.
public enum NoFixReason: Error, Sendable, Hashable, CustomStringConvertible {
    case tooFewBeacons(heard: Int, needed: Int)
    case tooFewHeadings(have: Int, needed: Int)
    case degenerateGeometry(String)
    /// The readings fit places farther apart than ``OffsetFreeFit/ambiguitySpan`` equally well: which, in words.
    case ambiguous(String)
    case invalidInput(String)
    case solverFailed(String)

    public var description: String {
        switch self {
        case .tooFewBeacons(let h, let n): return "too few beacons: heard \(h), need \(n)"
        case .tooFewHeadings(let h, let n): return "too few frieze headings: have \(h), need \(n)"
        case .degenerateGeometry(let s): return "degenerate geometry: \(s)"
        case .ambiguous(let s): return "ambiguous: \(s)"
        case .invalidInput(let s): return "invalid input: \(s)"
        case .solverFailed(let s): return "solver failed: \(s)"
        }
    }

    /// A short stable code for tables and CSV.
    public var code: String {
        switch self {
        case .tooFewBeacons: return "too-few-beacons"
        case .tooFewHeadings: return "too-few-headings"
        case .degenerateGeometry: return "degenerate-geometry"
        case .ambiguous: return "ambiguous"
        case .invalidInput: return "invalid-input"
        case .solverFailed: return "solver-failed"
        }
    }

    /// Every ``code`` there is (what a results file's `reason` column may hold).
    public static let codes: Set<String> = Set([tooFewBeacons(heard: 0, needed: 0), tooFewHeadings(have: 0, needed: 0), degenerateGeometry(""),
                                                ambiguous(""), invalidInput(""), solverFailed("")].map(\.code))
}

/// A fix, or the reason there is none.
public enum EstimateOutcome: Sendable, Hashable {
    case fix(Fix)
    case noFix(NoFixReason)

    public var fix: Fix? { if case .fix(let f) = self { return f } else { return nil } }
}

/// A set of beacon indices without heap allocation (indices 0–127 are kept; beyond, only counted).
public struct BeaconSet: Sendable, Hashable, Sequence {
    private var low: UInt64 = 0, high: UInt64 = 0
    public private(set) var count = 0

    public init() {}
    public init<S: Sequence>(_ indices: S) where S.Element == Int { for i in indices { insert(i) } }

    public mutating func insert(_ i: Int) {
        let bit = Self.bit(i)
        if i >= 0 && i < 64 {
            if low & bit == 0 { low |= bit; count += 1 }
        } else if i >= 64 && i < 128 {
            if high & bit == 0 { high |= bit; count += 1 }
        } else {
            count += 1   // beyond 128 beacons only counted
        }
    }
    public func contains(_ i: Int) -> Bool {
        if i >= 0 && i < 64 { return low & Self.bit(i) != 0 }
        if i >= 64 && i < 128 { return high & Self.bit(i) != 0 }
        return false
    }
    /// Index i's bit in its word (i mod 64; the callers check the range).
    @inline(__always) private static func bit(_ i: Int) -> UInt64 { 1 &<< UInt64(truncatingIfNeeded: i & 63) }
    /// The indices below 128, in increasing order (indices from 128 on are only counted).
    public func makeIterator() -> Iterator { Iterator(low: low, high: high) }

    public struct Iterator: IteratorProtocol {
        var low: UInt64, high: UInt64
        public mutating func next() -> Int? {
            if low != 0 { let i = low.trailingZeroBitCount; low &= low - 1; return i }
            if high != 0 { let i = high.trailingZeroBitCount; high &= high - 1; return 64 + i }
            return nil
        }
    }
}

extension BeaconSet {
    /// The beacons scan `o` heard, then those of `ranges`: what a fix from them used.
    package init(heard o: Observation, ranges: [MeasuredRange]) {
        self.init(o.beacons.lazy.map(\.beacon))
        for r in ranges { insert(r.beacon) }
    }
}
