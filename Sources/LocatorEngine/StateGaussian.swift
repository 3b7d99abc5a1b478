import LabCore

/// A symmetric 3×3 matrix over a fit's unknowns (x, y, δ): a covariance in m², m·dB and dB².
package struct Symmetric3: Sendable, Hashable {
    package var xx, xy, xd, yy, yd, dd: Double
    package init(xx: Double, xy: Double, xd: Double, yy: Double, yd: Double, dd: Double) {
        self.xx = xx; self.xy = xy; self.xd = xd; self.yy = yy; self.yd = yd; self.dd = dd
    }
    /// The position block.
    package var position: Covariance2 { Covariance2(xx: xx, xy: xy, yy: yy) }
}

/// A Gaussian belief about (x, y, δ): what a tracker predicts before a scan, which the scan's fit takes as a
/// prior (``FixProblem/statePrior``). The prior's residuals are W·(u − mean) with W = L⁻¹ for the Cholesky factor
/// Σ = L·Lᵀ, so that their sum of squares is the Mahalanobis distance (u − mean)ᵀ Σ⁻¹ (u − mean).
package struct StatePrior: Sendable, Hashable {
    package var x, y, delta: Double
    /// W = L⁻¹, lower triangular (row-major: w00; w10 w11; w20 w21 w22).
    package let w00, w10, w11, w20, w21, w22: Double

    /// The prior N(mean, Σ); nil when Σ is not positive definite.
    package init?(x: Double, y: Double, delta: Double, covariance c: Symmetric3) {
        self.x = x; self.y = y; self.delta = delta
        guard c.xx > 0 else { return nil }
        let l00 = c.xx.squareRoot(), l10 = c.xy / l00, l20 = c.xd / l00
        let s11 = c.yy - l10 * l10
        guard s11 > 0 else { return nil }
        let l11 = s11.squareRoot(), l21 = (c.yd - l20 * l10) / l11
        let s22 = c.dd - l20 * l20 - l21 * l21
        guard s22 > 0 else { return nil }
        let l22 = s22.squareRoot()
        w00 = 1 / l00; w11 = 1 / l11; w22 = 1 / l22
        w10 = -l10 * w00 / l11
        w21 = -l21 * w11 / l22
        w20 = -(l20 * w00 + l21 * w10) / l22
        guard [w00, w10, w11, w20, w21, w22].allSatisfy(\.isFinite) else { return nil }
    }

    /// The prior's residuals at (x, y, δ); with two unknowns only the first two (the position's).
    @inline(__always) package func residuals(x px: Double, y py: Double, delta pd: Double) -> (Double, Double, Double) {
        let e0 = px - x, e1 = py - y, e2 = pd - delta
        return (w00 * e0, w10 * e0 + w11 * e1, w20 * e0 + w21 * e1 + w22 * e2)
    }
}
