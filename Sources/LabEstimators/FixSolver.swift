import Foundation
@preconcurrency internal import CGSL
import LabCore

/// GSL's error handler aborts the process by default; turn it off once, before any GSL call,
/// and read status codes instead.
let gslErrorHandlerOff: Void = { _ = gsl_set_error_handler_off() }()

/// Nonlinear least squares for a 2-D position over RSSI and bearing terms, on GSL's
/// `gsl_multifit_nlinear` (trust region, Levenberg–Marquardt) with an analytic Jacobian.
///
/// Residuals, each divided by its standard deviation so that (JᵀJ)⁻¹ is the covariance:
/// - RSSI domain:  (rssi_i − P0_i + 10·n·log10 d_i) · √k_i / σ
/// - range domain: (d_i − r̂_i) · √k_i / (r̂_i · σ · ln10 / (10·n))   (first-order variance of r̂)
/// - bearing:      wrap(heading_k − bearing(p → L_k)) / σθ   (radians)
///
/// Workspaces are allocated once per residual count and reused; the term buffers are sized for the
/// venue, so a solve allocates nothing.
final class FixSolver {
    enum Domain { case rssi, range }

    let domain: Domain
    /// True when the advertisements of a window share one shadowing draw (correlated shadowing): then
    /// averaging them adds no information and every beacon counts once.
    var correlatedShadowing = false
    /// Walls whose losses the RSSI model includes (nil: free-space model).
    let walls: WallIndex?
    let exponent: Double
    let sigma: Double
    // RSSI terms.
    var bx: [Double], by: [Double], bdz: [Double], bp0: [Double], brssi: [Double], bweight: [Double], brange: [Double]
    var rssiCount = 0
    // Bearing terms: landmark position, heading in radians, 1/σθ.
    var lx: [Double] = [], ly: [Double] = [], lheading: [Double] = [], lweight: [Double] = []
    var bearingCount = 0

    private var workspaces: [Int: Workspace] = [:]
    private let x0: UnsafeMutablePointer<gsl_vector>
    private let covariance: UnsafeMutablePointer<gsl_matrix>

