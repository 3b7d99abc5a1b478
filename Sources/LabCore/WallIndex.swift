/// The walls of a venue prepared for fast line-of-sight queries: the loss, in dB, of every wall the
/// straight line between two points crosses (each wall once). Shared by the simulator, which applies the
/// losses, and the floorplan-aware estimator, which models them.
///
/// A class (immutable, so it behaves as a value): copying a venue, a simulator or a solver's frozen model then retains
/// one reference, not its ten arrays, however often the model is copied (once per residual evaluation).
///
/// **Fans.** Most queries start at a beacon: a fit asks for the loss from each heard beacon to each point it tries.
/// For each origin given at creation (the venue's beacons) the index keeps a fan: the directions around the origin in
/// ``fanBins`` sectors, and for each sector the walls a line leaving the origin in it can meet (each wall's sector
/// span as seen from the origin, one sector wider on each side; every sector for a wall through or nearly in line
/// with the origin). ``loss(fromOrigin:to:)`` tests only the walls of the query's sector, with the same test in the
/// same order as ``loss(from:to:)``, so the two give the same bits; a wall outside the sector cannot be crossed.
public final class WallIndex: Sendable {
    public let walls: [Wall]
    /// What a query reads of each wall, one record per wall in the walls' order: a query walks one contiguous array
    /// (one bounds check per query, where nine arrays cost nine checks a wall).
    private let records: [Record]
    private struct Record {
        let minX, maxX, minY, maxY: Double
        /// One end, and the vector to the other (b − a).
        let ax, ay, sx, sy: Double
        let loss: Double
    }

    /// The fans' origins (empty without walls).
    public let origins: [Point]
    /// Sectors per fan.
    public static let fanBins = 256
    /// 64-bit words per sector's set of walls.
    private let words: Int
    /// Each origin's sectors' sets of walls, one bit per wall: origin after origin, sector after sector.
    private let fans: [UInt64]

    /// The index of `walls`, with a fan for each of `origins` (the venue's beacons: see the type's notes).
    public init(_ walls: [Wall], origins: [Point] = []) {
        self.walls = walls
        records = walls.map { w in
            let a = w.segment.a, b = w.segment.b
            return Record(minX: min(a.x, b.x), maxX: max(a.x, b.x), minY: min(a.y, b.y), maxY: max(a.y, b.y),
                          ax: a.x, ay: a.y, sx: b.x - a.x, sy: b.y - a.y, loss: w.loss)
        }
        self.origins = walls.isEmpty ? [] : origins
        words = (walls.count + 63) / 64
        let bins = WallIndex.fanBins, words = self.words
        var fans = [UInt64](repeating: 0, count: self.origins.count * bins * words)
        for (k, p) in self.origins.enumerated() {
            for (w, wall) in walls.enumerated() {
                let bit = UInt64(1) << UInt64(w % 64), base = k * bins * words + w / 64
                let ax = wall.segment.a.x - p.x, ay = wall.segment.a.y - p.y
                let bx = wall.segment.b.x - p.x, by = wall.segment.b.y - p.y
                let cross = ax * by - ay * bx
                let ra = (ax * ax + ay * ay).squareRoot(), rb = (bx * bx + by * by).squareRoot()
                guard abs(cross) > 1e-9 * ra * rb, min(ra, rb) > 1e-9 * max(ra, rb) else {
                    // Through the origin, in line with it, or ending (nearly) at it: every sector (the test decides). Near
                    // an end the test's rounding can find a crossing the geometry does not have, in any direction.
                    for bin in 0..<bins { fans[base + bin * words] |= bit }
                    continue
                }
                // The wall spans less than half a turn as seen from the origin: counterclockwise from `from` to `to`.
                let (from, to) = cross > 0 ? (WallIndex.sector(ax, ay), WallIndex.sector(bx, by)) : (WallIndex.sector(bx, by), WallIndex.sector(ax, ay))
                var bin = (from - 1 + bins) % bins
                let last = (to + 1) % bins
                while true {
                    fans[base + bin * words] |= bit
                    if bin == last { break }
                    bin = (bin + 1) % bins
                }
            }
        }
        self.fans = fans
    }

