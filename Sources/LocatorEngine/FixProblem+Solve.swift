import Foundation
import LabCore

extension FixProblem {
    /// A solve's answer. Its (JᵀJ)⁻¹ is kept as one matrix and the parts that hold, so that the answer stays under 128
    /// bytes, which the fits copy some thirty times a fix in registers rather than through `memcpy`.
    package struct Solution {
        package var position: Point
        /// δ, dB (0 when not estimated).
        package var offset: Double
        /// Sum of squared (normalised) residuals at the solution: −2 log-likelihood up to a constant.
        package var cost: Double
        /// (JᵀJ)⁻¹ over (x, y[, δ]); ``covariance``, ``offsetVariance`` and ``full`` say which parts of it hold.
        private var inverse: Symmetric3
        private var holds: (position: Bool, offset: Bool, full: Bool)

        /// An answer at `position` and `offset` with its `cost`, and (JᵀJ)⁻¹'s position block, δ's variance and the whole
        /// 3×3 where they are available (given the 3×3, the block and the variance are read from it).
        package init(position: Point, covariance: Covariance2?, offset: Double, offsetVariance: Double?, cost: Double, full: Symmetric3? = nil) {
            self.position = position; self.offset = offset; self.cost = cost
            inverse = full ?? Symmetric3(xx: covariance?.xx ?? 0, xy: covariance?.xy ?? 0, xd: 0, yy: covariance?.yy ?? 0, yd: 0,
                                         dd: offsetVariance ?? 0)
            holds = (covariance != nil, offsetVariance != nil, full != nil)
        }

        /// The position's covariance, (JᵀJ)⁻¹'s position block (nil when not available).
        package var covariance: Covariance2? { holds.position ? inverse.position : nil }
        /// Variance of δ, dB² (nil when not estimated or not available).
        package var offsetVariance: Double? { holds.offset ? inverse.dd : nil }
        /// (JᵀJ)⁻¹ over (x, y, δ), when δ is estimated and it is available.
        package var full: Symmetric3? { holds.full ? inverse : nil }
    }

    /// The last solve's answer (position and δ) and its normal equations (in the solvers' unknowns, ``FixModel/offsetShift``):
    /// JᵀJ, the gradient and, from the library's solver in a smooth problem, the curvature that completes the Hessian, at
    /// `evaluatedAt` — the answer, or the point one last Newton step before it (``LeastSquaresAnswer/normalAt``). Kept
    /// here rather than in every ``Solution``, which the fits copy many times a fix.
    package struct LastNormal {
        package var position: Point, offset: Double
        package var normal: NormalEquations
        package var evaluatedAt: Point, evaluatedOffset: Double
    }

    /// Solves from `start` (and δ from `offset`); a failure when the solver reports one or the result is not finite.
    /// `startStep`: the relative size of the exact Newton step of this cost that led to `start`, when one did
    /// (``LeastSquaresSolver``).
    package func solve(from start: Point, offset: Double = 0, startStep: Double? = nil, maxIterations: Int = 100) -> Result<Solution, NoFixReason> {
        let n = residualCount
        guard n >= unknowns else { return .failure(.tooFewBeacons(heard: n, needed: unknowns)) }
        if n > residualCapacity {
            f.deallocate(); J.deallocate()
            residualCapacity = 2 * n
            f = .allocate(capacity: residualCapacity)
            J = .allocate(capacity: residualCapacity * 3)
        }
        let found: LeastSquaresAnswer
        let m = model
        switch solver.minimise(m, f: f, J: J, from: m.unknowns(x: start.x, y: start.y, delta: offset), startStep: startStep,
                               maxIterations: maxIterations) {
        case .failure(let reason): return .failure(reason)
        case .success(let answer): found = answer
        }
        let answer = m.solution(found.unknowns)
        let p = Point(answer.x, answer.y)
        let delta = answer.delta
        guard p.isFinite, delta.isFinite else { return .failure(.solverFailed("the solution is not finite")) }
        // The cost and JᵀJ at the answer: the solver's own sums when it gives them, else from the f and J it left.
        let normal = found.normal ?? NormalEquations(f: f, J: J, rows: 0..<n, three: unknowns == 3)
        let cost = normal.ff
        let (covariance, offsetVariance, full) = covarianceAtSolution(normal)
        let at = m.solution(found.normalAt)
        lastNormal = LastNormal(position: p, offset: delta, normal: normal, evaluatedAt: Point(at.x, at.y), evaluatedOffset: at.delta)
        return .success(Solution(position: p, covariance: covariance, offset: delta, offsetVariance: offsetVariance, cost: cost, full: full))
    }

    /// (JᵀJ)⁻¹ at the answer (`e`'s JᵀJ): the position block and, with δ, its variance and the whole 3×3. Nil when JᵀJ
    /// is singular to 1e-12 of its scale.
    private func covarianceAtSolution(_ e: NormalEquations) -> (Covariance2?, Double?, Symmetric3?) {
        let a00 = e.a00, a01 = e.a01, a02 = e.a02, a11 = e.a11, a12 = e.a12, a22 = e.a22
        if unknowns == 2 {
            let det = a00 * a11 - a01 * a01
            guard det > 1e-12 * a00 * a11, det.isFinite else { return (nil, nil, nil) }
            return (Covariance2(xx: a11 / det, xy: -a01 / det, yy: a00 / det), nil, nil)
        }
        // The adjugate's entries the answer needs (the inverse is symmetric).
        let c00 = a11 * a22 - a12 * a12, c01 = a02 * a12 - a01 * a22, c02 = a01 * a12 - a02 * a11
        let c11 = a00 * a22 - a02 * a02, c12 = a01 * a02 - a00 * a12, c22 = a00 * a11 - a01 * a01
        let det = a00 * c00 + a01 * c01 + a02 * c02
        guard det > 1e-12 * a00 * a11 * a22, det.isFinite else { return (nil, nil, nil) }
        let c = Covariance2(xx: c00 / det, xy: c01 / det, yy: c11 / det)
        let v = c22 / det
        let full = Symmetric3(xx: c00 / det, xy: c01 / det, xd: c02 / det, yy: c11 / det, yd: c12 / det, dd: v)
        let valid = c.xx >= 0 && c.yy >= 0 && v >= 0
        return (valid ? c : nil, v >= 0 ? v : nil, valid ? full : nil)
    }
}
