/// A venue's radio map: for each beacon, how its readings depart from the fitted path-loss law across the venue (the
/// residual's mean, dB) and how well the survey knows that (the variance of that mean, dB²), on a regular grid. Fitted
/// by `calibrate --radio-map` from a recording with ground truth (Gaussian-process regression of each beacon's residuals,
/// docs/real-data.md, "The radio map"); the phone's offset is not in it, so another phone can use it.
///
/// A model that knows the map expects beacon b at p to read P0_b + δ − 10·n·log10 d − walls + ``residual(beacon:at:)``,
/// and counts ``variance(beacon:at:)`` as model error on top of the radio model's. A beacon the survey never heard has
/// no map (residual 0, variance 0: the law alone).
public struct RadioMap: Sendable, Hashable {
    /// The grid's lower-left corner, metres: cell (i, j)'s value holds at origin + (i, j)·cellSize.
    public let origin: Point
    public let cellSize: Double
    public let nx: Int, ny: Int
    /// Per beacon (the venue's order): the residual mean at each grid node, row-major [j·nx + i], dB; empty when the
    /// beacon has no map.
    public let mean: [[Float]]
    /// Per beacon: the variance of that mean at each node, dB².
    public let variance: [[Float]]

    public init(origin: Point, cellSize: Double, nx: Int, ny: Int, mean: [[Float]], variance: [[Float]]) {
        precondition(nx >= 1 && ny >= 1 && cellSize > 0 && mean.count == variance.count, "a grid of at least one node")
        precondition(zip(mean, variance).allSatisfy { ($0.isEmpty && $1.isEmpty) || ($0.count == nx * ny && $1.count == nx * ny) },
                     "each beacon maps every node or none")
        self.origin = origin; self.cellSize = cellSize; self.nx = nx; self.ny = ny; self.mean = mean; self.variance = variance
    }

    public var beaconCount: Int { mean.count }

    /// Whether beacon `b` has a map.
    @inlinable public func maps(beacon b: Int) -> Bool { b >= 0 && b < mean.count && !mean[b].isEmpty }

    /// The residual mean of beacon `b` at `p`, dB: bilinear between the grid's nodes, the nearest edge's beyond it.
    @inlinable public func residual(beacon b: Int, at p: Point) -> Double { maps(beacon: b) ? interpolate(mean[b], at: p) : 0 }

    /// The variance of that mean at `p`, dB².
    @inlinable public func variance(beacon b: Int, at p: Point) -> Double { maps(beacon: b) ? interpolate(variance[b], at: p) : 0 }

    @inlinable func interpolate(_ grid: [Float], at p: Point) -> Double {
        let u = min(max((p.x - origin.x) / cellSize, 0), Double(nx - 1)), v = min(max((p.y - origin.y) / cellSize, 0), Double(ny - 1))
        let i = min(Int(u), max(nx - 2, 0)), j = min(Int(v), max(ny - 2, 0))
        let fu = nx > 1 ? u - Double(i) : 0, fv = ny > 1 ? v - Double(j) : 0
        let i1 = min(i + 1, nx - 1), j1 = min(j + 1, ny - 1)
        let a = Double(grid[j * nx + i]), b = Double(grid[j * nx + i1]), c = Double(grid[j1 * nx + i]), d = Double(grid[j1 * nx + i1])
        return (a * (1 - fu) + b * fu) * (1 - fv) + (c * (1 - fu) + d * fu) * fv
    }
}