    final class Workspace {
        let w: UnsafeMutablePointer<gsl_multifit_nlinear_workspace>
        let fdf: UnsafeMutablePointer<gsl_multifit_nlinear_fdf>
        init?(residuals n: Int, owner: FixSolver) {
            var params = gsl_multifit_nlinear_default_parameters()
            params.trs = gsl_multifit_nlinear_trs_lm
            // Two unknowns: the normal equations (Cholesky) are as accurate as QR here, and cheaper.
            params.solver = gsl_multifit_nlinear_solver_cholesky
            guard let w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, n, 2) else { return nil }
            self.w = w
            fdf = .allocate(capacity: 1)
            fdf.initialize(to: gsl_multifit_nlinear_fdf())
            fdf.pointee.f = fixSolverResiduals
            fdf.pointee.df = fixSolverJacobian
            fdf.pointee.fvv = nil
            fdf.pointee.n = n
            fdf.pointee.p = 2
            fdf.pointee.params = Unmanaged.passUnretained(owner).toOpaque()
        }
        deinit {
            gsl_multifit_nlinear_free(w)
            fdf.deallocate()
        }
    }

    init(capacity: Int, exponent: Double, sigma: Double, domain: Domain, walls: WallIndex? = nil) {
        _ = gslErrorHandlerOff
        self.domain = domain
        self.walls = walls.flatMap { $0.isEmpty ? nil : $0 }

        self.exponent = exponent
        self.sigma = max(sigma, 0.1)
        let z = [Double](repeating: 0, count: max(capacity, 1))
        bx = z; by = z; bdz = z; bp0 = z; brssi = z; bweight = z; brange = z
        x0 = gsl_vector_alloc(2)
        covariance = gsl_matrix_alloc(2, 2)
    }

    /// A solver for `venue`: its beacon count, path-loss exponent, σ and shadowing correlation.
    convenience init(venue: Venue, domain: Domain, walls: WallIndex? = nil) {
        self.init(capacity: venue.beaconCount, exponent: venue.radio.exponent, sigma: venue.radio.sigma, domain: domain, walls: walls)
        correlatedShadowing = venue.radio.correlationDistance != nil
    }

    deinit {
        gsl_vector_free(x0)
        gsl_matrix_free(covariance)
    }

    func reset() { rssiCount = 0; bearingCount = 0 }

    func addRSSI(position: Point, heightOffset: Double, p0: Double, rssi: Double, count: Int) {
        let i = rssiCount
        bx[i] = position.x; by[i] = position.y; bdz[i] = heightOffset; bp0[i] = p0; brssi[i] = rssi
        brange[i] = RadioModel.distance(rssi: rssi, p0: p0, exponent: exponent)
        bweight[i] = (correlatedShadowing ? 1 : Double(max(count, 1)).squareRoot()) / sigma
        if domain == .range { bweight[i] /= brange[i] * log(10) / (10 * exponent) }
        rssiCount += 1
    }

    /// One RSSI term per beacon observed, with the venue's beacon position, height and power.
    func addRSSI(_ observations: [BeaconObservation], venue: Venue) {
        for o in observations {
            addRSSI(position: venue.beaconPositions[o.beacon], heightOffset: venue.beaconHeightOffset[o.beacon],
                    p0: venue.beaconP0[o.beacon], rssi: o.rssi, count: o.count)
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
        /// Sum of squared (normalised) residuals at the solution: −2 log-likelihood up to a constant.
        var cost: Double
    }

    /// Solves from `start`; nil when GSL reports a failure or the result is not finite.
    func solve(from start: Point, maxIterations: Int = 100) -> Result<Solution, NoFixReason> {
        let n = rssiCount + bearingCount
        guard n >= 2 else { return .failure(.tooFewBeacons(heard: n, needed: 2)) }
        let ws: Workspace
        if let cached = workspaces[n] { ws = cached } else {
            guard let made = Workspace(residuals: n, owner: self) else { return .failure(.solverFailed("GSL could not allocate a workspace")) }
            workspaces[n] = made
            ws = made
        }
        gsl_vector_set(x0, 0, start.x)
        gsl_vector_set(x0, 1, start.y)
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
        guard p.isFinite else { return .failure(.solverFailed("the solution is not finite")) }
        var cov: Covariance2? = nil
        if gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(ws.w), 1e-12, covariance) == GSL_SUCCESS {
            let c = Covariance2(xx: gsl_matrix_get(covariance, 0, 0), xy: gsl_matrix_get(covariance, 0, 1), yy: gsl_matrix_get(covariance, 1, 1))
            if c.xx.isFinite && c.yy.isFinite && c.xx >= 0 && c.yy >= 0 { cov = c }
        }
        let f = gsl_multifit_nlinear_residual(ws.w)!
        var cost = 0.0
        gsl_blas_ddot(f, f, &cost)
        return .success(Solution(position: p, covariance: cov, cost: cost))
    }

    /// The residuals at `p` as an array (for tests: the Jacobian is checked against finite differences).
    func residuals(at p: Point) -> [Double] {
        let n = rssiCount + bearingCount
        let f = gsl_vector_alloc(n)!
        defer { gsl_vector_free(f) }
        residuals(x: p.x, y: p.y, into: f)
        return (0..<n).map { gsl_vector_get(f, $0) }
    }

    /// The analytic Jacobian at `p`, one row (∂/∂x, ∂/∂y) per residual (for tests).
    func jacobian(at p: Point) -> [(Double, Double)] {
        let n = rssiCount + bearingCount
        let J = gsl_matrix_alloc(n, 2)!
        defer { gsl_matrix_free(J) }
        jacobian(x: p.x, y: p.y, into: J)
        return (0..<n).map { (gsl_matrix_get(J, $0, 0), gsl_matrix_get(J, $0, 1)) }
    }

    // MARK: residuals and Jacobian (called from C)

    fileprivate func residuals(x: Double, y: Double, into f: UnsafeMutablePointer<gsl_vector>) {
        let tenN = 10 * exponent
        for i in 0..<rssiCount {
            let dx = x - bx[i], dy = y - by[i]
            let d = max((dx * dx + dy * dy + bdz[i] * bdz[i]).squareRoot(), 1e-6)
            let r: Double
            switch domain {
            case .rssi:
                // Wall losses are piecewise constant in p: they shift the model, not its derivative.
                let wallLoss = walls?.loss(from: Point(bx[i], by[i]), to: Point(x, y)) ?? 0
                r = (brssi[i] - (bp0[i] - tenN * log10(d) - wallLoss)) * bweight[i]
            case .range: r = (d - brange[i]) * bweight[i]
            }
            gsl_vector_set(f, i, r)
        }
        for k in 0..<bearingCount {
            let a = lx[k] - x, b = ly[k] - y
            let bearing = atan2(a, b)
            var diff = (lheading[k] - bearing).truncatingRemainder(dividingBy: 2 * .pi)
            if diff > .pi { diff -= 2 * .pi } else if diff <= -.pi { diff += 2 * .pi }
            gsl_vector_set(f, rssiCount + k, diff * lweight[k])
        }
    }

    fileprivate func jacobian(x: Double, y: Double, into J: UnsafeMutablePointer<gsl_matrix>) {
        let c = 10 * exponent / log(10)
        for i in 0..<rssiCount {
            let dx = x - bx[i], dy = y - by[i]
            let d2 = max(dx * dx + dy * dy + bdz[i] * bdz[i], 1e-12)
            switch domain {
            case .rssi:
                // ∂/∂x of (rssi − P0 + 10 n log10 d) = 10n/ln10 · dx/d²
                gsl_matrix_set(J, i, 0, c * dx / d2 * bweight[i])
                gsl_matrix_set(J, i, 1, c * dy / d2 * bweight[i])
            case .range:
                let d = d2.squareRoot()
                gsl_matrix_set(J, i, 0, dx / d * bweight[i])
                gsl_matrix_set(J, i, 1, dy / d * bweight[i])
            }
        }
        for k in 0..<bearingCount {
            let a = lx[k] - x, b = ly[k] - y
            let r2 = max(a * a + b * b, 1e-12)
            // residual = heading − atan2(a, b); ∂atan2/∂x = −b/r², ∂atan2/∂y = a/r²
            gsl_matrix_set(J, rssiCount + k, 0, b / r2 * lweight[k])
            gsl_matrix_set(J, rssiCount + k, 1, -a / r2 * lweight[k])
        }
    }
}

private func fixSolverResiduals(_ x: UnsafePointer<gsl_vector>?, _ params: UnsafeMutableRawPointer?,
                                _ f: UnsafeMutablePointer<gsl_vector>?) -> Int32 {
    guard let x, let params, let f else { return Int32(GSL_EINVAL) }
    let solver = Unmanaged<FixSolver>.fromOpaque(params).takeUnretainedValue()
    solver.residuals(x: gsl_vector_get(x, 0), y: gsl_vector_get(x, 1), into: f)
    return Int32(GSL_SUCCESS)
}

private func fixSolverJacobian(_ x: UnsafePointer<gsl_vector>?, _ params: UnsafeMutableRawPointer?,
                               _ J: UnsafeMutablePointer<gsl_matrix>?) -> Int32 {
    guard let x, let params, let J else { return Int32(GSL_EINVAL) }
    let solver = Unmanaged<FixSolver>.fromOpaque(params).takeUnretainedValue()
    solver.jacobian(x: gsl_vector_get(x, 0), y: gsl_vector_get(x, 1), into: J)
    return Int32(GSL_SUCCESS)
}

