import Foundation
import LabCore

/// A venue's floorplan prepared for a particle filter, whose thousand particles ask the same questions every
/// scan: where can a walker stand, does this short step cross a wall, and how much wall loss lies between this
/// spot and each beacon. Answered from grids made once (cell ``cellSize``), so a question costs a lookup:
/// - walkable: inside a room (anywhere in the bounds when the venue has no rooms), at the cell's centre;
/// - wall loss per beacon: ``WallIndex/loss(from:to:)`` from the cell's centre (piecewise constant, as the loss
///   itself is);
/// - attenuation per beacon (when asked for): the path loss from the cell's centre, 10·n·log10 d (3-D) plus the
///   wall loss, for the filter's beacons not heard, whose detection probability is smooth enough for the cell's
///   resolution;
/// - walls per cell (a uniform-grid spatial index): a step is tested only against the walls near it;
/// - with a radio map (``Venue/radioMap``): its residual at the cell's centre taken off the wall loss and the attenuation
///   (a reading there is expected that much stronger), and its variance per beacon and cell.
package struct FloorplanIndex: Sendable {
    package let bounds: Rect
    package let cellSize: Double
    /// The cells the grid aims to keep to (up to 4 times as many when both sides round up).
    package static let mostCells = 250_000.0
    /// The walkable floor's area, m²: its grid cells' (at least one cell's).
    package let walkableArea: Double
    package let nx: Int, ny: Int
    /// [cell]: 1 where a walker can stand.
    let walkable: [UInt8]
    /// [cell × ``beaconCount`` + beacon]: wall loss between the cell's centre and the beacon, less the radio map's
    /// residual there, dB.
    let losses: [Float]
    /// [cell × ``beaconCount`` + beacon]: the radio map's variance at the cell's centre, dB²; empty without a map.
    let mapVariances: [Float]
    /// [cell × ``beaconCount`` + beacon]: 10·n·log10 d from the cell's centre to the beacon (3-D, d ≥ 1 cm) plus the wall loss, dB;
    /// empty unless asked for.
    let attenuations: [Float]
    /// Wall indices per cell of the coarse wall grid, and that grid's size.
    let wallCells: [[Int32]]
    let wallCell: Double
    let wx: Int, wy: Int
    package let walls: WallIndex
    let hasWalls: Bool
    /// Whether the venue's radio map is in the grids.
    package let hasMap: Bool
    /// The venue's beacons: the grids' stride per cell.
    package let beaconCount: Int

    /// - Parameters:
    ///   - cellSize: the grid's cell, metres (about 250,000 cells at most: larger venues get larger cells, and a venue
    ///     thinner than one cell keeps to 250,000 along its length). The venue's bounds must be finite.
    ///   - attenuations: also make the attenuation grid (a float per beacon and cell; the field's likelihood uses it).
    package init(venue: Venue, cellSize requested: Double = 0.25, attenuations withAttenuations: Bool = false) {
        bounds = venue.bounds
        // √(area / 250,000), without forming an area that could overflow.
        var size = max(requested, (bounds.width / Self.mostCells).squareRoot() * bounds.height.squareRoot())
        // A side shorter than a cell still takes a whole row of cells, so by area alone a venue 10⁹ times longer than
        // wide would get a row of billions of them: then the length alone keeps to the limit.
        if min(bounds.width, bounds.height) < size { size = max(size, max(bounds.width, bounds.height) / Self.mostCells) }
        cellSize = size
        nx = max(1, Int((bounds.width / cellSize).rounded(.up))); ny = max(1, Int((bounds.height / cellSize).rounded(.up)))
        var walk = [UInt8](repeating: 0, count: nx * ny)
        var centres: [Point] = []
        centres.reserveCapacity(nx * ny)
        for iy in 0..<ny {
            for ix in 0..<nx {
                let c = Point(bounds.minX + (Double(ix) + 0.5) * cellSize, bounds.minY + (Double(iy) + 0.5) * cellSize)
                centres.append(c)
                if venue.rooms.isEmpty || venue.roomIndex(at: c) != nil { walk[iy * nx + ix] = 1 }
            }
        }
        walkable = walk
        walkableArea = Double(max(walk.reduce(0) { $0 + Int($1) }, 1)) * cellSize * cellSize
        walls = venue.walls
        hasWalls = !venue.walls.isEmpty
        // Cell-major: a particle reads every beacon's value at its cell from one or two cache lines.
        beaconCount = venue.beaconCount
        let map = venue.radioMap.flatMap { $0.beaconCount == venue.beaconCount ? $0 : nil }
        let wallLosses = venue.walls.isEmpty && map == nil ? [] : centres.flatMap { c in
            venue.beaconPositions.indices.map { Float(venue.wallLoss(beacon: $0, to: c) - (map?.residual(beacon: $0, at: c) ?? 0)) }
        }
        losses = wallLosses
        hasMap = map != nil
        mapVariances = map.map { m in centres.flatMap { c in venue.beaconPositions.indices.map { Float(m.variance(beacon: $0, at: c)) } } } ?? []
        let k = 5 * venue.radio.exponent / log(10.0), beacons = venue.beaconCount
        attenuations = !withAttenuations ? [] : centres.indices.flatMap { c in
            venue.beaconPositions.indices.map { b in
                let dx = centres[c].x - venue.beaconPositions[b].x, dy = centres[c].y - venue.beaconPositions[b].y, dz = venue.beaconHeightOffset[b]
                return Float(k * log(max(dx * dx + dy * dy + dz * dz, 1e-4)) + (wallLosses.isEmpty ? 0 : Double(wallLosses[c * beacons + b])))
            }
        }
        wallCell = max(2, max(bounds.width, bounds.height) / 64)
        wx = max(1, Int((bounds.width / wallCell).rounded(.up))); wy = max(1, Int((bounds.height / wallCell).rounded(.up)))
        var cells = [[Int32]](repeating: [], count: wx * wy)
        for (k, w) in venue.walls.walls.enumerated() {
            let a = w.segment.a, b = w.segment.b
            let x0 = Self.clampIndex((min(a.x, b.x) - bounds.minX) / wallCell, wx), x1 = Self.clampIndex((max(a.x, b.x) - bounds.minX) / wallCell, wx)
            let y0 = Self.clampIndex((min(a.y, b.y) - bounds.minY) / wallCell, wy), y1 = Self.clampIndex((max(a.y, b.y) - bounds.minY) / wallCell, wy)
            for iy in y0...y1 { for ix in x0...x1 { cells[iy * wx + ix].append(Int32(k)) } }
        }
        wallCells = cells
    }

    @inline(__always) static func clampIndex(_ v: Double, _ n: Int) -> Int { v.isNaN ? 0 : Int(min(max(v, 0), Double(n - 1))) }

    /// The grid's geometry alone (no arrays), for inner loops: ``Cells/cell(_:_:)`` is ``cell(_:_:)`` up to rounding
    /// (it multiplies by the inverse cell size, so a point on a cell's edge may fall in the neighbour).
    package struct Cells: Sendable {
        let minX, minY, inverseSize: Double
        let nx, ny: Int
        @inline(__always) package func cell(_ x: Double, _ y: Double) -> Int {
            FloorplanIndex.clampIndex((y - minY) * inverseSize, ny) * nx + FloorplanIndex.clampIndex((x - minX) * inverseSize, nx)
        }
    }

    /// ``isWalkable(_:_:)`` over a pointer to the grid, valid inside ``withWalkable(_:)``.
    package struct Walkable {
        let cells: Cells
        let minX, minY, maxX, maxY: Double
        let grid: UnsafePointer<UInt8>
        @inline(__always) package func contains(_ x: Double, _ y: Double) -> Bool {
            x >= minX && x <= maxX && y >= minY && y <= maxY && grid[cells.cell(x, y)] != 0
        }
    }

    package func withWalkable<R>(_ body: (Walkable) -> R) -> R {
        walkable.withUnsafeBufferPointer { w in
            body(Walkable(cells: cells, minX: bounds.minX, minY: bounds.minY, maxX: bounds.maxX, maxY: bounds.maxY, grid: w.baseAddress!))
        }
    }

    package var cells: Cells { Cells(minX: bounds.minX, minY: bounds.minY, inverseSize: 1 / cellSize, nx: nx, ny: ny) }

    /// The grid cell holding `p` (clamped into the bounds).
    @inline(__always) package func cell(_ x: Double, _ y: Double) -> Int {
        Self.clampIndex((y - bounds.minY) / cellSize, ny) * nx + Self.clampIndex((x - bounds.minX) / cellSize, nx)
    }

    /// True where a walker can stand (inside the bounds, in a room when the venue has rooms).
    @inline(__always) package func isWalkable(_ x: Double, _ y: Double) -> Bool {
        x >= bounds.minX && x <= bounds.maxX && y >= bounds.minY && y <= bounds.maxY && walkable[cell(x, y)] != 0
    }

    /// Whether the attenuation grid was made (``init(venue:cellSize:attenuations:)``).
    package var hasAttenuations: Bool { !attenuations.isEmpty }

    /// Calls `body` with the wall-loss and attenuation grids as pointers (nil when the venue has no walls, or the
    /// attenuations were not made), indexed [cell × ``beaconCount`` + beacon]: for inner loops that should not touch
    /// the arrays per lookup.
    /// The radio map's variances come third (nil without a map).
    package func withGrids<R>(_ body: (_ losses: UnsafePointer<Float>?, _ attenuations: UnsafePointer<Float>?, _ mapVariances: UnsafePointer<Float>?) -> R) -> R {
        losses.withUnsafeBufferPointer { l in
            attenuations.withUnsafeBufferPointer { a in
                mapVariances.withUnsafeBufferPointer { v in body(hasWalls || hasMap ? l.baseAddress : nil, a.baseAddress, hasMap ? v.baseAddress : nil) }
            }
        }
    }

    package var cellCount: Int { nx * ny }

    /// True when the step p–q crosses a wall: tested against the walls of the coarse cells the step's box touches
    /// (long steps fall back to every wall).
    package func crosses(_ px: Double, _ py: Double, _ qx: Double, _ qy: Double) -> Bool {
        guard hasWalls else { return false }
        let x0 = Self.clampIndex((min(px, qx) - bounds.minX) / wallCell, wx), x1 = Self.clampIndex((max(px, qx) - bounds.minX) / wallCell, wx)
        let y0 = Self.clampIndex((min(py, qy) - bounds.minY) / wallCell, wy), y1 = Self.clampIndex((max(py, qy) - bounds.minY) / wallCell, wy)
        if (x1 - x0 + 1) * (y1 - y0 + 1) > 16 { return walls.crosses(from: Point(px, py), to: Point(qx, qy)) }
        let p = Point(px, py), q = Point(qx, qy)
        for iy in y0...y1 {
            for ix in x0...x1 {
                for w in wallCells[iy * wx + ix] where walls.walls[Int(w)].segment.intersects(p, q) { return true }
            }
        }
        return false
    }
}
