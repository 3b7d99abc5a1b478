import LabCore

/// Where beacons may go: on walls (the scenario's walls and the rooms' edges) or on a grid over the rooms.
public enum Mount: String, Sendable, CaseIterable, Codable {
    case walls, grid
}

public enum PlanningGeometry {
    /// Distance a wall-mounted beacon stands off the wall's centre line, metres (so the wall it hangs on
    /// does not count as crossed).
    static let standOff = 0.1

    /// The walkable test points: cell centres at `spacing` inside the rooms (the bounds when there are none).
    public static func walkablePoints(_ s: Scenario, spacing: Double) -> [Point] { s.walkableGrid(spacing: spacing) }

    static func isWalkable(_ p: Point, _ s: Scenario) -> Bool { s.isWalkable(p) }

    /// The segments beacons can be mounted on: walls, room edges, and the bounds when there are no rooms.
    public static func mountSegments(_ s: Scenario) -> [Segment] {
        var segs = s.walls.map(\.segment)
        for r in s.rooms {
            let v = r.polygon.vertices
            for i in v.indices { segs.append(Segment(v[i], v[(i + 1) % v.count])) }
        }
        if s.rooms.isEmpty && s.walls.isEmpty {
            let b = s.bounds
            let c = [Point(b.minX, b.minY), Point(b.maxX, b.minY), Point(b.maxX, b.maxY), Point(b.minX, b.maxY)]
            for i in 0..<4 { segs.append(Segment(c[i], c[(i + 1) % 4])) }
        }
        return segs
    }

    /// Candidate beacon positions: along every mount segment every `spacing` metres, on each side of
    /// it that is walkable; or a grid over the walkable area. Candidates closer than half the spacing merge.
    public static func candidates(_ s: Scenario, mount: Mount, spacing: Double) -> [Point] {
        var out: [Point] = []
        // Kept candidates by cell of side spacing/2: one closer than that lies in the same cell or a neighbour, so
        // the merge looks at nine cells, not at every candidate kept (a 1 km venue's grid has 250,000).
        let cell = spacing / 2
        var cells: [SIMD2<Int>: [Int]] = [:]
        func key(_ p: Point) -> SIMD2<Int> { SIMD2(Int(((p.x - s.bounds.minX) / cell).rounded(.down)), Int(((p.y - s.bounds.minY) / cell).rounded(.down))) }
        func add(_ p: Point) {
            guard s.bounds.contains(p, tolerance: 0), isWalkable(p, s) else { return }
            let k = key(p)
            for dx in -1...1 {
                for dy in -1...1 where cells[k &+ SIMD2(dx, dy)]?.contains(where: { out[$0].distance(to: p) < cell }) == true { return }
            }
            cells[k, default: []].append(out.count)
            out.append(p)
        }
        switch mount {
        case .grid:
            walkablePoints(s, spacing: spacing).forEach(add)
        case .walls:
            for seg in mountSegments(s) {
                let len = seg.length
                guard len > 1e-9 else { continue }
                let u = (seg.b - seg.a) / len
                let normal = Point(-u.y, u.x)
                let count = max(1, Int((len / spacing).rounded()))
                for k in 0..<count {
                    let p = seg.a + u * (len * (Double(k) + 0.5) / Double(count))
                    add(p + normal * standOff)
                    add(p - normal * standOff)
                }
            }
        }
        return out
    }
}
