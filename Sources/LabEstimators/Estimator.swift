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

    public init(position: Point, uncertainty: Double? = nil, beaconsUsed: BeaconSet = BeaconSet(), frieze: Int? = nil) {
        self.position = position; self.uncertainty = uncertainty; self.beaconsUsed = beaconsUsed; self.frieze = frieze
    }
}

/// Why an estimator gave no fix.
public enum NoFixReason: Error, Sendable, Hashable, CustomStringConvertible {
    case tooFewBeacons(heard: Int, needed: Int)
    case tooFewHeadings(have: Int, needed: Int)
    case degenerateGeometry(String)
    case invalidInput(String)
    case solverFailed(String)

    public var description: String {
        switch self {
        case .tooFewBeacons(let h, let n): return "too few beacons: heard \(h), need \(n)"
        case .tooFewHeadings(let h, let n): return "too few frieze headings: have \(h), need \(n)"
        case .degenerateGeometry(let s): return "degenerate geometry: \(s)"
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
        case .invalidInput: return "invalid-input"
        case .solverFailed: return "solver-failed"
        }
    }
}

/// A fix, or the reason there is none.
public enum EstimateOutcome: Sendable, Hashable {
    case fix(Fix)
    case noFix(NoFixReason)

    public var fix: Fix? { if case .fix(let f) = self { return f } else { return nil } }
}

/// One way of turning an epoch's observation into a position.
///
/// Estimators are built for one ``Venue`` and may keep workspaces between calls, so an instance is
/// used by one task at a time; make one per task (``EstimatorKind/make(venue:)``).
public protocol PositionEstimator: AnyObject {
    var kind: EstimatorKind { get }
    func locate(_ observation: Observation) -> EstimateOutcome
}

/// Every estimator the lab knows, by its command-line name.
public enum EstimatorKind: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case trilateration
    case leastSquares = "least-squares"
    case leastSquaresRange = "least-squares-range"
    case proximity
    case bearing
    case centroid
    case weightedCentroid = "weighted-centroid"
    case fusion
    case floorplanFusion = "floorplan-fusion"

    public static func < (a: EstimatorKind, b: EstimatorKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// A new estimator of this kind for `venue`.
    public func make(venue: Venue) -> any PositionEstimator {
        switch self {
        case .trilateration: return TrilaterationEstimator(venue: venue)
        case .leastSquares: return LeastSquaresEstimator(venue: venue, domain: .rssi)
        case .leastSquaresRange: return LeastSquaresEstimator(venue: venue, domain: .range)
        case .proximity: return ProximityEstimator(venue: venue)
        case .bearing: return BearingEstimator(venue: venue)
        case .centroid: return CentroidEstimator(venue: venue, weighted: false)
        case .weightedCentroid: return CentroidEstimator(venue: venue, weighted: true)
        case .fusion: return FusionEstimator(venue: venue)
        case .floorplanFusion: return FloorplanFusionEstimator(venue: venue)
        }
    }

    /// One line on what the estimator does, for `--help` and README.
    public var summary: String {
        switch self {
        case .trilateration: return "two strongest beacons' circles intersected, the third picks the point"
        case .leastSquares: return "GSL Levenberg–Marquardt, RSSI-domain residuals (maximum likelihood)"
        case .leastSquaresRange: return "GSL Levenberg–Marquardt, range-domain residuals"
        case .proximity: return "nearest beacon of the best CLProximity bucket"
        case .bearing: return "bearing lines to friezes intersected; unidentified headings matched"
        case .centroid: return "mean position of the beacons heard"
        case .weightedCentroid: return "beacon positions weighted by 1/range²"
        case .fusion: return "RSSI and bearings in one GSL least-squares problem"
        case .floorplanFusion: return "fusion whose RSSI model includes the walls crossed (multi-start)"
        }
    }
}

/// A set of beacon indices without heap allocation (indices 0–127 are kept; beyond, only counted).
public struct BeaconSet: Sendable, Hashable, Sequence {
    private var low: UInt64 = 0, high: UInt64 = 0
    public private(set) var count = 0

    public init() {}
    public init<S: Sequence>(_ indices: S) where S.Element == Int { for i in indices { insert(i) } }

    public mutating func insert(_ i: Int) {
        if contains(i) { return }
        count += 1
        if i >= 0 && i < 64 { low |= 1 << UInt64(i) } else if i >= 64 && i < 128 { high |= 1 << UInt64(i - 64) }
    }
    public func contains(_ i: Int) -> Bool {
        if i >= 0 && i < 64 { return low & (1 << UInt64(i)) != 0 }
        if i >= 64 && i < 128 { return high & (1 << UInt64(i - 64)) != 0 }
        return false
    }
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
