import Foundation
import LabCore

/// Cheap closed-form positions used as baselines and as starting points for iterative solvers.
package enum ClosedForm {
    /// Linearised trilateration: subtracting the first circle equation from the others gives a linear
    /// system 2(cᵢ − c₁)·p = r₁² − rᵢ² + |cᵢ|² − |c₁|², solved by weighted normal equations.
    /// Returns nil when the system is singular (fewer than 3 beacons, or collinear beacons).
    package static func linearTrilateration(venue: Venue, beacons: [BeaconObservation]) -> Point? {
        guard beacons.count >= 3 else { return nil }
        let c1 = venue.beaconPositions[beacons[0].beacon]
        let r1 = venue.horizontalRange(beacon: beacons[0].beacon, rssi: beacons[0].rssi)
        var a11 = 0.0, a12 = 0.0, a22 = 0.0, b1 = 0.0, b2 = 0.0
        for k in 1..<beacons.count {
            let o = beacons[k]
            let c = venue.beaconPositions[o.beacon]
            let r = venue.horizontalRange(beacon: o.beacon, rssi: o.rssi)
            let ax = 2 * (c.x - c1.x), ay = 2 * (c.y - c1.y)
            let rhs = r1 * r1 - r * r + c.lengthSquared - c1.lengthSquared
            // Far beacons carry large range errors: weight rows by 1/r².
            let w = 1 / max(r * r, 0.25)
            a11 += w * ax * ax; a12 += w * ax * ay; a22 += w * ay * ay
            b1 += w * ax * rhs; b2 += w * ay * rhs
        }
        let det = a11 * a22 - a12 * a12
        guard abs(det) > 1e-12 * max(a11 * a22, 1e-300) else { return nil }
        let p = Point((a22 * b1 - a12 * b2) / det, (a11 * b2 - a12 * b1) / det)
        return p.isFinite ? p : nil
    }

    /// Mean of the heard beacons' positions, optionally weighted by 1/range².
    package static func centroid(venue: Venue, beacons: [BeaconObservation], weighted: Bool) -> Point {
        var sx = 0.0, sy = 0.0, sw = 0.0
        for o in beacons {
            let w: Double
            if weighted {
                let r = venue.horizontalRange(beacon: o.beacon, rssi: o.rssi)
                w = 1 / max(r * r, 0.01)
            } else { w = 1 }
            let c = venue.beaconPositions[o.beacon]
            sx += w * c.x; sy += w * c.y; sw += w
        }
        guard sw > 0, sw.isFinite else { return centroid(venue: venue, beacons: beacons, weighted: false) }
        return Point(sx / sw, sy / sw)
    }

    /// ln 10 / 10: a power ratio of x dB is e^(x·ln 10/10).
    static let ln10Over10 = 0.230_258_509_299_404_57

    /// Mean of the heard beacons' positions weighted by received power 10^(RSSI/10), computed relative to the
    /// strongest reading (weights 10^((RSSI − RSSI_max)/10)) so that no weight underflows. Invariant to a
    /// common RSSI offset.
    package static func powerCentroid(venue: Venue, beacons: [BeaconObservation]) -> Point {
        var top = -Double.infinity
        for o in beacons { top = max(top, o.rssi) }   // (no array: this runs once a fix)
        var sx = 0.0, sy = 0.0, sw = 0.0
        for o in beacons {
            let w = exp((o.rssi - top) * ClosedForm.ln10Over10)   // 10^((RSSI − top)/10), without pow's cost
            let c = venue.beaconPositions[o.beacon]
            sx += w * c.x; sy += w * c.y; sw += w
        }
        return sw > 0 ? Point(sx / sw, sy / sw) : centroid(venue: venue, beacons: beacons, weighted: false)
    }

    /// The device offset that best explains `beacons` at `p` (mean of RSSI − the model's mean), dB.
    package static func offset(at p: Point, venue: Venue, beacons: [BeaconObservation]) -> Double {
        guard !beacons.isEmpty else { return 0 }
        var sum = 0.0
        for o in beacons {
            let c = venue.beaconPositions[o.beacon]
            let dz = venue.beaconHeightOffset[o.beacon]
            let d = ((p.x - c.x) * (p.x - c.x) + (p.y - c.y) * (p.y - c.y) + dz * dz).squareRoot()
            sum += o.rssi - venue.radio.meanRSSI(distance: d, p0: venue.beaconP0[o.beacon]) + venue.wallLoss(beacon: o.beacon, to: p)
        }
        return sum / Double(beacons.count)
    }

    /// The beacons' centroid weighted by 1/ρ² (ρ the ranged distance, at least 0.5 m): the start of a fit from
    /// ranges alone. Nil without ranges.
    package static func rangeCentroid(venue: Venue, ranges: [MeasuredRange]) -> Point? {
        guard !ranges.isEmpty else { return nil }
        var sx = 0.0, sy = 0.0, sw = 0.0
        for r in ranges {
            let w = 1 / max(r.distance * r.distance, 0.25)
            let c = venue.beaconPositions[r.beacon]
            sx += w * c.x; sy += w * c.y; sw += w
        }
        return Point(sx / sw, sy / sw)
    }

    /// Least-squares intersection of bearing lines: each line passes through landmark Lₖ along the
    /// heading uₖ; minimises Σ wₖ (nₖ·(p − Lₖ))² with nₖ ⟂ uₖ. Nil when the lines are (nearly) parallel.
    package static func bearingIntersection(lines: [(landmark: Point, heading: Double, weight: Double)]) -> Point? {
        guard lines.count >= 2 else { return nil }
        var a11 = 0.0, a12 = 0.0, a22 = 0.0, b1 = 0.0, b2 = 0.0
        for l in lines {
            let u = Bearing.unitVector(l.heading)
            let nx = u.y, ny = -u.x
            let w = l.weight
            a11 += w * nx * nx; a12 += w * nx * ny; a22 += w * ny * ny
            let c = nx * l.landmark.x + ny * l.landmark.y
            b1 += w * nx * c; b2 += w * ny * c
        }
        let det = a11 * a22 - a12 * a12
        let scale = max(a11 + a22, 1e-300)
        guard det > 1e-8 * scale * scale else { return nil }
        let p = Point((a22 * b1 - a12 * b2) / det, (a11 * b2 - a12 * b1) / det)
        return p.isFinite ? p : nil
    }
}
