import Foundation
import LabCore

/// √CRLB, metres, on a regular grid over a venue's bounds: what the crlb figure draws. Computed by
/// LabEvaluation's `BoundMapper`, saved beside the epochs so the figure is redrawn without recomputing.
public struct BoundMap: Sendable, Codable, Hashable {
    public var scenario: String
    public var bounds: Rect
    public var nx: Int
    public var ny: Int
    /// Row-major from the south-west corner (index iy·nx + ix); +∞ where the geometry gives no 2-D fix.
    public var values: [Double]
    /// Advertisements per beacon per scan window the map assumes before packet loss and sensitivity.
    public var readingsPerBeacon: Int
    /// How the expected readings are counted, in words (for the figure's note).
    public var model: String

    public init(scenario: String, bounds: Rect, nx: Int, ny: Int, values: [Double], readingsPerBeacon: Int, model: String) {
        self.scenario = scenario; self.bounds = bounds; self.nx = nx; self.ny = ny; self.values = values
        self.readingsPerBeacon = readingsPerBeacon; self.model = model
    }

    /// What makes this no map of `scenario` the lab could have written (field and message), or nil: a grid of
    /// nx × ny ≥ 1 values, each √CRLB ≥ 0 m or +∞, over finite bounds.
    public func problem(scenario expected: String) -> (field: String, message: String)? {
        if scenario != expected { return ("scenario", "expected '\(expected)' (the file's name says so), found '\(abbreviated(scenario))'") }
        let b = bounds
        if ![b.minX, b.minY, b.maxX, b.maxY].allSatisfy(\.isFinite) || !(b.maxX > b.minX && b.maxY > b.minY) {
            return ("bounds", "expected finite bounds with min < max")
        }
        if nx < 1 { return ("nx", "expected at least 1 column, found \(nx)") }
        if ny < 1 { return ("ny", "expected at least 1 row, found \(ny)") }
        let (cells, overflow) = nx.multipliedReportingOverflow(by: ny)
        if overflow || cells != values.count {
            return ("values", "expected nx × ny = \(nx) × \(ny) values, found \(values.count)")
        }
        if let i = values.firstIndex(where: { !($0 >= 0) }) { return ("values[\(i)]", "expected a √CRLB ≥ 0 m or \"inf\", found \(Format.number(values[i]))") }
        if readingsPerBeacon < 1 { return ("readingsPerBeacon", "expected at least 1, found \(readingsPerBeacon)") }
        return nil
    }
}
