import Foundation
@preconcurrency internal import CGSL
import LabCore

/// GSL's error handler aborts the process by default; turn it off once, before any GSL call,
/// and read status codes instead.
let gslErrorHandlerOff: Void = { _ = gsl_set_error_handler_off() }()

/// Nonlinear least squares for a 2-D position — and, when asked, the phone's RSSI offset δ as a third
/// unknown — over RSSI, censored and bearing terms, on GSL's `gsl_multifit_nlinear` (trust region,
/// Levenberg–Marquardt) with an analytic Jacobian.
///
/// Residuals, each divided by its standard deviation so that (JᵀJ)⁻¹ is the covariance:
/// - RSSI domain:  (rssi_i − (P0_i + δ − 10·n·log10 d_i − walls_i)) · √k_i · u_i / σ   (u_i: robust weight, 1 by default)
/// - range domain: (d_i − r̂_i) · √k_i / (r̂_i · σ · ln10 / (10·n))   (first-order variance of r̂; no δ)
/// - truncated RSSI (when `truncatedMeans`): as the RSSI term, with the model's mean replaced by the mean of
///                 the readings that cleared the sensitivity, μ + σ·λ((S − μ)/σ) (λ the normal hazard φ/(1 − Φ)):
///                 a weak phone hears a far beacon only when the noise lifts it, so its heard mean is high
/// - censored:     √(−2·k_i·ln m_i),  m_i = loss + (1 − loss)·Φ((S − μ_i)/σ): the probability that beacon i,
///                 in the venue but not heard, missed all k_i advertisements of the window (S: sensitivity)
/// - bearing:      wrap(heading_k − bearing(p → L_k)) / σθ   (radians)
/// - offset prior: (δ − δ₀) / σ_δ, when a prior on δ is set
///
/// δ is 0 and not estimated unless the solver is made with `estimatesOffset`. Workspaces are allocated once
/// per residual count and reused; the term buffers are sized for the venue, so a solve allocates nothing.
final class FixSolver {
    enum Domain { case rssi, range }

    let domain: Domain
    /// True when δ is the third unknown.
    let estimatesOffset: Bool
    let unknowns: Int
    /// True when the advertisements of a window share one shadowing draw (correlated shadowing): then
    /// averaging them adds no information and every beacon counts once.
    var correlatedShadowing = false
    /// Walls whose losses the RSSI model includes (nil: free-space model).
    let walls: WallIndex?
    let exponent: Double
    let sigma: Double
    /// Receiver sensitivity and packet loss, for censored terms.
    var sensitivity = -100.0
    var packetLoss = 0.0
    /// Model each heard beacon's mean as the mean of a normal truncated at the sensitivity (see the type's notes).
    var truncatedMeans = false
    // RSSI terms.
    var bx: [Double], by: [Double], bdz: [Double], bp0: [Double], brssi: [Double], bweight: [Double], brange: [Double]
    /// Robust weight multiplier per RSSI term (√ of the IRLS weight), 1 unless set.
    var brobust: [Double]
    var rssiCount = 0
    // Censored terms: beacon position, height offset, P0, missed advertisements.
    var cx: [Double], cy: [Double], cdz: [Double], cp0: [Double], cmissed: [Double]
    var censoredCount = 0
    // Bearing terms: landmark position, heading in radians, 1/σθ.
    var lx: [Double] = [], ly: [Double] = [], lheading: [Double] = [], lweight: [Double] = []
    var bearingCount = 0
    /// A prior on δ: (mean, σ), dB.
    var offsetPrior: (mean: Double, sigma: Double)?

    private var workspaces: [Int: Workspace] = [:]
    private let x0: UnsafeMutablePointer<gsl_vector>
    private let covariance: UnsafeMutablePointer<gsl_matrix>

