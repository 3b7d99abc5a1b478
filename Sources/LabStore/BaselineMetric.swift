import LabCore

/// A figure replay keeps a baseline of, by its stored name.
///
/// Error metrics (metres, lower is better) regress when they grow beyond `baseline + tolerance`; rates
/// (0–1, higher is better) regress when they fall below `baseline − tolerance`.
public enum BaselineMetric: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case availability
    case mean
    case median
    case p75
    case p90
    case rmse
    case roomHit = "room-hit"
    case exhibitHit = "exhibit-hit"
    case friezeHit = "frieze-hit"

    public static func < (a: BaselineMetric, b: BaselineMetric) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Rates: availability and the hit rates. The others are errors in metres.
    public var higherIsBetter: Bool {
        switch self {
        case .availability, .roomHit, .exhibitHit, .friezeHit: return true
        case .mean, .median, .p75, .p90, .rmse: return false
        }
    }
}
