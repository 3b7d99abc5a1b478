import Foundation
import LabCore

extension FixProblem {
    /// The 95%-style region of a solution, widened where the likelihood is flatter than its linearisation says.
    ///
    /// The linearised covariance C = (JᵀJ)⁻¹ describes the likelihood near the fix; RSSI is logarithmic in
    /// distance, so away from it the likelihood often falls more slowly (toward the far side of a beacon, out of
    /// the beacons' hull, near the venue's edge), and the linear ellipse misses the truth more often than it says.
    /// The likelihood-ratio region — where −2 log-likelihood (δ profiled out) is within `threshold` of the fix's —
    /// is what holds the truth as often as the threshold says. This walks out along ``regionRays`` rays, evenly
    /// spaced around C's ellipse (its principal axes and the directions between them), each to where the cost has
    /// risen by `threshold` or to C's own boundary if that is farther, and returns the ellipse through those
    /// points (their second moment, which is C when every ray stops at C's boundary), grown until it holds every
    /// one of them and C's ellipse too. Residuals only (δ profiled by one exact Gauss–Newton step: the model is
    /// linear in δ up to truncation).
    ///
    /// The walk stops at the edge of `bounds` (where the phone can be): with δ unknown, far outside the venue —
    /// every beacon about equally distant — can fit nearly as well as the fix. A fix outside `bounds` is reported
    /// clamped onto the edge, so the region is centred there, against the cost at that point.
    package func likelihoodRegion(_ s: Solution, covariance c: Covariance2, threshold: Double, within bounds: Rect? = nil) -> Covariance2 {
        let center = bounds.map { $0.clamp(s.position) } ?? s.position
        let frozen = model, smooth = frozen.isSmooth
        let cost = ProfiledCost(frozen, delta: s.offset, origin: center, storage: regionTerms)
        let floor = center == s.position ? s.cost : cost(center)
        let (l1, l2, u1) = c.principalAxes
        guard l1 > 0, l2 > 0, l1.isFinite, threshold > 0, threshold.isFinite else { return c }
        let u2 = Point(-u1.y, u1.x)
        let k = threshold.squareRoot()
        let a1 = k * l1.squareRoot(), a2 = k * l2.squareRoot()
        // How far along the unit `ray` the region reaches: at least `linear` (C's boundary).
        func reach(_ ray: Point, linear: Double) -> Double {
            let edge = bounds.map { FixModel.distanceToEdge(of: $0, from: center, along: ray) } ?? .infinity
            guard edge > linear else { return linear }   // the venue ends first: the linear length stands
            // Double out from the linear length until the cost has risen by `threshold` (checked up to 8×; a ray
            // still below it there is stated at 16×), not past the venue's edge, then take the upper end of the eighth
            // of the last doubling where it crosses, as three bisection steps would.
            var lo = 0.0, hi = linear, riseAtLo = 0.0, riseAtHi = 0.0
            var found = false
            for _ in 0..<4 {
                riseAtHi = cost(center + ray * hi) - floor
                if riseAtHi >= threshold { found = true; break }
                lo = hi; riseAtLo = riseAtHi
                if hi >= edge { break }
                hi = min(2 * hi, edge)
            }
            guard found else { return hi }
            guard lo > 0 else { return linear }   // already steeper than linear at C's boundary: keep it
            // Where the cost is smooth, from a guess; a wall steps it, and may make it cross more than once: bisect.
            if smooth {
                return FixProblem.bisectedCrossing(lo: lo, hi: hi, riseAtLo: riseAtLo, riseAtHi: riseAtHi, threshold: threshold) {
                    cost(center + ray * $0) - floor
                }
            }
            for _ in 0..<3 {
                let mid = (lo + hi) / 2
                if cost(center + ray * mid) - floor >= threshold { hi = mid } else { lo = mid }
            }
            return hi
        }
        let n = FixProblem.regionRays
        let q = rayEnds
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        for j in 0..<n {
            let (cosine, sine) = FixProblem.rayAngles[j]
            let v = u1 * (a1 * cosine) + u2 * (a2 * sine)
            let linear = v.length
            let ray = v / linear
            q[j] = ray * reach(ray, linear: linear)
            sxx += q[j].x * q[j].x; sxy += q[j].x * q[j].y; syy += q[j].y * q[j].y
        }
        // Points on C's threshold ellipse at evenly spaced angles have Σ q qᵀ = (n/2)·threshold·C.
        let norm = 2 / (Double(n) * threshold)
        var r = Covariance2(xx: sxx * norm, xy: sxy * norm, yy: syy * norm)
        var grow = 1.0
        for j in 0..<n { grow = max(grow, (r.mahalanobisSquared(q[j]) ?? .infinity) / threshold) }
        guard grow.isFinite else { return c }
        r = r.scaled(by: grow)
        // Never less than C (every ray reaches C's boundary, so r ⪰ C already up to rounding; this is the guard):
        // the smallest factor g with g·r − C positive semi-definite is the larger root of det(C − g·r) = 0.
        let dr = r.xx * r.yy - r.xy * r.xy, dc = c.xx * c.yy - c.xy * c.xy
        let b = r.xx * c.yy + r.yy * c.xx - 2 * r.xy * c.xy
        let g = (b + max(b * b - 4 * dr * dc, 0).squareRoot()) / (2 * dr)
        if g > 1 { r = r.scaled(by: g) }
        return r
    }
    /// Where three bisection steps of [`lo`, `hi`] would put the threshold's crossing: the upper end of the eighth of the
    /// bracket in which `rise` reaches `threshold` (`riseAtLo` < `threshold` ≤ `riseAtHi`, the rises at the ends),
    /// found from a guess rather than by halving. The square root of a likelihood's rise is nearly linear along a ray
    /// from its minimum, so the crossing is guessed by interpolating it between the ends, and only the eighths' ends
    /// around the guess are evaluated: two evaluations where bisection takes three, or one when the guess is an end eighth.
    /// The eighths' ends are computed as bisection computes them (nested midpoints), so where `rise` crosses the threshold
    /// once in the bracket the answer is bisection's to the last bit (`crossingIsBisections`); where it crosses more than
    /// once, it is the crossing nearest the guess.
    @inline(__always) package static func bisectedCrossing(lo: Double, hi: Double, riseAtLo: Double, riseAtHi: Double, threshold: Double,
                                                         rise: (Double) -> Double) -> Double {
        // The end of eighth i (1...8; 0 is `lo`), by nested midpoints as bisection takes them.
        let g4 = (lo + hi) / 2
        func end(_ i: Int) -> Double {
            switch i {
            case 1: return (lo + (lo + g4) / 2) / 2
            case 2: return (lo + g4) / 2
            case 3: return ((lo + g4) / 2 + g4) / 2
            case 4: return g4
            case 5: return (g4 + (g4 + hi) / 2) / 2
            case 6: return (g4 + hi) / 2
            case 7: return ((g4 + hi) / 2 + hi) / 2
            default: return hi
            }
        }
        let low = max(riseAtLo, 0).squareRoot(), high = riseAtHi.squareRoot()
        let guess = 8 * (threshold.squareRoot() - low) / (high - low)   // in eighths (NaN when a rise is)
        var j = guess > 0 && guess < 8 ? Int(guess) + 1 : guess >= 8 ? 8 : 1
        // Known: below the threshold at eighth `below`'s end, at or above it at `above`'s.
        var below = 0, above = 8
        while above - below > 1 {
            let c = min(max(j, below + 1), above)
            if c < above {
                if rise(end(c)) >= threshold { above = c } else { below = c; j = c + 1; continue }
            }
            if c - 1 > below {
                if rise(end(c - 1)) < threshold { below = c - 1 } else { above = c - 1; j = c - 1 }
            }
        }
        return end(above)
    }

    /// Rays the likelihood-ratio region is searched along (``likelihoodRegion(_:covariance:threshold:within:)``):
    /// every 22.5° of the whitened angle around C's ellipse, its principal axes both ways among them.
    package static let regionRays = 16
    /// cos and sin of each ray's whitened angle, 2πj / ``regionRays``: computed once, not per fix.
    static let rayAngles: [(Double, Double)] = (0..<regionRays).map { j in
        let angle = 2 * Double.pi * Double(j) / Double(regionRays)
        return (cos(angle), sin(angle))
    }
}

extension FixModel {
    /// How far from `p` (inside `r`) the ray along `u` leaves `r`, metres (0 when p is outside).
    static func distanceToEdge(of r: Rect, from p: Point, along u: Point) -> Double {
        var t = Double.infinity
        if u.x > 1e-12 { t = min(t, (r.maxX - p.x) / u.x) } else if u.x < -1e-12 { t = min(t, (r.minX - p.x) / u.x) }
        if u.y > 1e-12 { t = min(t, (r.maxY - p.y) / u.y) } else if u.y < -1e-12 { t = min(t, (r.minY - p.y) / u.y) }
        return max(t, 0)
    }
}
