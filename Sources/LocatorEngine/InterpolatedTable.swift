import Foundation

/// A smooth function tabulated at points 1/`scale` apart from `start` and read back by linear interpolation: the
/// one home of the lookups that the particle filter's inner loops make per particle and beacon (the truncated
/// normal's λ and ln(1 − Φ), the softplus). A point may hold several values (`width`), interleaved, so that one
/// lookup reads a function and its companion from one cache line. Below the first point and from the last one on,
/// the caller says what the function is. Made once and only read after.
package final class InterpolatedTable: @unchecked Sendable {
    private let start, scale, last: Double
    private let width: Int
    private let values: UnsafeMutablePointer<Double>

    /// `count` points from `start`, `scale` per unit; `f` gives the `width` values at each.
    package init(from start: Double, points count: Int, perUnit scale: Double, width: Int, _ f: (Double) -> [Double]) {
        self.start = start; self.scale = scale; self.width = width
        last = Double(count - 1)
        values = .allocate(capacity: width * count)
        for i in 0..<count {
            let v = f(start + Double(i) / scale)
            precondition(v.count == width)
            for k in 0..<width { values[width * i + k] = v[k] }
        }
    }

    /// One value per point.
    package convenience init(from start: Double, points count: Int, perUnit scale: Double, _ f: (Double) -> Double) {
        self.init(from: start, points: count, perUnit: scale, width: 1) { [f($0)] }
    }

    deinit { values.deallocate() }

    /// The first value at x: `below` when x is not above the first point (NaN included), `beyond(x)` from the last.
    @inline(__always) package func value(_ x: Double, below: Double, beyond: (Double) -> Double) -> Double {
        let u = (x - start) * scale
        guard u > 0 else { return below }
        guard u < last else { return beyond(x) }
        let i = Int(u), f = u - Double(i)
        let p = values + width * i
        return p[0] + f * (p[width] - p[0])
    }

    /// The first two values at x (width 2), as ``value(_:below:beyond:)``.
    @inline(__always) package func pair(_ x: Double, below: (Double, Double), beyond: (Double) -> (Double, Double)) -> (Double, Double) {
        let u = (x - start) * scale
        guard u > 0 else { return below }
        guard u < last else { return beyond(x) }
        let i = Int(u), f = u - Double(i)
        let p = values + width * i
        return (p[0] + f * (p[width] - p[0]), p[1] + f * (p[width + 1] - p[1]))
    }
}
