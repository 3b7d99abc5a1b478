/// The walls of a venue prepared for fast line-of-sight queries: the loss, in dB, of every wall the
/// straight line between two points crosses (each wall once). Shared by the simulator, which applies the
/// losses, and the floorplan-aware estimator, which models them.
///
/// A class (immutable, so it behaves as a value): copying a venue, a simulator or a solver's frozen model then retains
/// one reference, not its ten arrays (a copy per residual evaluation was a tenth of an offset-free fix).
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

    public init(_ walls: [Wall]) {
        self.walls = walls
        records = walls.map { w in
            let a = w.segment.a, b = w.segment.b
            return Record(minX: min(a.x, b.x), maxX: max(a.x, b.x), minY: min(a.y, b.y), maxY: max(a.y, b.y),
                          ax: a.x, ay: a.y, sx: b.x - a.x, sy: b.y - a.y, loss: w.loss)
        }
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
            for w in walls {
                if w.maxX < loX || w.minX > hiX || w.maxY < loY || w.minY > hiY { continue }
                let denom = rx * w.sy - ry * w.sx
                if denom == 0 { continue }
                let apx = w.ax - p.x, apy = w.ay - p.y
                let t = (apx * w.sy - apy * w.sx) / denom
                let u = (apx * ry - apy * rx) / denom
                if t >= 0 && t <= 1 && u >= 0 && u <= 1 { body(w) }
            }
        }
    }
}
