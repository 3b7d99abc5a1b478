/// The walls of a venue prepared for fast line-of-sight queries: the loss, in dB, of every wall the
/// straight line between two points crosses (each wall once). Shared by the simulator, which applies the
/// losses, and the floorplan-aware estimator, which models them.
///
/// A class (immutable, so it behaves as a value): copying a venue, a simulator or a solver's frozen model then retains
/// one reference, not its ten arrays (a copy per residual evaluation was a tenth of an offset-free fix).
public final class WallIndex: Sendable {
    public let walls: [Wall]
    let minX: [Double], maxX: [Double], minY: [Double], maxY: [Double]
    let ax: [Double], ay: [Double], bx: [Double], by: [Double], loss: [Double]

    public init(_ walls: [Wall]) {
        self.walls = walls
        minX = walls.map { min($0.segment.a.x, $0.segment.b.x) }
        maxX = walls.map { max($0.segment.a.x, $0.segment.b.x) }
        minY = walls.map { min($0.segment.a.y, $0.segment.b.y) }
        maxY = walls.map { max($0.segment.a.y, $0.segment.b.y) }
        ax = walls.map(\.segment.a.x); ay = walls.map(\.segment.a.y)
        bx = walls.map(\.segment.b.x); by = walls.map(\.segment.b.y)
        loss = walls.map(\.loss)
    }

    public var isEmpty: Bool { walls.isEmpty }

    /// Total loss of the walls crossed by the segment p–q, dB. Touching a wall's end counts as crossing;
    /// running along a wall does not.
    public func loss(from p: Point, to q: Point) -> Double {
        if walls.isEmpty { return 0 }
        var total = 0.0
        forEachCrossed(from: p, to: q) { total += loss[$0] }
        return total
    }

    /// True when the segment p–q crosses a wall (a wall of no loss too): a walker cannot go that way, a door is a
    /// gap between walls.
    public func crosses(from p: Point, to q: Point) -> Bool {
        if walls.isEmpty { return false }
        var crossed = false
        forEachCrossed(from: p, to: q) { _ in crossed = true }
        return crossed
    }

    /// Calls `body` with the index of every wall the segment p–q crosses.
    @inline(__always) func forEachCrossed(from p: Point, to q: Point, _ body: (Int) -> Void) {
        let loX = min(p.x, q.x), hiX = max(p.x, q.x), loY = min(p.y, q.y), hiY = max(p.y, q.y)
        let rx = q.x - p.x, ry = q.y - p.y
        for w in 0..<walls.count {
            if maxX[w] < loX || minX[w] > hiX || maxY[w] < loY || minY[w] > hiY { continue }
            let sx = bx[w] - ax[w], sy = by[w] - ay[w]
            let denom = rx * sy - ry * sx
            if denom == 0 { continue }
            let apx = ax[w] - p.x, apy = ay[w] - p.y
            let t = (apx * sy - apy * sx) / denom
            let u = (apx * ry - apy * rx) / denom
            if t >= 0 && t <= 1 && u >= 0 && u <= 1 { body(w) }
        }
    }
}
