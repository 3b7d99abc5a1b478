import Foundation
@preconcurrency internal import CGSL
import LabCore
import LocatorEngine

/// GSL's error handler aborts the process by default; turn it off once, before any GSL call,
/// and read status codes instead.
let gslErrorHandlerOff: Void = { _ = gsl_set_error_handler_off() }()

/// The lab's least-squares solver: GSL's `gsl_multifit_nlinear` (trust region, Levenberg–Marquardt, Moré
/// scaling, Cholesky on the normal equations) over a ``FixProblem``'s analytic residuals and Jacobian. The
/// shipped library runs ``LevenbergMarquardt``, the same algorithm in pure Swift; this is its reference.
///
/// Workspaces are allocated once per residual count and reused, so a solve allocates nothing.
final class GSLLevenbergMarquardt: LeastSquaresSolver {
    private var workspaces: [Int: Workspace] = [:]
    private let x0: [UnsafeMutablePointer<gsl_vector>]
    /// The model being solved, for the callbacks: initialised for the duration of `minimise`, read in place (a copy per
    /// callback would retain its arrays at every residual evaluation).
    fileprivate let model = UnsafeMutablePointer<FixModel>.allocate(capacity: 1)

    final class Workspace {
        let w: UnsafeMutablePointer<gsl_multifit_nlinear_workspace>
        let fdf: UnsafeMutablePointer<gsl_multifit_nlinear_fdf>
        init?(residuals n: Int, unknowns p: Int, owner: GSLLevenbergMarquardt) {
            var params = gsl_multifit_nlinear_default_parameters()
            params.trs = gsl_multifit_nlinear_trs_lm
            // Two or three unknowns: the normal equations (Cholesky) are as accurate as QR here, and cheaper.
            params.solver = gsl_multifit_nlinear_solver_cholesky
            guard let w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, n, p) else { return nil }
            self.w = w
            fdf = .allocate(capacity: 1)
            fdf.initialize(to: gsl_multifit_nlinear_fdf())
            fdf.pointee.f = gslResiduals
            fdf.pointee.df = gslJacobian
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

    init() {
        _ = gslErrorHandlerOff
        x0 = [gsl_vector_alloc(2), gsl_vector_alloc(3)]
    }

    deinit { x0.forEach { gsl_vector_free($0) }; model.deallocate() }

    func minimise(_ problem: FixModel, f out: UnsafeMutablePointer<Double>, J outJ: UnsafeMutablePointer<Double>,
                  from start: (Double, Double, Double), startStep: Double?, maxIterations: Int) -> Result<LeastSquaresAnswer, NoFixReason> {
        let n = problem.residualCount, p = problem.unknowns
        let key = n * 4 + p
        let ws: Workspace
        if let cached = workspaces[key] { ws = cached } else {
            guard let made = Workspace(residuals: n, unknowns: p, owner: self) else { return .failure(.solverFailed("GSL could not allocate a workspace")) }
            workspaces[key] = made
            ws = made
        }
        model.initialize(to: problem)
        defer { model.deinitialize(count: 1) }
        let x = x0[p - 2]
        gsl_vector_set(x, 0, start.0)
        gsl_vector_set(x, 1, start.1)
        if p == 3 { gsl_vector_set(x, 2, start.2) }
        var status = gsl_multifit_nlinear_init(x, ws.fdf, ws.w)
        guard status == GSL_SUCCESS else { return .failure(.solverFailed(String(cString: gsl_strerror(status)))) }
        var info: Int32 = 0
        status = gsl_multifit_nlinear_driver(maxIterations, LevenbergMarquardt.stepTolerance, LevenbergMarquardt.gradientTolerance,
                                             0, nil, nil, &info, ws.w)
        // GSL_EMAXITER still leaves the best point found; other codes mean no usable answer.
        guard status == GSL_SUCCESS || status == GSL_EMAXITER || status == GSL_ENOPROG else {
            return .failure(.solverFailed(String(cString: gsl_strerror(status))))
        }
        let answer = gsl_multifit_nlinear_position(ws.w)!
        let f = gsl_multifit_nlinear_residual(ws.w)!, J = gsl_multifit_nlinear_jac(ws.w)!
        for i in 0..<n {
            out[i] = gsl_vector_get(f, i)
            for j in 0..<p { outJ[i * p + j] = gsl_matrix_get(J, i, j) }
        }
        return .success(LeastSquaresAnswer((gsl_vector_get(answer, 0), gsl_vector_get(answer, 1), p == 3 ? gsl_vector_get(answer, 2) : 0)))
    }
}

// MARK: callbacks (called from C)

private func gslResiduals(_ x: UnsafePointer<gsl_vector>?, _ params: UnsafeMutableRawPointer?,
                          _ f: UnsafeMutablePointer<gsl_vector>?) -> Int32 {
    guard let x, let params, let f else { return Int32(GSL_EINVAL) }
    let model = Unmanaged<GSLLevenbergMarquardt>.fromOpaque(params).takeUnretainedValue().model
    guard f.pointee.stride == 1, let data = f.pointee.data else { return Int32(GSL_EINVAL) }
    model.pointee.residuals(unknowns: gsl_vector_get(x, 0), gsl_vector_get(x, 1), model.pointee.unknowns == 3 ? gsl_vector_get(x, 2) : 0, into: data)
    return Int32(GSL_SUCCESS)
}

private func gslJacobian(_ x: UnsafePointer<gsl_vector>?, _ params: UnsafeMutableRawPointer?,
                         _ J: UnsafeMutablePointer<gsl_matrix>?) -> Int32 {
    guard let x, let params, let J else { return Int32(GSL_EINVAL) }
    let model = Unmanaged<GSLLevenbergMarquardt>.fromOpaque(params).takeUnretainedValue().model
    guard J.pointee.tda == model.pointee.unknowns, let data = J.pointee.data else { return Int32(GSL_EINVAL) }
    model.pointee.jacobian(unknowns: gsl_vector_get(x, 0), gsl_vector_get(x, 1), model.pointee.unknowns == 3 ? gsl_vector_get(x, 2) : 0, into: data)
    return Int32(GSL_SUCCESS)
}

extension FixProblem {
    /// A problem minimised by GSL (the lab's estimators).
    convenience init(venue: Venue, domain: Domain, walls: WallIndex? = nil, estimatesOffset: Bool = false) {
        self.init(venue: venue, domain: domain, walls: walls, estimatesOffset: estimatesOffset, solver: GSLLevenbergMarquardt())
    }
}
