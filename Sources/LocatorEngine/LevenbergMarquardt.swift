/// Minimises a ``FixModel``'s sum of squared residuals.
///
/// Contract: on success the answer is (x, y, δ + ``FixModel/offsetShift``) (the third ignored when the model has two unknowns), and `f` and `J`
/// (room for the model's residuals, and its Jacobian row-major) hold the residuals and the Jacobian at that
/// answer. Reaching the iteration limit is not a failure: the best point so far is the answer.
package protocol LeastSquaresSolver: AnyObject {
    func minimise(_ model: FixModel, f: UnsafeMutablePointer<Double>, J: UnsafeMutablePointer<Double>,
                  from start: (Double, Double, Double), maxIterations: Int) -> Result<(Double, Double, Double), NoFixReason>
}

/// Levenberg–Marquardt in pure Swift for two or three unknowns, on the normal equations in closed form.
///
/// It follows the same published algorithm as GSL's `gsl_multifit_nlinear` trust-region driver with the
/// `lm` subproblem, Moré scaling and the Cholesky solver — the lab's reference — so that both take the same
/// steps and stop at the same point (a test holds them to 1 mm on every epoch of the tournament):
/// - step: (JᵀJ + μ·D²)·v = −Jᵀf; D_j = the largest norm column j of J has had (Moré 1978, eq. 6.3);
/// - gain ratio ρ = (1 − ‖f(x+v)‖²/‖f‖²) / ((‖Jv‖/‖f‖)² + 2μ(‖Dv‖/‖f‖)²); a step that does not lower ‖f‖ is refused;
/// - damping (Nielsen): μ₀ = 10⁻³·max_j(‖J_j‖/D_j)²; accepted: μ ×= max(1/3, 1 − (2ρ − 1)³), ν = 2;
///   refused: μ ×= ν, ν ×= 2; more than 15 refusals in a row end the iteration;
/// - stop: |v_j| < xtol² + xtol·|x_j| for every j, or max_j |max(x_j, 1)·g_j| ≤ gtol·max(½‖f‖², 1).
///
/// Everything lives in registers and one residual buffer that grows once: a solve allocates nothing.
package final class LevenbergMarquardt: LeastSquaresSolver {
    /// Relative step tolerance: 1e-5 of the unknowns (0.3 mm at 30 m; see ``FixModel/offsetShift``). Fixes are
    /// metre-scale, and tighter
    /// tolerances cost iterations of linear convergence on noisy data for nothing.
    package static let stepTolerance = 1e-5
    /// Scaled-gradient tolerance.
    package static let gradientTolerance = 1e-9

    private var trial: UnsafeMutablePointer<Double>
    private var capacity = 0

    package init() { trial = .allocate(capacity: 1); capacity = 1 }
    deinit { trial.deallocate() }

    package func minimise(_ problem: FixModel, f: UnsafeMutablePointer<Double>, J: UnsafeMutablePointer<Double>,
                          from start: (Double, Double, Double), maxIterations: Int) -> Result<(Double, Double, Double), NoFixReason> {
        let n = problem.residualCount, p = problem.unknowns
        if n > capacity { trial.deallocate(); capacity = 2 * n; trial = .allocate(capacity: capacity) }
        let ft = trial
        let three = p == 3
        var x0 = start.0, x1 = start.1, x2 = three ? start.2 : 0
        problem.residuals(unknowns: x0, x1, x2, into: f)
        problem.jacobian(unknowns: x0, x1, x2, into: J)

        // Column norms of J, the scaling D and the normal equations.
        var n0 = 0.0, n1 = 0.0, n2 = 0.0
        var a00 = 0.0, a01 = 0.0, a02 = 0.0, a11 = 0.0, a12 = 0.0, a22 = 0.0, g0 = 0.0, g1 = 0.0, g2 = 0.0, ff = 0.0
        @inline(__always) func normalEquations() {
            a00 = 0; a01 = 0; a02 = 0; a11 = 0; a12 = 0; a22 = 0; g0 = 0; g1 = 0; g2 = 0; ff = 0
            for i in 0..<n {
                let r = J + i * p, fi = f[i]
                let j0 = r[0], j1 = r[1]
                a00 += j0 * j0; a01 += j0 * j1; a11 += j1 * j1
                g0 += j0 * fi; g1 += j1 * fi
                if three { let j2 = r[2]; a02 += j0 * j2; a12 += j1 * j2; a22 += j2 * j2; g2 += j2 * fi }
                ff += fi * fi
            }
            n0 = a00.squareRoot(); n1 = a11.squareRoot(); n2 = a22.squareRoot()
            if n0 == 0 { n0 = 1 }
            if n1 == 0 { n1 = 1 }
            if n2 == 0 { n2 = 1 }
        }
        normalEquations()
        var d0 = n0, d1 = n1, d2 = three ? n2 : 1
        var mu: Double
        do {
            // ‖J_j‖/D_j is 1, or 0 for a zero column (whose norm counts as 1 in D).
            let m0 = a00 > 0 ? 1.0 : 0, m1 = a11 > 0 ? 1.0 : 0, m2 = three && a22 > 0 ? 1.0 : 0
            let m = max(m0, m1, m2)
            mu = 1e-3 * m * m
        }
        var nu = 2.0
        let xtol = LevenbergMarquardt.stepTolerance, gtol = LevenbergMarquardt.gradientTolerance

        for iteration in 0..<max(maxIterations, 1) {
            let normf = ff.squareRoot()
            var v0 = 0.0, v1 = 0.0, v2 = 0.0
            var refusals = 0
            var progressed = false
            while true {
                // (JᵀJ + μD²)·v = −g by Cholesky.
                var solved = false
                let b00 = a00 + mu * d0 * d0, b11 = a11 + mu * d1 * d1
                if three {
                    let b22 = a22 + mu * d2 * d2
                    if let s = LevenbergMarquardt.choleskySolve3(b00, a01, a02, b11, a12, b22, -g0, -g1, -g2) {
                        (v0, v1, v2) = s; solved = true
                    }
                } else if let s = LevenbergMarquardt.choleskySolve2(b00, a01, b11, -g0, -g1) {
                    (v0, v1) = s; v2 = 0; solved = true
                }
                var rho = -1.0
                if solved {
                    let t0 = x0 + v0, t1 = x1 + v1, t2 = three ? x2 + v2 : 0
                    problem.residuals(unknowns: t0, t1, t2, into: ft)
                    var fft = 0.0
                    for i in 0..<n { fft += ft[i] * ft[i] }
                    let normTrial = fft.squareRoot()
                    if normTrial < normf {
                        let u = normTrial / normf
                        let actual = 1 - u * u
                        var jv2 = 0.0
                        for i in 0..<n {
                            let r = J + i * p
                            let jv = r[0] * v0 + r[1] * v1 + (three ? r[2] * v2 : 0)
                            jv2 += jv * jv
                        }
                        let dv2 = (d0 * v0) * (d0 * v0) + (d1 * v1) * (d1 * v1) + (three ? (d2 * v2) * (d2 * v2) : 0)
                        let uj = jv2.squareRoot() / normf, ud = dv2.squareRoot() / normf
                        let predicted = uj * uj + 2 * mu * ud * ud
                        if predicted > 0 { rho = actual / predicted }
                    }
                    if rho > 0 {
                        x0 = t0; x1 = t1; x2 = t2
                        f.update(from: ft, count: n)
                        problem.jacobian(unknowns: x0, x1, x2, into: J)
                        normalEquations()
                        d0 = max(d0, n0); d1 = max(d1, n1); if three { d2 = max(d2, n2) }
                        let b = 2 * rho - 1
                        mu *= max(0.333333333333333, 1 - b * b * b)
                        nu = 2
                        progressed = true
                        break
                    }
                }
                mu *= nu
                nu *= 2
                refusals += 1
                if refusals > 15 { break }
            }
            // No step lowered the cost from the start: the start is the answer.
            if !progressed && iteration == 0 { break }
            // Converged when the last step is tiny against the coordinates…
            if abs(v0) < xtol * xtol + xtol * abs(x0), abs(v1) < xtol * xtol + xtol * abs(x1),
               !three || abs(v2) < xtol * xtol + xtol * abs(x2) { break }
            // …or the scaled gradient is.
            let gnorm = max(abs(max(x0, 1) * g0), abs(max(x1, 1) * g1), three ? abs(max(x2, 1) * g2) : 0)
            if gnorm <= gtol * max(0.5 * ff, 1) { break }
        }
        guard x0.isFinite, x1.isFinite, x2.isFinite else { return .failure(.solverFailed("the solution is not finite")) }
        return .success((x0, x1, x2))
    }

    /// Solves the symmetric positive definite 2×2 system [a b; b c]·v = (r0, r1); nil when not positive definite.
    @inline(__always) static func choleskySolve2(_ a: Double, _ b: Double, _ c: Double, _ r0: Double, _ r1: Double) -> (Double, Double)? {
        guard a > 0 else { return nil }
        let l00 = a.squareRoot(), l10 = b / l00
        let s = c - l10 * l10
        guard s > 0 else { return nil }
        let l11 = s.squareRoot()
        let y0 = r0 / l00, y1 = (r1 - l10 * y0) / l11
        let v1 = y1 / l11, v0 = (y0 - l10 * v1) / l00
        return (v0, v1)
    }

    /// Solves the symmetric positive definite 3×3 system with entries (a00, a01, a02, a11, a12, a22).
    @inline(__always) static func choleskySolve3(_ a00: Double, _ a01: Double, _ a02: Double, _ a11: Double, _ a12: Double, _ a22: Double,
                                                 _ r0: Double, _ r1: Double, _ r2: Double) -> (Double, Double, Double)? {
        guard a00 > 0 else { return nil }
        let l00 = a00.squareRoot(), l10 = a01 / l00, l20 = a02 / l00
        let s11 = a11 - l10 * l10
        guard s11 > 0 else { return nil }
        let l11 = s11.squareRoot(), l21 = (a12 - l20 * l10) / l11
        let s22 = a22 - l20 * l20 - l21 * l21
        guard s22 > 0 else { return nil }
        let l22 = s22.squareRoot()
        let y0 = r0 / l00, y1 = (r1 - l10 * y0) / l11, y2 = (r2 - l20 * y0 - l21 * y1) / l22
        let v2 = y2 / l22, v1 = (y1 - l21 * v2) / l11, v0 = (y0 - l10 * v1 - l20 * v2) / l00
        return (v0, v1, v2)
    }
}