    /// The fan sector of direction (dx, dy), not (0, 0): by the direction's pseudo-angle (0 along +x, 1 along +y, 2, 3,
    /// to 4; monotonic in the angle, no trigonometry), ``fanBins`` sectors to the turn.
    @inline(__always) static func sector(_ dx: Double, _ dy: Double) -> Int {
        let a: Double
        if dy >= 0 { a = dx >= 0 ? dy / (dx + dy) : 1 - dx / (dy - dx) } else { a = dx < 0 ? 2 - dy / (-dx - dy) : 3 + dx / (dx - dy) }
        return min(Int(a * Double(fanBins / 4)), fanBins - 1)
    }

    /// The index of the fan whose origin is exactly `p`, if there is one.
    public func origin(of p: Point) -> Int? { origins.firstIndex { $0.x == p.x && $0.y == p.y } }

    /// ``loss(from:to:)`` from origin `k` (``origins``) to `q`, through its fan: the same value, bit for bit (0 without
    /// walls, where there are no fans).
    public func loss(fromOrigin k: Int, to q: Point) -> Double {
        if records.isEmpty { return 0 }
        let p = origins[k]
        let rx = q.x - p.x, ry = q.y - p.y
        if rx == 0 && ry == 0 { return 0 }   // every wall's test fails on a segment of no length
        guard rx.isFinite, ry.isFinite else { return loss(from: p, to: q) }   // no sector: the plain query
        let loX = min(p.x, q.x), hiX = max(p.x, q.x), loY = min(p.y, q.y), hiY = max(p.y, q.y)
        let base = (k * WallIndex.fanBins + WallIndex.sector(rx, ry)) * words
        var total = 0.0
        records.withUnsafeBufferPointer { walls in
            fans.withUnsafeBufferPointer { fans in
                for word in 0..<words {
                    var set = fans[base + word]
                    while set != 0 {
                        let w = walls[word * 64 + set.trailingZeroBitCount]
                        set &= set - 1
                        if WallIndex.crossed(w, p: p, rx: rx, ry: ry, loX: loX, hiX: hiX, loY: loY, hiY: hiY) { total += w.loss }
                    }
                }
            }
        }
        return total
    }

    public var isEmpty: Bool { walls.isEmpty }

    /// Total loss of the walls crossed by the segment p–q, dB. Touching a wall's end counts as crossing;
    /// running along a wall does not.
    public func loss(from p: Point, to q: Point) -> Double {
        var total = 0.0
        forEachCrossed(from: p, to: q) { total += $0.loss }
        return total
    }

    /// True when the segment p–q crosses a wall (a wall of no loss too): a walker cannot go that way, a door is a
    /// gap between walls.
    public func crosses(from p: Point, to q: Point) -> Bool {
        var crossed = false
        forEachCrossed(from: p, to: q) { _ in crossed = true }
        return crossed
    }

    /// Calls `body` with every wall the segment p–q crosses, in the walls' order.
    @inline(__always) private func forEachCrossed(from p: Point, to q: Point, _ body: (Record) -> Void) {
        let loX = min(p.x, q.x), hiX = max(p.x, q.x), loY = min(p.y, q.y), hiY = max(p.y, q.y)
        let rx = q.x - p.x, ry = q.y - p.y
        records.withUnsafeBufferPointer { walls in
            for w in walls where WallIndex.crossed(w, p: p, rx: rx, ry: ry, loX: loX, hiX: hiX, loY: loY, hiY: hiY) { body(w) }
        }
    }

    /// Whether the segment from p along (rx, ry), whose box is loX…hiX × loY…hiY, crosses wall `w`: the one test.
    @inline(__always) private static func crossed(_ w: Record, p: Point, rx: Double, ry: Double,
                                                  loX: Double, hiX: Double, loY: Double, hiY: Double) -> Bool {
        if w.maxX < loX || w.minX > hiX || w.maxY < loY || w.minY > hiY { return false }
        let denom = rx * w.sy - ry * w.sx
        if denom == 0 { return false }
        let apx = w.ax - p.x, apy = w.ay - p.y
        let t = (apx * w.sy - apy * w.sx) / denom
        let u = (apx * ry - apy * rx) / denom
        return t >= 0 && t <= 1 && u >= 0 && u <= 1
    }
}