    final class Workspace {
        let w: UnsafeMutablePointer<gsl_multifit_nlinear_workspace>
        let fdf: UnsafeMutablePointer<gsl_multifit_nlinear_fdf>
        init?(residuals n: Int, unknowns p: Int, owner: FixSolver) {
            var params = gsl_multifit_nlinear_default_parameters()
            params.trs = gsl_multifit_nlinear_trs_lm
            // Two or three unknowns: the normal equations (Cholesky) are as accurate as QR here, and cheaper.
            params.solver = gsl_multifit_nlinear_solver_cholesky
            guard let w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, n, p) else { return nil }
            self.w = w
            fdf = .allocate(capacity: 1)
            fdf.initialize(to: gsl_multifit_nlinear_fdf())
            fdf.pointee.f = fixSolverResiduals
            fdf.pointee.df = fixSolverJacobian
            fdf.pointee.fvv = nil
            fdf.pointee.n = n
            fdf.pointee.p = p
            fdf.pointee.params = Unmanaged.passUnretained(owner).toOpaque()
        }
        deinit {
            gsl_multifit_nlinear_free(w)
            fdf.deallocate()
        }
    }

    init(capacity: Int, exponent: Double, sigma: Double, domain: Domain, walls: WallIndex? = nil, estimatesOffset: Bool = false) {
        _ = gslErrorHandlerOff
        self.domain = domain
        self.walls = walls.flatMap { $0.isEmpty ? nil : $0 }
        self.estimatesOffset = estimatesOffset && domain == .rssi
        unknowns = self.estimatesOffset ? 3 : 2
        self.exponent = exponent
        self.sigma = max(sigma, 0.1)
        let z = [Double](repeating: 0, count: max(capacity, 1))
        bx = z; by = z; bdz = z; bp0 = z; brssi = z; bweight = z; brange = z
        brobust = [Double](repeating: 1, count: max(capacity, 1))
        cx = z; cy = z; cdz = z; cp0 = z; cmissed = z
        x0 = gsl_vector_alloc(unknowns)
        covariance = gsl_matrix_alloc(unknowns, unknowns)
    }

    /// A solver for `venue`: its beacon count, path-loss exponent, σ, shadowing correlation, sensitivity and
    /// packet loss.
    convenience init(venue: Venue, domain: Domain, walls: WallIndex? = nil, estimatesOffset: Bool = false) {
        self.init(capacity: venue.beaconCount, exponent: venue.radio.exponent, sigma: venue.radio.sigma, domain: domain,
                  walls: walls, estimatesOffset: estimatesOffset)
        correlatedShadowing = venue.radio.correlationDistance != nil
        sensitivity = venue.radio.sensitivity
        packetLoss = venue.radio.packetLoss
    }

    deinit {
        gsl_vector_free(x0)
        gsl_matrix_free(covariance)
    }

    func reset() { rssiCount = 0; bearingCount = 0; censoredCount = 0; offsetPrior = nil }

    var residualCount: Int { rssiCount + censoredCount + bearingCount + (offsetPrior != nil && estimatesOffset ? 1 : 0) }

    func addRSSI(position: Point, heightOffset: Double, p0: Double, rssi: Double, count: Int) {
        let i = rssiCount
        bx[i] = position.x; by[i] = position.y; bdz[i] = heightOffset; bp0[i] = p0; brssi[i] = rssi
        brange[i] = RadioModel.distance(rssi: rssi, p0: p0, exponent: exponent)
        bweight[i] = (correlatedShadowing ? 1 : Double(max(count, 1)).squareRoot()) / sigma
        if domain == .range { bweight[i] /= brange[i] * log(10) / (10 * exponent) }
        brobust[i] = 1
        rssiCount += 1
    }

    /// One RSSI term per beacon observed, with the venue's beacon position, height and power.
    func addRSSI(_ observations: [BeaconObservation], venue: Venue) {
        for o in observations {
            addRSSI(position: venue.beaconPositions[o.beacon], heightOffset: venue.beaconHeightOffset[o.beacon],
                    p0: venue.beaconP0[o.beacon], rssi: o.rssi, count: o.count)
        }
    }

    /// One censored term per beacon of the venue not in `heard`: it was not heard in any of `advertisements`
    /// chances (1 with correlated shadowing: one draw per window).
    func addCensored(venue: Venue, heard: BeaconSet, advertisements: Int) {
        let k = correlatedShadowing ? 1.0 : Double(max(advertisements, 1))
        for b in 0..<venue.beaconCount where !heard.contains(b) {
            let i = censoredCount
            cx[i] = venue.beaconPositions[b].x; cy[i] = venue.beaconPositions[b].y
            cdz[i] = venue.beaconHeightOffset[b]; cp0[i] = venue.beaconP0[b]; cmissed[i] = k
            censoredCount += 1
        }
    }

    func addBearing(landmark: Point, headingDegrees: Double, sigmaDegrees: Double) {
        if lx.count == bearingCount {
            lx.append(0); ly.append(0); lheading.append(0); lweight.append(0)
        }
        let i = bearingCount
        lx[i] = landmark.x; ly[i] = landmark.y; lheading[i] = headingDegrees * .pi / 180
        lweight[i] = 1 / (max(sigmaDegrees, 0.5) * .pi / 180)
        bearingCount += 1
    }

    struct Solution {
        var position: Point
        var covariance: Covariance2?
        /// δ, dB (0 when not estimated).
        var offset: Double
        /// Variance of δ, dB² (nil when not estimated or not available).
        var offsetVariance: Double?
        /// Sum of squared (normalised) residuals at the solution: −2 log-likelihood up to a constant.
        var cost: Double
    }

    /// Solves from `start` (and δ from `offset`); a failure when GSL reports one or the result is not finite.
    func solve(from start: Point, offset: Double = 0, maxIterations: Int = 100) -> Result<Solution, NoFixReason> {
        let n = residualCount
        guard n >= unknowns else { return .failure(.tooFewBeacons(heard: n, needed: unknowns)) }
        let ws: Workspace
        if let cached = workspaces[n] { ws = cached } else {
            guard let made = Workspace(residuals: n, unknowns: unknowns, owner: self) else { return .failure(.solverFailed("GSL could not allocate a workspace")) }
            workspaces[n] = made
            ws = made
        }
        gsl_vector_set(x0, 0, start.x)
        gsl_vector_set(x0, 1, start.y)
        if estimatesOffset { gsl_vector_set(x0, 2, offset) }
        var status = gsl_multifit_nlinear_init(x0, ws.fdf, ws.w)
        guard status == GSL_SUCCESS else { return .failure(.solverFailed(String(cString: gsl_strerror(status)))) }
        var info: Int32 = 0
        // Stop when a step is below 1e-5 of the coordinates (0.3 mm at 30 m) or the scaled gradient is
        // tiny: fixes are metre-scale, and tighter tolerances cost iterations of linear convergence on
        // noisy data (11 instead of 5) for nothing. Noise-free data converges quadratically to < 1 µm.
        status = gsl_multifit_nlinear_driver(maxIterations, 1e-5, 1e-9, 0, nil, nil, &info, ws.w)
        // GSL_EMAXITER still leaves the best point found; other codes mean no usable answer.
        guard status == GSL_SUCCESS || status == GSL_EMAXITER || status == GSL_ENOPROG else {
            return .failure(.solverFailed(String(cString: gsl_strerror(status))))
        }
        let x = gsl_multifit_nlinear_position(ws.w)!
        let p = Point(gsl_vector_get(x, 0), gsl_vector_get(x, 1))
        let delta = estimatesOffset ? gsl_vector_get(x, 2) : 0
        guard p.isFinite, delta.isFinite else { return .failure(.solverFailed("the solution is not finite")) }
        var cov: Covariance2? = nil
        var offsetVariance: Double? = nil
        if gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(ws.w), 1e-12, covariance) == GSL_SUCCESS {
            let c = Covariance2(xx: gsl_matrix_get(covariance, 0, 0), xy: gsl_matrix_get(covariance, 0, 1), yy: gsl_matrix_get(covariance, 1, 1))
            if c.xx.isFinite && c.yy.isFinite && c.xx >= 0 && c.yy >= 0 { cov = c }
            if estimatesOffset {
                let v = gsl_matrix_get(covariance, 2, 2)
                if v.isFinite && v >= 0 { offsetVariance = v }
            }
        }
        let f = gsl_multifit_nlinear_residual(ws.w)!
        var cost = 0.0
        gsl_blas_ddot(f, f, &cost)
        return .success(Solution(position: p, covariance: cov, offset: delta, offsetVariance: offsetVariance, cost: cost))
    }

    /// RSSI term i's residual in units of one reading's σ (before robust weighting) at a solution: what an
    /// IRLS step weighs.
    func standardisedRSSIResidual(_ i: Int, at s: Solution) -> Double {
        let dx = s.position.x - bx[i], dy = s.position.y - by[i]
        let d = max((dx * dx + dy * dy + bdz[i] * bdz[i]).squareRoot(), 1e-6)
        let wallLoss = walls?.loss(from: Point(bx[i], by[i]), to: s.position) ?? 0
        return (brssi[i] - heardMean(bp0[i] + s.offset - 10 * exponent * log10(d) - wallLoss).m) / sigma
    }

    /// The residuals at `p` (and δ) as an array (for tests: the Jacobian is checked against finite differences).
    func residuals(at p: Point, offset: Double = 0) -> [Double] {
        let n = residualCount
        let f = gsl_vector_alloc(n)!
        defer { gsl_vector_free(f) }
        residuals(x: p.x, y: p.y, delta: offset, into: f)
        return (0..<n).map { gsl_vector_get(f, $0) }
    }

    /// The analytic Jacobian at `p` (and δ), one row (∂/∂x, ∂/∂y[, ∂/∂δ]) per residual (for tests).
    func jacobian(at p: Point, offset: Double = 0) -> [[Double]] {
        let n = residualCount
        let J = gsl_matrix_alloc(n, unknowns)!
        defer { gsl_matrix_free(J) }
        jacobian(x: p.x, y: p.y, delta: offset, into: J)
        return (0..<n).map { i in (0..<unknowns).map { gsl_matrix_get(J, i, $0) } }
    }

    // MARK: residuals and Jacobian (called from C)

    @inline(__always) static func normalCDF(_ z: Double) -> Double { 0.5 * erfc(-z / 2.0.squareRoot()) }
    @inline(__always) static func normalPDF(_ z: Double) -> Double { exp(-0.5 * z * z) / (2 * Double.pi).squareRoot() }

    /// The mean of readings with model mean μ that cleared the sensitivity, and its derivative in μ:
    /// m = μ + σ·λ(α), dm/dμ = 1 − λ(λ − α), α = (S − μ)/σ. Beyond 6σ above the sensitivity, (μ, 1).
    @inline(__always) func heardMean(_ mu: Double) -> (m: Double, slope: Double) {
        guard truncatedMeans else { return (mu, 1) }
        let a = min((sensitivity - mu) / sigma, 30)
        guard a > -6 else { return (mu, 1) }
        let lambda = FixSolver.normalPDF(a) / max(0.5 * erfc(a / 2.0.squareRoot()), 1e-300)
        return (mu + sigma * lambda, min(max(1 - lambda * (lambda - a), 0), 1))
    }

    /// The censored term c at (x, y, δ): its residual and, when wanted, dr/dμ (μ the beacon's mean RSSI).
    @inline(__always) func censored(_ c: Int, x: Double, y: Double, delta: Double) -> (r: Double, dr: Double, dx: Double, dy: Double, d2: Double) {
        let dx = x - cx[c], dy = y - cy[c]
        let d2 = max(dx * dx + dy * dy + cdz[c] * cdz[c], 1e-12)
        let wallLoss = walls?.loss(from: Point(cx[c], cy[c]), to: Point(x, y)) ?? 0
        let mu = cp0[c] + delta - 5 * exponent * log10(d2) - wallLoss
        let z = (sensitivity - mu) / sigma
        let miss = max(packetLoss + (1 - packetLoss) * FixSolver.normalCDF(z), 1e-300)
        let r = (-2 * cmissed[c] * log(miss)).squareRoot()
        // r² = −2k ln m  ⇒  dr/dμ = (k/(r·m))·(1 − loss)·φ(z)/σ
        let dr = r > 1e-9 ? cmissed[c] * (1 - packetLoss) * FixSolver.normalPDF(z) / (r * miss * sigma) : 0
        return (r, dr, dx, dy, d2)
    }

    fileprivate func residuals(x: Double, y: Double, delta: Double, into f: UnsafeMutablePointer<gsl_vector>) {
        let tenN = 10 * exponent
        // The hot loop reads the term buffers through local copies (one exclusivity check each, not one per
        // element) and writes GSL's vector directly.
        let bx = self.bx, by = self.by, bdz = self.bdz, bp0 = self.bp0, brssi = self.brssi, bweight = self.bweight,
            brobust = self.brobust, brange = self.brange, walls = self.walls, domain = self.domain
        let out = f.pointee.data!, stride = f.pointee.stride
        for i in 0..<rssiCount {
            let dx = x - bx[i], dy = y - by[i]
            let d = max((dx * dx + dy * dy + bdz[i] * bdz[i]).squareRoot(), 1e-6)
            let r: Double
            switch domain {
            case .rssi:
                // Wall losses are piecewise constant in p: they shift the model, not its derivative.
                let wallLoss = walls?.loss(from: Point(bx[i], by[i]), to: Point(x, y)) ?? 0
                r = (brssi[i] - heardMean(bp0[i] + delta - tenN * log10(d) - wallLoss).m) * bweight[i] * brobust[i]
            case .range: r = (d - brange[i]) * bweight[i]
            }
            out[i * stride] = r
        }
        var row = rssiCount
        for c in 0..<censoredCount {
            gsl_vector_set(f, row, censored(c, x: x, y: y, delta: delta).r)
            row += 1
        }
        for k in 0..<bearingCount {
            let a = lx[k] - x, b = ly[k] - y
            let bearing = atan2(a, b)
            var diff = (lheading[k] - bearing).truncatingRemainder(dividingBy: 2 * .pi)
            if diff > .pi { diff -= 2 * .pi } else if diff <= -.pi { diff += 2 * .pi }
            gsl_vector_set(f, row, diff * lweight[k])
            row += 1
        }
        if estimatesOffset, let prior = offsetPrior { gsl_vector_set(f, row, (delta - prior.mean) / prior.sigma) }
    }

    fileprivate func jacobian(x: Double, y: Double, delta: Double, into J: UnsafeMutablePointer<gsl_matrix>) {
        let c = 10 * exponent / log(10)
        let third = estimatesOffset
        let bx = self.bx, by = self.by, bdz = self.bdz, bp0 = self.bp0, bweight = self.bweight, brobust = self.brobust,
            walls = self.walls, domain = self.domain, truncated = truncatedMeans
        let out = J.pointee.data!, tda = J.pointee.tda
        for i in 0..<rssiCount {
            let dx = x - bx[i], dy = y - by[i]
            let d2 = max(dx * dx + dy * dy + bdz[i] * bdz[i], 1e-12)
            let row = out + i * tda
            switch domain {
            case .rssi:
                // ∂/∂x of (rssi − P0 − δ + 10 n log10 d) = 10n/ln10 · dx/d²; ∂/∂δ = −1 (times dm/dμ when truncated)
                var w = bweight[i] * brobust[i]
                if truncated {
                    let wallLoss = walls?.loss(from: Point(bx[i], by[i]), to: Point(x, y)) ?? 0
                    w *= heardMean(bp0[i] + delta - 5 * exponent * log10(d2) - wallLoss).slope
                }
                row[0] = c * dx / d2 * w
                row[1] = c * dy / d2 * w
                if third { row[2] = -w }
            case .range:
                let d = d2.squareRoot()
                row[0] = dx / d * bweight[i]
                row[1] = dy / d * bweight[i]
            }
        }
        var row = rssiCount
        for k in 0..<censoredCount {
            let t = censored(k, x: x, y: y, delta: delta)
            // μ = P0 + δ − 10 n log10 d − walls: ∂μ/∂x = −c·dx/d², ∂μ/∂δ = 1
            gsl_matrix_set(J, row, 0, -t.dr * c * t.dx / t.d2)
            gsl_matrix_set(J, row, 1, -t.dr * c * t.dy / t.d2)
            if third { gsl_matrix_set(J, row, 2, t.dr) }
            row += 1
        }
        for k in 0..<bearingCount {
            let a = lx[k] - x, b = ly[k] - y
            let r2 = max(a * a + b * b, 1e-12)
            // residual = heading − atan2(a, b); ∂atan2/∂x = −b/r², ∂atan2/∂y = a/r²
            gsl_matrix_set(J, row, 0, b / r2 * lweight[k])
            gsl_matrix_set(J, row, 1, -a / r2 * lweight[k])
            if third { gsl_matrix_set(J, row, 2, 0) }
            row += 1
        }
        if third, let prior = offsetPrior {
            gsl_matrix_set(J, row, 0, 0); gsl_matrix_set(J, row, 1, 0); gsl_matrix_set(J, row, 2, 1 / prior.sigma)
        }
    }
}

