/// Minimises a ``FixModel``'s sum of squared residuals.
///
/// Contract: on success the answer is (x, y, δ + ``FixModel/offsetShift``) (the third ignored when the model has two
/// unknowns) with, when the solver summed them, the normal equations there (or one last Newton step before it,
/// ``LeastSquaresAnswer/normalAt``); without them `f` and `J` (room for the
/// model's residuals, and its Jacobian row-major) hold the residuals and the Jacobian at that answer. Reaching the
/// iteration limit is not a failure: the best point so far is the answer.
///
/// `startStep`, when given, is the relative size (``LevenbergMarquardt/relativeSize(_:_:_:of:_:_:three:)``) of the exact
/// Newton step of this same cost that led to `start` (the informed fit's start, ``OffsetFreeFit``): a solver that finishes
/// with Newton's steps may judge from it how near the start is; others ignore it.
package protocol LeastSquaresSolver: AnyObject {
    func minimise(_ model: FixModel, f: UnsafeMutablePointer<Double>, J: UnsafeMutablePointer<Double>,
                  from start: (Double, Double, Double), startStep: Double?, maxIterations: Int) -> Result<LeastSquaresAnswer, NoFixReason>
}

/// A ``LeastSquaresSolver``'s answer: the unknowns, and the normal equations the solver summed last when it has them
/// (then it need not write the residuals and the Jacobian out).
package struct LeastSquaresAnswer {
    package var unknowns: (Double, Double, Double)
    /// The normal equations the solver summed last, when it sums them: at the answer, or at ``normalAt``.
    package var normal: NormalEquations?
    /// Where `normal` was evaluated: the answer itself, or the point before it when the solver took its last Newton step
    /// without evaluating (``LevenbergMarquardt/isLastNewtonStep(_:at:_:_:_:three:after:)``); then `normal`'s cost is the
    /// one predicted at the answer (``LevenbergMarquardt/takeLastStep(_:at:_:_:_:)``).
    package var normalAt: (Double, Double, Double)
    package init(_ unknowns: (Double, Double, Double), normal: NormalEquations? = nil, at: (Double, Double, Double)? = nil) {
        self.unknowns = unknowns; self.normal = normal; normalAt = at ?? unknowns
    }
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
/// **Newton's finish** (``finishesWithNewton``, the library's one-scan fix, in a venue without walls): Gauss–Newton
/// converges only linearly here (RSSI residuals of a few dB against 10n/ln 10 make the curvature Σ rᵢ∇²rᵢ a sizeable
/// part of the Hessian), so once a step — or, from a start already that near (the informed fit's), the Newton step itself —
/// is within ``newtonFrom`` of the unknowns, the solver takes Newton's steps, (JᵀJ + Σ rᵢ∇²rᵢ)·v = −g, kept while the
/// matrix is positive definite and the cost does not rise (else Gauss–Newton's again). The gradient is exact, so they
/// reach the same minimum, nearer than the step test leaves Gauss–Newton; with the exact Hessian
/// (``NormalEquations/exactCurvature``) the solve ends when the Newton step from where it stands is within the step
/// tolerance, or when that step and the exact Newton step before it show quadratic convergence, so that the minimum lies
/// within the step tolerance of where it lands (``isLastNewtonStep(_:at:_:_:_:three:after:)``): that last step is taken
/// without evaluating there. Where a wall steps the cost the two paths could settle in different minima, so there the
/// solver stays on GSL's.
///
/// Each trial point's normal equations are summed as its terms are evaluated, two RSSI terms at a time
/// (``FixModel/normalEquations(unknowns:_:_:scratchF:scratchJ:curvature:)``), and the answer's are handed back with it
/// (for its cost and covariance): the residuals and Jacobian themselves are never written out. A solve allocates nothing.
package final class LevenbergMarquardt: LeastSquaresSolver {
    /// Relative step tolerance: 1e-5 of the unknowns (0.3 mm at 30 m; see ``FixModel/offsetShift``). Fixes are
    /// metre-scale, and tighter
    /// tolerances cost iterations of linear convergence on noisy data for nothing.
    package static let stepTolerance = 1e-5
    /// Scaled-gradient tolerance.
    package static let gradientTolerance = 1e-9

    /// Newton's steps take over once an accepted Gauss–Newton step — or, at the start, the Newton step itself — is this small
    /// against the unknowns (max(|x_j|, 1)): 2 m at 20 m (``FixModel/isSmooth`` problems, with ``finishesWithNewton`` only).
    package static let newtonFrom = 0.1

    /// Room for a trial point's rows that are not summed in registers (ranges, censored terms, bearings, priors): grown once.
    private var trialF: UnsafeMutablePointer<Double>
    private var trialJ: UnsafeMutablePointer<Double>
    private var capacity = 0

    /// Whether Newton's steps finish a smooth problem's solve (``newtonFrom``). Off, the solver takes GSL's steps to the
    /// end and stops where GSL stops (the trackers: a particle filter's resampling carries a fit's last digits into every
    /// later scan, so the library's tracker follows the tournament's only when its fits do); on, it stops nearer the
    /// minimum in fewer evaluations, within 1 mm of GSL's fix (the one-scan fix).
    package let finishesWithNewton: Bool

    package init(finishesWithNewton: Bool = false) {
        self.finishesWithNewton = finishesWithNewton
        trialF = .allocate(capacity: 1); trialJ = .allocate(capacity: 3); capacity = 1
    }
    deinit { trialF.deallocate(); trialJ.deallocate() }

    package func minimise(_ problem: FixModel, f: UnsafeMutablePointer<Double>, J: UnsafeMutablePointer<Double>,
                          from start: (Double, Double, Double), startStep: Double? = nil,
                          maxIterations: Int) -> Result<LeastSquaresAnswer, NoFixReason> {
        let n = problem.residualCount, p = problem.unknowns
        if n > capacity {
            trialF.deallocate(); trialJ.deallocate()
            capacity = 2 * n
            trialF = .allocate(capacity: capacity); trialJ = .allocate(capacity: 3 * capacity)
        }
        // The normal equations at the current point; the rows the model does not sum in registers go to the scratch buffers.
        let ft = trialF, Jt = trialJ
        let three = p == 3
        let smooth = finishesWithNewton && problem.isSmooth
        var x0 = start.0, x1 = start.1, x2 = three ? start.2 : 0
        var e = problem.normalEquations(unknowns: x0, x1, x2, scratchF: ft, scratchJ: Jt, curvature: smooth)
        // The scaling D: the largest norm each column of J has had.
        var d0 = e.n0, d1 = e.n1, d2 = three ? e.n2 : 1
        var mu: Double
        do {
            // ‖J_j‖/D_j is 1, or 0 for a zero column (whose norm counts as 1 in D).
            let m0 = e.a00 > 0 ? 1.0 : 0, m1 = e.a11 > 0 ? 1.0 : 0, m2 = three && e.a22 > 0 ? 1.0 : 0
            let m = max(m0, m1, m2)
            mu = 1e-3 * m * m
        }
        var nu = 2.0
        let xtol = LevenbergMarquardt.stepTolerance, gtol = LevenbergMarquardt.gradientTolerance
        // The Newton step from the current point, when solved ahead (after an accepted step in Newton's phase, or at a
        // start already within its reach: an informed start, ``OffsetFreeFit``).
        var nextNewton = smooth ? LevenbergMarquardt.newtonStep(e, three: three) : nil
        if let n = nextNewton, !LevenbergMarquardt.isNear(n, x0, x1, x2, three: three) { nextNewton = nil }
        var newton = nextNewton != nil
        // The relative size of the last exact Newton step taken (or of the one that led to the start): with the next one, how
        // fast Newton's steps converge here.
        var lastNewton = startStep
        // Where `e` was evaluated, when the answer is one last Newton step beyond it (taken without evaluating there).
        var normalAt: (Double, Double, Double)?
        // A start that near: its Newton step is the last.
        if let n = nextNewton, LevenbergMarquardt.isLastNewtonStep(n, at: e, x0, x1, x2, three: three, after: lastNewton) {
            normalAt = (x0, x1, x2)
            LevenbergMarquardt.takeLastStep(n, at: &e, &x0, &x1, &x2)
        }

        for iteration in 0..<(normalAt == nil ? max(maxIterations, 1) : 0) {
            let normf = e.ff.squareRoot()
            var v0 = 0.0, v1 = 0.0, v2 = 0.0
            var refusals = 0
            var progressed = false
            if newton {
                // A Newton step, (JᵀJ + Σ rᵢ∇²rᵢ)·v = −g, kept when it does not raise the cost; else Gauss–Newton again.
                if let s = nextNewton ?? LevenbergMarquardt.newtonStep(e, three: three) {
                    (v0, v1, v2) = s
                    let t0 = x0 + v0, t1 = x1 + v1, t2 = three ? x2 + v2 : 0
                    let et = problem.normalEquations(unknowns: t0, t1, t2, scratchF: ft, scratchJ: Jt, curvature: true)
                    if et.ff <= e.ff {
                        lastNewton = e.exactCurvature ? LevenbergMarquardt.relativeSize(v0, v1, v2, of: t0, t1, t2, three: three) : nil
                        x0 = t0; x1 = t1; x2 = t2
                        e = et
                        d0 = max(d0, e.n0); d1 = max(d1, e.n1); if three { d2 = max(d2, e.n2) }
                        progressed = true
                    }
                }
                // Refused (or not positive definite): Gauss–Newton's steps again, from here.
                if !progressed { newton = false }
            }
            while !progressed {
                // (JᵀJ + μD²)·v = −g by Cholesky.
                var solved = false
                let b00 = e.a00 + mu * d0 * d0, b11 = e.a11 + mu * d1 * d1
                if three {
                    let b22 = e.a22 + mu * d2 * d2
                    if let s = LevenbergMarquardt.choleskySolve3(b00, e.a01, e.a02, b11, e.a12, b22, -e.g0, -e.g1, -e.g2) {
                        (v0, v1, v2) = s; solved = true
                    }
                } else if let s = LevenbergMarquardt.choleskySolve2(b00, e.a01, b11, -e.g0, -e.g1) {
                    (v0, v1) = s; v2 = 0; solved = true
                }
                var rho = -1.0
                if solved {
                    let t0 = x0 + v0, t1 = x1 + v1, t2 = three ? x2 + v2 : 0
                    // The curvature only where Newton's steps would take over from this step (it is near).
                    let near = smooth && LevenbergMarquardt.isNear((v0, v1, v2), t0, t1, t2, three: three)
                    let et = problem.normalEquations(unknowns: t0, t1, t2, scratchF: ft, scratchJ: Jt, curvature: near)
                    let normTrial = et.ff.squareRoot()
                    if normTrial < normf {
                        let u = normTrial / normf
                        let actual = 1 - u * u
                        // ‖Jv‖² = vᵀ(JᵀJ)v
                        var jv2 = e.a00 * v0 * v0 + e.a11 * v1 * v1 + 2 * e.a01 * v0 * v1
                        if three { jv2 += e.a22 * v2 * v2 + 2 * (e.a02 * v0 + e.a12 * v1) * v2 }
                        let dv2 = (d0 * v0) * (d0 * v0) + (d1 * v1) * (d1 * v1) + (three ? (d2 * v2) * (d2 * v2) : 0)
                        let uj = max(jv2, 0).squareRoot() / normf, ud = dv2.squareRoot() / normf
                        let predicted = uj * uj + 2 * mu * ud * ud
                        if predicted > 0 { rho = actual / predicted }
                    }
                    if rho > 0 {
                        lastNewton = nil
                        x0 = t0; x1 = t1; x2 = t2
                        e = et
                        d0 = max(d0, e.n0); d1 = max(d1, e.n1); if three { d2 = max(d2, e.n2) }
                        let b = 2 * rho - 1
                        mu *= max(0.333333333333333, 1 - b * b * b)
                        nu = 2
                        progressed = true
                        // Close to the answer, Newton's steps finish it (quadratically, to the same minimum: the gradient is exact).
                        if near { newton = true }
                        break
                    }
                }
                mu *= nu
                nu *= 2
                refusals += 1
                if refusals > 15 { break }
            }
            // In Newton's phase, the Newton step from the accepted point, solved now: the next iteration's step, or, when
            // ``isLastNewtonStep(_:at:_:_:_:three:after:)`` says it is enough, the last one, taken without evaluating there.
            nextNewton = progressed && newton ? LevenbergMarquardt.newtonStep(e, three: three) : nil
            if let n = nextNewton, LevenbergMarquardt.isLastNewtonStep(n, at: e, x0, x1, x2, three: three, after: lastNewton) {
                normalAt = (x0, x1, x2)
                LevenbergMarquardt.takeLastStep(n, at: &e, &x0, &x1, &x2)
                break
            }
            // No step lowered the cost from the start: the start is the answer.
            if !progressed && iteration == 0 { break }
            // Converged when the last step is tiny against the coordinates…
            if abs(v0) < xtol * xtol + xtol * abs(x0), abs(v1) < xtol * xtol + xtol * abs(x1),
               !three || abs(v2) < xtol * xtol + xtol * abs(x2) { break }
            // …or the scaled gradient is.
            let gnorm = max(abs(max(x0, 1) * e.g0), abs(max(x1, 1) * e.g1), three ? abs(max(x2, 1) * e.g2) : 0)
            if gnorm <= gtol * max(0.5 * e.ff, 1) { break }
        }
        guard x0.isFinite, x1.isFinite, x2.isFinite else { return .failure(.solverFailed("the solution is not finite")) }
        return .success(LeastSquaresAnswer((x0, x1, x2), normal: e, at: normalAt))
    }

    /// The Newton step −(JᵀJ + Σ rᵢ∇²rᵢ)⁻¹·g at `e`'s point (Gauss–Newton's when `e` has no curvature); nil when that
    /// matrix is not positive definite.
    @inline(__always) package static func newtonStep(_ e: NormalEquations, three: Bool) -> (Double, Double, Double)? {
        let h00 = e.a00 + e.sxx, h01 = e.a01 + e.sxy, h11 = e.a11 + e.syy
        return three ? choleskySolve3(h00, h01, e.a02, h11, e.a12, e.a22, -e.g0, -e.g1, -e.g2)
                     : choleskySolve2(h00, h01, h11, -e.g0, -e.g1).map { ($0.0, $0.1, 0.0) }
    }

    /// True when the step `v` is within ``newtonFrom`` of the unknowns: Newton's steps may take over.
    @inline(__always) static func isNear(_ v: (Double, Double, Double), _ x0: Double, _ x1: Double, _ x2: Double, three: Bool) -> Bool {
        relativeSize(v.0, v.1, v.2, of: x0, x1, x2, three: three) < newtonFrom
    }

    /// True when `n`, the Newton step from (x0, x1, x2) with `e`'s exact Hessian, is the last a solve needs: taken without
    /// evaluating where it ends, it leaves the answer within the step tolerance of the minimum (the second test below aims
    /// at a tenth of it; `newtonsFinishEndsAtTheMinimum` holds the answer within the step tolerance, where GSL's step test,
    /// under Gauss–Newton's linear convergence, can stop farther than the tolerance).
    /// - Its relative size r (``relativeSize(_:_:_:of:_:_:three:)``) is within the step tolerance (``stepTolerance``·max(|x_j|, 1)):
    ///   the minimum is then within that step, and after it within about its square.
    /// - Or Newton's steps are converging quadratically: the exact Newton step before it, of relative size `previous` = p,
    ///   left the minimum about r away, r ≈ K·p², so after this one it is about K·r² = r³/p² away; taken when r is under a
    ///   tenth of p and r³/p² under a tenth of the tolerance. Only from a p within ``newtonFrom`` (K is measured where the
    ///   cost is nearly quadratic) and for an r under 10⁻³ (2 cm at 20 m).
    ///
    /// The answer's normal equations stay those at (x0, x1, x2) but for the cost (``takeLastStep(_:at:_:_:_:)``): the
    /// covariance changes over that step by about its length against the distance to the beacons, hence the bound on r.
    @inline(__always) static func isLastNewtonStep(_ n: (Double, Double, Double), at e: NormalEquations, _ x0: Double, _ x1: Double, _ x2: Double,
                                                   three: Bool, after previous: Double?) -> Bool {
        guard e.exactCurvature else { return false }
        let r = relativeSize(n.0, n.1, n.2, of: x0, x1, x2, three: three)
        if r < stepTolerance { return true }
        guard let p = previous, p < newtonFrom, r < 0.1 * p, r < 1e-3 else { return false }
        return r * r * r < 0.1 * stepTolerance * p * p
    }

    /// Takes the last Newton step `n` from (x0, x1, x2) without evaluating where it ends: the normal equations stay `e`'s
    /// but for the cost, ‖f‖², which becomes its value predicted there, ‖f‖² + gᵀn (the quadratic model's, with Hn = −g):
    /// the stated region measures costs from the fix's, and the cost where the step began is higher by −gᵀn.
    @inline(__always) static func takeLastStep(_ n: (Double, Double, Double), at e: inout NormalEquations,
                                              _ x0: inout Double, _ x1: inout Double, _ x2: inout Double) {
        e.ff = max(e.ff + e.g0 * n.0 + e.g1 * n.1 + e.g2 * n.2, 0)
        x0 += n.0; x1 += n.1; x2 += n.2
    }

    /// max_j |v_j| / max(|x_j|, 1): a step's size against the unknowns.
    @inline(__always) package static func relativeSize(_ v0: Double, _ v1: Double, _ v2: Double, of x0: Double, _ x1: Double, _ x2: Double,
                                               three: Bool) -> Double {
        max(abs(v0) / max(abs(x0), 1), abs(v1) / max(abs(x1), 1), three ? abs(v2) / max(abs(x2), 1) : 0)
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

/// A least-squares problem's normal equations at a point: JᵀJ (its upper triangle), g = Jᵀf, ‖f‖², J's column norms
/// (a zero column's counted as 1, as GSL's scaling counts it) and, when asked for, the curvature Σ rᵢ·∇²rᵢ of the position
/// block that JᵀJ leaves out of the Hessian.
package struct NormalEquations {
    package var a00 = 0.0, a01 = 0.0, a02 = 0.0, a11 = 0.0, a12 = 0.0, a22 = 0.0, g0 = 0.0, g1 = 0.0, g2 = 0.0, ff = 0.0
    package var sxx = 0.0, sxy = 0.0, syy = 0.0
    /// True when JᵀJ + the curvature is the Hessian itself (no term's second derivative left out): Newton's steps then
    /// converge quadratically.
    package var exactCurvature = false
    /// J's column norms, √(JᵀJ)ⱼⱼ (1 for a zero column): computed when read, so that the equations stay under 128 bytes,
    /// which the solver copies at each accepted step in registers rather than through `memcpy`.
    package var n0: Double { a00 > 0 ? a00.squareRoot() : 1 }
    package var n1: Double { a11 > 0 ? a11.squareRoot() : 1 }
    package var n2: Double { a22 > 0 ? a22.squareRoot() : 1 }

    @inline(__always) init(a00: Double, a01: Double, a02: Double, a11: Double, a12: Double, a22: Double,
                           g0: Double, g1: Double, g2: Double, ff: Double) {
        self.a00 = a00; self.a01 = a01; self.a02 = a02; self.a11 = a11; self.a12 = a12; self.a22 = a22
        self.g0 = g0; self.g1 = g1; self.g2 = g2; self.ff = ff
    }

    /// The sums over `rows` of J (row-major, 2 or 3 columns) and f.
    @inline(__always) init(f: UnsafeMutablePointer<Double>, J: UnsafeMutablePointer<Double>, rows: Range<Int>, three: Bool) {
        add(f: f, J: J, rows: rows, three: three)
    }

    @inline(__always) mutating func add(f: UnsafeMutablePointer<Double>, J: UnsafeMutablePointer<Double>, rows: Range<Int>, three: Bool) {
        let p = three ? 3 : 2
        for i in rows {
            let r = J + i * p, fi = f[i]
            let j0 = r[0], j1 = r[1]
            a00 += j0 * j0; a01 += j0 * j1; a11 += j1 * j1
            g0 += j0 * fi; g1 += j1 * fi
            if three { let j2 = r[2]; a02 += j0 * j2; a12 += j1 * j2; a22 += j2 * j2; g2 += j2 * fi }
            ff += fi * fi
        }
    }

    /// These equations at δ (the solvers' third unknown less ``FixModel/offsetShift``) with the offset prior's term
    /// (δ − mean)/σ added.
    package func addingOffsetPrior(mean: Double, sigma: Double, at delta: Double) -> NormalEquations {
        var e = self
        let w = 1 / (sigma * sigma), r = delta - mean
        e.a22 += w; e.g2 += r * w; e.ff += r * r * w
        return e
    }
}
