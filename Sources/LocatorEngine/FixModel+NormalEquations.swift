import Foundation
import LabCore

extension FixModel {
    /// The normal equations at the solvers' unknowns — JᵀJ, Jᵀf, ‖f‖² and J's column norms — and, with `curvature`, the
    /// RSSI terms' Σ rᵢ·∇²rᵢ over the position block (each term's heard-mean slope taken as constant; δ enters linearly)
    /// — what JᵀJ leaves out of the Hessian of ½‖f‖², all of it when ``NormalEquations/exactCurvature`` — summed as the
    /// terms are evaluated:
    /// the RSSI rows never leave the registers; the other rows (ranges, censored terms, bearings, priors) are written to
    /// `scratchF` and `scratchJ` at their places (from row ``rssiCount``) and summed from there. What the library's solver
    /// evaluates at each trial point, with ``FastLog/pair(_:)``'s log (GSL's callbacks keep libm's: the lab's fixes' last
    /// digits decide near-ties later, which frieze a bearing matches, a particle filter's resampling).
    @inline(__always) package func normalEquations(unknowns u0: Double, _ u1: Double, _ u2: Double, scratchF: Buffer, scratchJ: Buffer,
                                                   curvature: Bool) -> NormalEquations {
        let x = u0, y = u1, delta = unknowns == 3 ? u2 - FixModel.offsetShift : 0
        let third = unknowns == 3
        guard domain == .rssi else {
            residuals(x: x, y: y, delta: delta, into: scratchF)
            jacobian(x: x, y: y, delta: delta, into: scratchJ)
            return NormalEquations(f: scratchF, J: scratchJ, rows: 0..<residualCount, three: third)
        }
        let k = halfTenNOverLn10, c = 2 * k
        var a00 = Pair(), a01 = Pair(), a02 = Pair(), a11 = Pair(), a12 = Pair(), a22 = Pair()
        var g0 = Pair(), g1 = Pair(), g2 = Pair(), ff = Pair(), sxx = Pair(), sxy = Pair(), syy = Pair()
        var truncatedTerm = false
        // Two terms at a time (``Pair``); a lane past the last term weighs nothing.
        for i in stride(from: 0, to: rssiCount, by: 2) {
            let (dx, dy, d2, wall) = pairDistances(i, x: x, y: y)
            var m = Self.load(heard.p0, i) + delta - k * FastLog.pair(d2) - wall, slope = Pair(repeating: 1)
            if truncated, any(m .< untruncatedFrom) {
                let h0 = heardMean(m[0]), h1 = i + 1 < rssiCount ? heardMean(m[1]) : (m[1], 1)
                m = Pair(h0.m, h1.m); slope = Pair(h0.slope, h1.slope)
                truncatedTerm = true
            }
            var w = Self.load(heard.weight, i) * Self.load(heard.robustWeight, i)
            let r = (Self.load(heard.rssi, i) - m) * w
            if truncated { w *= slope }
            let cw = c * w / d2
            let j0 = cw * dx, j1 = cw * dy
            a00 += j0 * j0; a01 += j0 * j1; a11 += j1 * j1
            g0 += j0 * r; g1 += j1 * r
            if third { a02 -= j0 * w; a12 -= j1 * w; a22 += w * w; g2 -= w * r }
            ff += r * r
            if curvature {
                // ∂²r/∂x² = w·c·(d² − 2dx²)/d⁴, ∂²r/∂x∂y = −w·c·2dx·dy/d⁴ (w with the heard mean's slope).
                let s = r * cw / d2
                sxx += s * (d2 - 2 * dx * dx); sxy -= s * 2 * dx * dy; syy += s * (d2 - 2 * dy * dy)
            }
        }
        var e = NormalEquations(a00: a00.sum(), a01: a01.sum(), a02: a02.sum(), a11: a11.sum(), a12: a12.sum(), a22: a22.sum(),
                                g0: g0.sum(), g1: g1.sum(), g2: g2.sum(), ff: ff.sum())
        e.sxx = sxx.sum(); e.sxy = sxy.sum(); e.syy = syy.sum()
        // The curvature is the Hessian's whole remainder when every other term is linear in the unknowns (priors) and no
        // heard mean is truncated (whose second derivative it leaves out).
        e.exactCurvature = curvature && !truncatedTerm && rangeCount == 0 && censoredCount == 0 && bearingCount == 0
        if residualCount > rssiCount {
            otherResiduals(x: x, y: y, delta: delta, into: scratchF)
            otherJacobian(x: x, y: y, delta: delta, into: scratchJ)
            e.add(f: scratchF, J: scratchJ, rows: rssiCount..<residualCount, three: third)
        }
        return e
    }

    // MARK: Two terms at a time

    /// Two lanes of doubles: the solver's and the stated region's RSSI loops take the terms in pairs, in vector registers.
    /// With an odd number of terms the last pair's second lane is the slot after the last term, which every term buffer
    /// has (``FixProblem``) and whose weight is 0: it adds nothing.
    package typealias Pair = SIMD2<Double>

    /// Terms i and i + 1 of `p`.
    @inline(__always) static func load(_ p: Buffer, _ i: Int) -> Pair {
        UnsafeRawPointer(p + i).loadUnaligned(as: Pair.self)
    }

    /// RSSI terms i and i + 1 seen from (x, y): the offsets from their beacons, the squared 3-D distances (floored at
    /// 10⁻¹² m²) and the walls' losses between (0 without walls, and for a lane past the last term).
    @inline(__always) func pairDistances(_ i: Int, x: Double, y: Double) -> (dx: Pair, dy: Pair, d2: Pair, wall: Pair) {
        let dx = x - Self.load(heard.x, i), dy = y - Self.load(heard.y, i), dz = Self.load(heard.heightOffset, i)
        var d2 = dx * dx + dy * dy + dz * dz
        d2.replace(with: 1e-12, where: d2 .< 1e-12)   // (pointwiseMax is not always inlined)
        var wall = Pair()
        if hasWalls {
            for l in 0..<2 where i + l < rssiCount {
                wall[l] = wallLoss(from: Point(heard.x[i + l], heard.y[i + l]), to: Point(x, y), fan: heard.fan[i + l], beacon: heard.beacon[i + l])
            }
        }
        return (dx, dy, d2, wall)
    }
}