private func fixSolverResiduals(_ x: UnsafePointer<gsl_vector>?, _ params: UnsafeMutableRawPointer?,
                                _ f: UnsafeMutablePointer<gsl_vector>?) -> Int32 {
    guard let x, let params, let f else { return Int32(GSL_EINVAL) }
    let solver = Unmanaged<FixSolver>.fromOpaque(params).takeUnretainedValue()
    solver.residuals(x: gsl_vector_get(x, 0), y: gsl_vector_get(x, 1), delta: solver.estimatesOffset ? gsl_vector_get(x, 2) : 0, into: f)
    return Int32(GSL_SUCCESS)
}

private func fixSolverJacobian(_ x: UnsafePointer<gsl_vector>?, _ params: UnsafeMutableRawPointer?,
                               _ J: UnsafeMutablePointer<gsl_matrix>?) -> Int32 {
    guard let x, let params, let J else { return Int32(GSL_EINVAL) }
    let solver = Unmanaged<FixSolver>.fromOpaque(params).takeUnretainedValue()
    solver.jacobian(x: gsl_vector_get(x, 0), y: gsl_vector_get(x, 1), delta: solver.estimatesOffset ? gsl_vector_get(x, 2) : 0, into: J)
    return Int32(GSL_SUCCESS)
}
