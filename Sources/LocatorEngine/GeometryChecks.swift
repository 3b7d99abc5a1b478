import LabCore

package enum GeometryChecks {
    /// True when the points lie (numerically) on one line: the smaller eigenvalue of their scatter
    /// matrix is negligible compared with the larger.
    package static func areCollinear(_ points: UnsafeBufferPointer<Point>) -> Bool {
        let n = points.count
        if n < 3 { return true }
        var mx = 0.0, my = 0.0
        for p in points { mx += p.x; my += p.y }
        mx /= Double(n); my /= Double(n)
        var a = 0.0, b = 0.0, c = 0.0
        for p in points { let dx = p.x - mx, dy = p.y - my; a += dx * dx; b += dx * dy; c += dy * dy }
        let half = (a + c) / 2, disc = (((a - c) / 2) * ((a - c) / 2) + b * b).squareRoot()
        let lmax = half + disc, lmin = half - disc
        return lmax <= 1e-18 || lmin <= 1e-9 * lmax
    }

    package static func areCollinear(_ points: [Point]) -> Bool { points.withUnsafeBufferPointer { areCollinear($0) } }

    /// Why a fit cannot work on these beacons (heard, and ranged when given): nil, or collinear beacons (a fix and
    /// its mirror image fit equally well).
    package static func collinearity(venue: Venue, beacons obs: [BeaconObservation], ranges: [MeasuredRange] = [],
                                     scratch: inout [Point]) -> NoFixReason? {
        scratch.removeAll(keepingCapacity: true)
        for o in obs { scratch.append(venue.beaconPositions[o.beacon]) }
        for r in ranges { scratch.append(venue.beaconPositions[r.beacon]) }
        if scratch.withUnsafeBufferPointer({ GeometryChecks.areCollinear($0) }) {
            let which = ranges.isEmpty ? "heard beacons" : "beacons heard or ranged"
            return .degenerateGeometry("the \(scratch.count) \(which) are collinear: the fix and its mirror image fit equally well")
        }
        return nil
    }
}
