import Foundation
import LabCore

/// The nonlinear least-squares problem of one fix: a 2-D position — and, when asked, the phone's RSSI offset δ
/// as a third unknown — over RSSI, censored and bearing terms, with an analytic Jacobian. One home for the
/// model; a ``LeastSquaresSolver`` minimises it (GSL's in the lab, ``LevenbergMarquardt`` in the library).
///
/// Residuals, each divided by its standard deviation so that (JᵀJ)⁻¹ is the covariance:
/// - RSSI domain:  (rssi_i − (P0_i + δ − 10·n·log10 d_i − walls_i)) · u_i / s_i   (u_i: robust weight, 1 by default)
/// - range domain: (d_i − r̂_i) / (r̂_i · s_i · ln10 / (10·n))   (first-order variance of r̂; no δ)
///   with s_i² = σ²/k_i + σ_m², the variance of the mean of k_i readings (k_i = 1 under correlated shadowing)
///   around the law, σ_m the model error
/// - truncated RSSI (when `truncatedMeans`): as the RSSI term, with the model's mean replaced by the mean of
///                 the readings that cleared the sensitivity, μ + σ·λ((S − μ)/σ) (λ the normal hazard φ/(1 − Φ)):
///                 a weak phone hears a far beacon only when the noise lifts it, so its heard mean is high
/// - censored:     √(−2·k_i·ln m_i),  m_i = loss + (1 − loss)·Φ((S − μ_i)/σ): the probability that beacon i,
///                 in the venue but not heard, missed all k_i advertisements of the window (S: sensitivity)
/// - measured range: (d_i − ρ_i) / σ_i, d_i the 3-D distance to the beacon and ρ_i a ranged distance (UWB, …)
/// - bearing:      wrap(heading_k − bearing(p → L_k)) / σθ   (radians)
/// - offset prior: (δ − δ₀) / σ_δ, when a prior on δ is set
/// - state prior:  W·(u − u₀), one row per unknown, when a Gaussian prior on (x, y, δ) is set (a tracker's
///                 prediction, ``StatePrior``): the fit is then the iterated extended Kalman filter's update
///
/// δ is 0 and not estimated unless the problem is made with `estimatesOffset`. The term buffers are sized for
/// the venue and the residual and Jacobian buffers grow once, so a solve allocates nothing.
package final class FixProblem {
    package enum Domain: Sendable { case rssi, range }

    package let domain: Domain
    /// True when δ is the third unknown.
    package let estimatesOffset: Bool
    package let unknowns: Int
    /// True when the advertisements of a window share one shadowing draw (correlated shadowing): then
    /// averaging them adds no information and every beacon counts once.
    package var correlatedShadowing: Bool { get { state.pointee.correlatedShadowing } set { state.pointee.correlatedShadowing = newValue } }
    /// The radio model's error σ_m, dB (``RadioModel/modelError``): each beacon's mean misses the law by this much
    /// however many readings are averaged, so a beacon heard k times weighs 1/√(σ²/k + σ_m²), not √k/σ.
    package var modelError: Double { get { state.pointee.modelError } set { state.pointee.modelError = newValue } }
    /// Walls whose losses the RSSI model includes (nil: free-space model).
    package let walls: WallIndex?
    package let exponent: Double
    package let sigma: Double
    /// Receiver sensitivity and packet loss, for censored terms.
    package var sensitivity: Double { get { state.pointee.sensitivity } set { state.pointee.sensitivity = newValue } }
    package var packetLoss: Double { get { state.pointee.packetLoss } set { state.pointee.packetLoss = newValue } }
    /// The chance a window reports nothing of a beacon however strong (``RadioModel/dropout``), for censored terms.
    package var dropout: Double { get { state.pointee.dropout } set { state.pointee.dropout = newValue } }
    /// Model each heard beacon's mean as the mean of a normal truncated at the sensitivity (see the type's notes).
    package var truncatedMeans: Bool { get { state.pointee.truncatedMeans } set { state.pointee.truncatedMeans = newValue } }
    // Term buffers: fixed capacity (one term of each kind per beacon), held by `let` pointers so that the hot
    // loops pay neither exclusivity checks nor reference counting.
    /// The most terms of each kind (the venue's beacon count).
    package let termCapacity: Int
    // RSSI terms.
    package let bx, by, bdz, bp0, brssi, bweight, brange: UnsafeMutablePointer<Double>
    /// Robust weight multiplier per RSSI term (√ of the IRLS weight), 1 unless set.
    package let brobust: UnsafeMutablePointer<Double>
    /// The Jacobian's reuse of the residuals' work: each RSSI term's dm/dμ at the point the residuals were last
    /// evaluated, and that point (x, y, δ, 1 when valid). Solvers ask for the Jacobian where they last asked for
    /// the residuals (the accepted trial), so the distance's log, the walls and the truncated mean's erfc are
    /// computed once per point, not twice; the numbers are the same.
    let bslope: UnsafeMutablePointer<Double>
    let slopePoint: UnsafeMutablePointer<Double>
    /// Each RSSI and censored term's beacon as an origin of the walls' fans (``WallIndex/loss(fromOrigin:to:)``), −1 when
    /// its position is not one (the wall loss is then found by the plain query).
    let bfan, cfan: UnsafeMutablePointer<Double>
    /// Where each of the likelihood-ratio region's rays ends, relative to the fix (``regionRays`` points).
    private let rayEnds = UnsafeMutablePointer<Point>.allocate(capacity: FixProblem.regionRays)
    /// The region's cost's single-precision copy of the RSSI terms (``ProfiledCost``).
    private let regionTerms: UnsafeMutablePointer<ProfiledCost.Quad>
    package private(set) var rssiCount: Int { get { state.pointee.rssiCount } set { state.pointee.rssiCount = newValue } }
    // Measured ranges (UWB, Channel Sounding, Wi-Fi RTT): beacon position, height offset, distance, 1/σ.
    let mx, my, mdz, mdistance, mweight: UnsafeMutablePointer<Double>
    package private(set) var rangeCount: Int { get { state.pointee.rangeCount } set { state.pointee.rangeCount = newValue } }
    // Censored terms: beacon position, height offset, P0, missed advertisements.
    let cx, cy, cdz, cp0, cmissed: UnsafeMutablePointer<Double>
    package private(set) var censoredCount: Int { get { state.pointee.censoredCount } set { state.pointee.censoredCount = newValue } }
    // Bearing terms: landmark position, heading in radians, 1/σθ; one block that grows (a scan has any number of headings).
    private(set) var lx: UnsafeMutablePointer<Double> { get { state.pointee.lx } set { state.pointee.lx = newValue } }
    var ly: UnsafeMutablePointer<Double> { lx + bearingCapacity }
    var lheading: UnsafeMutablePointer<Double> { lx + 2 * bearingCapacity }
    var lweight: UnsafeMutablePointer<Double> { lx + 3 * bearingCapacity }
    private var bearingCapacity: Int { get { state.pointee.bearingCapacity } set { state.pointee.bearingCapacity = newValue } }
    package private(set) var bearingCount: Int { get { state.pointee.bearingCount } set { state.pointee.bearingCount = newValue } }
    /// A prior on δ: (mean, σ), dB.
    package var offsetPrior: (mean: Double, sigma: Double)? { get { state.pointee.offsetPrior } set { state.pointee.offsetPrior = newValue } }
    /// A Gaussian prior on the unknowns (a tracker's prediction).
    package var statePrior: StatePrior? { get { state.pointee.statePrior } set { state.pointee.statePrior = newValue } }

    /// The problem's changing numbers — its term counts, priors, settings and the bearing block — in one block the
    /// class holds by a `let` pointer: read through it they cost no exclusivity check (each of a class's stored `var`s
    /// does, about 70 instructions a read), and a fix reads them some 60 times (the model of each solve, ``residualCount``).
    private struct State {
        var rssiCount = 0, rangeCount = 0, censoredCount = 0, bearingCount = 0, bearingCapacity = 1
        var correlatedShadowing = false, truncatedMeans = false
        var modelError = 0.0, sensitivity = -100.0, packetLoss = 0.0, dropout = 0.0
        var offsetPrior: (mean: Double, sigma: Double)?
        var statePrior: StatePrior?
        /// The bearing block: capacity × (landmark x, y, heading, 1/σθ), one column after the other.
        var lx: UnsafeMutablePointer<Double>
        var f: UnsafeMutablePointer<Double>, J: UnsafeMutablePointer<Double>
        var capacity: Int
        var lastNormal: LastNormal?
    }
    private let state: UnsafeMutablePointer<State>

    /// What minimises the problem.
    package let solver: any LeastSquaresSolver
    /// The residuals and the Jacobian (row-major, `unknowns` columns) at the solver's answer: solvers leave
    /// them here, and the covariance and cost are read from them.
    package private(set) var f: UnsafeMutablePointer<Double> { get { state.pointee.f } set { state.pointee.f = newValue } }
    package private(set) var J: UnsafeMutablePointer<Double> { get { state.pointee.J } set { state.pointee.J = newValue } }
    private var capacity: Int { get { state.pointee.capacity } set { state.pointee.capacity = newValue } }

    package init(capacity: Int, exponent: Double, sigma: Double, domain: Domain, walls: WallIndex? = nil,
                 estimatesOffset: Bool = false, solver: any LeastSquaresSolver) {
        self.domain = domain
        self.walls = walls.flatMap { $0.isEmpty ? nil : $0 }
        self.estimatesOffset = estimatesOffset && domain == .rssi
        unknowns = self.estimatesOffset ? 3 : 2
        self.exponent = exponent
        self.sigma = max(sigma, 0.1)
        self.solver = solver
        let m = max(capacity, 1)
        termCapacity = m
        // Each buffer has one slot more than the terms it holds: the pair loops (``FixModel/Pair``) read the slot after
        // the last term, whose weight is 0 (``addRSSI(position:heightOffset:p0:rssi:count:)`` clears it).
        let stride = m + 1
        let block = UnsafeMutablePointer<Double>.allocate(capacity: 21 * stride + 4)
        block.initialize(repeating: 0, count: 21 * stride + 4)
        let slice = { (k: Int) in block + k * stride }
        bx = slice(0); by = slice(1); bdz = slice(2); bp0 = slice(3); brssi = slice(4); bweight = slice(5); brange = slice(6)
        brobust = slice(7)
        mx = slice(8); my = slice(9); mdz = slice(10); mdistance = slice(11); mweight = slice(12)
        cx = slice(13); cy = slice(14); cdz = slice(15); cp0 = slice(16); cmissed = slice(17)
        bslope = slice(18); bfan = slice(19); cfan = slice(20); slopePoint = slice(21)
        rayEnds.initialize(repeating: .zero, count: FixProblem.regionRays)
        regionTerms = .allocate(capacity: ProfiledCost.storage(forTerms: m))
        regionTerms.initialize(repeating: .zero, count: ProfiledCost.storage(forTerms: m))
        let rows = 3 * termCapacity + 8
        state = .allocate(capacity: 1)
        // The bearing block starts with room for one bearing, grown on the second.
        state.initialize(to: State(lx: .allocate(capacity: 4), f: .allocate(capacity: rows), J: .allocate(capacity: 3 * rows), capacity: rows))
    }

    /// A problem for `venue`: its beacon count, path-loss exponent, σ, shadowing correlation, sensitivity and
    /// packet loss.
    package convenience init(venue: Venue, domain: Domain, walls: WallIndex? = nil, estimatesOffset: Bool = false,
                             solver: any LeastSquaresSolver) {
        self.init(capacity: venue.beaconCount, exponent: venue.radio.exponent, sigma: venue.radio.sigma, domain: domain,
                  walls: walls, estimatesOffset: estimatesOffset, solver: solver)
        correlatedShadowing = venue.radio.correlationDistance != nil
        modelError = venue.radio.modelError
        sensitivity = venue.radio.sensitivity
        packetLoss = venue.radio.packetLoss
        dropout = venue.radio.dropout
    }

    deinit {
        bx.deallocate()   // the block all term buffers live in
        rayEnds.deallocate()
        regionTerms.deallocate()
        lx.deallocate()   // the bearing block
        f.deallocate()
        J.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    package func reset() { rssiCount = 0; rangeCount = 0; bearingCount = 0; censoredCount = 0; offsetPrior = nil; statePrior = nil }

    package var residualCount: Int {
        rssiCount + rangeCount + censoredCount + bearingCount + (offsetPrior != nil && estimatesOffset ? 1 : 0) + (statePrior != nil ? unknowns : 0)
    }

    package func addRSSI(position: Point, heightOffset: Double, p0: Double, rssi: Double, count: Int) {
        let i = rssiCount
        precondition(i < termCapacity, "more RSSI terms than beacons")
        bx[i] = position.x; by[i] = position.y; bdz[i] = heightOffset; bp0[i] = p0; brssi[i] = rssi
        bfan[i] = fanOrigin(of: position)
        let k = correlatedShadowing ? 1 : Double(max(count, 1))
        bweight[i] = 1 / (sigma * sigma / k + modelError * modelError).squareRoot()
        // The range domain's distance (a pow per term: only that domain reads it).
        if domain == .range {
            brange[i] = RadioModel.distance(rssi: rssi, p0: p0, exponent: exponent)
            bweight[i] /= brange[i] * log(10) / (10 * exponent)
        }
        brobust[i] = 1
        bweight[i + 1] = 0   // the slot a pair loop reads after the last term weighs nothing
        rssiCount += 1
    }

    /// One RSSI term per beacon observed, with the venue's beacon position, height and power.
    package func addRSSI(_ observations: [BeaconObservation], venue: Venue) {
        for o in observations {
            addRSSI(position: venue.beaconPositions[o.beacon], heightOffset: venue.beaconHeightOffset[o.beacon],
                    p0: venue.beaconP0[o.beacon], rssi: o.rssi, count: o.count)
        }
    }

    /// One measured-range term: a distance ranged to a beacon at `position` (`heightOffset` above the phone), σ in metres.
    package func addMeasuredRange(position: Point, heightOffset: Double, distance: Double, sigma: Double) {
        let i = rangeCount
        precondition(i < termCapacity, "more range terms than beacons")
        mx[i] = position.x; my[i] = position.y; mdz[i] = heightOffset; mdistance[i] = distance; mweight[i] = 1 / max(sigma, 1e-3)
        rangeCount += 1
    }

    /// One censored term per beacon of the venue not in `heard`: it was not heard in any of `advertisements`
    /// chances (1 with correlated shadowing: one draw per window).
    package func addCensored(venue: Venue, heard: BeaconSet, advertisements: Int) {
        let k = correlatedShadowing ? 1.0 : Double(max(advertisements, 1))
        for b in 0..<min(venue.beaconCount, termCapacity) where !heard.contains(b) {
            let i = censoredCount
            cx[i] = venue.beaconPositions[b].x; cy[i] = venue.beaconPositions[b].y; cfan[i] = fanOrigin(of: venue.beaconPositions[b])
            cdz[i] = venue.beaconHeightOffset[b]; cp0[i] = venue.beaconP0[b]; cmissed[i] = k
            censoredCount += 1
        }
    }

    /// `position`'s fan in the walls' index (``bfan``), −1 without one.
    private func fanOrigin(of position: Point) -> Double {
        guard let walls, !walls.isEmpty, let k = walls.origin(of: position) else { return -1 }
        return Double(k)
    }

    package func addBearing(landmark: Point, headingDegrees: Double, sigmaDegrees: Double) {
        if bearingCount == bearingCapacity {
            let grown = max(2 * bearingCapacity, 4)
            let block = UnsafeMutablePointer<Double>.allocate(capacity: 4 * grown)
            for (k, old) in [lx, ly, lheading, lweight].enumerated() { (block + k * grown).update(from: old, count: bearingCount) }
            lx.deallocate()
            lx = block
            bearingCapacity = grown
        }
        let i = bearingCount
        lx[i] = landmark.x; ly[i] = landmark.y; lheading[i] = headingDegrees * .pi / 180
        lweight[i] = 1 / (max(sigmaDegrees, 0.5) * .pi / 180)
        bearingCount += 1
    }

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
    package private(set) var lastNormal: LastNormal? { get { state.pointee.lastNormal } set { state.pointee.lastNormal = newValue } }

    /// Solves from `start` (and δ from `offset`); a failure when the solver reports one or the result is not finite.
    /// `startStep`: the relative size of the exact Newton step of this cost that led to `start`, when one did
    /// (``LeastSquaresSolver``).
    package func solve(from start: Point, offset: Double = 0, startStep: Double? = nil, maxIterations: Int = 100) -> Result<Solution, NoFixReason> {
        let n = residualCount
        guard n >= unknowns else { return .failure(.tooFewBeacons(heard: n, needed: unknowns)) }
        if n > capacity {
            f.deallocate(); J.deallocate()
            capacity = 2 * n
            f = .allocate(capacity: capacity)
            J = .allocate(capacity: capacity * 3)
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

    /// The problem as it stands, frozen for one solve: what solvers evaluate.
    package var model: FixModel {
        FixModel(unknowns: unknowns, domain: domain, walls: walls, exponent: exponent, sigma: sigma, sensitivity: sensitivity,
                 packetLoss: packetLoss, dropout: dropout, truncated: truncatedMeans,
                 rssi: (bx, by, bdz, bp0, brssi, bweight, brange, brobust, rssiCount),
                 ranges: (mx, my, mdz, mdistance, mweight, rangeCount),
                 censored: (cx, cy, cdz, cp0, cmissed, censoredCount),
                 bearings: (lx, ly, lheading, lweight, bearingCount),
                 prior: estimatesOffset ? offsetPrior : nil, statePrior: statePrior, slopes: (bslope, slopePoint), fans: (bfan, cfan))
    }

    /// The residuals at `p` (and δ) as an array (for tests: the Jacobian is checked against finite differences).
    package func residuals(at p: Point, offset: Double = 0) -> [Double] {
        let m = model
        return [Double](unsafeUninitializedCapacity: m.residualCount) { buffer, count in
            m.residuals(x: p.x, y: p.y, delta: offset, into: buffer.baseAddress!)
            count = m.residualCount
        }
    }

    /// The analytic Jacobian at `p` (and δ), one row (∂/∂x, ∂/∂y[, ∂/∂δ]) per residual (for tests).
    package func jacobian(at p: Point, offset: Double = 0) -> [[Double]] {
        let m = model
        let flat = [Double](unsafeUninitializedCapacity: m.residualCount * unknowns) { buffer, count in
            m.jacobian(x: p.x, y: p.y, delta: offset, into: buffer.baseAddress!)
            count = m.residualCount * unknowns
        }
        return (0..<m.residualCount).map { Array(flat[$0 * unknowns..<($0 + 1) * unknowns]) }
    }
}

/// A ``FixProblem`` frozen for one solve: its terms and settings as values and pointers, so that evaluating the
/// residuals and the Jacobian — the solvers' inner loop — touches no class state (no exclusivity checks, no
/// reference counting; a copy is a copy of numbers and pointers). Valid while its problem lives and is not changed.
package struct FixModel {
    package let unknowns: Int
    let domain: FixProblem.Domain
    /// Unowned: the problem holds the walls, and a model copied per residual evaluation then retains nothing.
    unowned(unsafe) let walls: WallIndex?
    /// Whether there is a wall to cross: a venue without walls skips the call (and the reference it would take) per term.
    let hasWalls: Bool
    let exponent: Double, sigma: Double, sensitivity: Double, packetLoss: Double, dropout: Double
    let truncated: Bool
    /// The mean RSSI from which heard readings count as untruncated (``TruncatedNormal/untruncatedBeyond`` σ above the
    /// sensitivity), dBm.
    let untruncatedFrom: Double
    /// 5n/ln 10: the model's mean is P0 + δ − (5n/ln 10)·ln d² − walls.
    let halfTenNOverLn10: Double
    /// λ's table, for the stated region's cost (``ProfiledCost``).
    unowned(unsafe) let lookup = TruncatedNormal.lookup
    let bx, by, bdz, bp0, brssi, bweight, brange, brobust: UnsafeMutablePointer<Double>
    let rssiCount: Int
    let mx, my, mdz, mdistance, mweight: UnsafeMutablePointer<Double>
    let rangeCount: Int
    let cx, cy, cdz, cp0, cmissed: UnsafeMutablePointer<Double>
    let censoredCount: Int
    let lx, ly, lheading, lweight: Buffer
    let bearingCount: Int
    let prior: (mean: Double, sigma: Double)?
    let statePrior: StatePrior?
    package let residualCount: Int
    /// ``FixProblem``'s slope cache: dm/dμ per RSSI term and the point it holds (x, y, δ, valid).
    let bslope, slopePoint: Buffer
    /// Each RSSI and censored term's fan in the walls' index, −1 without one (``FixProblem``'s `bfan`, `cfan`).
    let bfan, cfan: Buffer

    package typealias Buffer = UnsafeMutablePointer<Double>

    /// The solvers' third unknown is δ + 10 dB, not δ: their step test is relative to the unknown
    /// (|step| < 10⁻¹⁰ + 10⁻⁵·|u|), and a δ near 0 dB would be iterated to 10⁻¹⁰ dB, at a linear rate on noisy
    /// data, for nothing. Shifted, δ stops at 10⁻⁴ dB. (Positions are not shifted: the fixes' equivariance under
    /// moving the venue's frame, which a test holds to 1 mm, depends on the frame-relative stopping rule.)
    package static let offsetShift = 10.0

    /// How far from `p` (inside `r`) the ray along `u` leaves `r`, metres (0 when p is outside).
    static func distanceToEdge(of r: Rect, from p: Point, along u: Point) -> Double {
        var t = Double.infinity
        if u.x > 1e-12 { t = min(t, (r.maxX - p.x) / u.x) } else if u.x < -1e-12 { t = min(t, (r.minX - p.x) / u.x) }
        if u.y > 1e-12 { t = min(t, (r.maxY - p.y) / u.y) } else if u.y < -1e-12 { t = min(t, (r.minY - p.y) / u.y) }
        return max(t, 0)
    }

    /// The solvers' unknowns for a position and δ.
    package func unknowns(x: Double, y: Double, delta: Double) -> (Double, Double, Double) {
        (x, y, unknowns == 3 ? delta + FixModel.offsetShift : 0)
    }

    /// The position and δ for the solvers' unknowns.
    package func solution(_ u: (Double, Double, Double)) -> (x: Double, y: Double, delta: Double) {
        (u.0, u.1, unknowns == 3 ? u.2 - FixModel.offsetShift : 0)
    }

    /// RSSI term i's residual in units of one reading's σ (before robust weighting) at a solution: what an
    /// IRLS step weighs.
    package func standardisedRSSIResidual(_ i: Int, at s: FixProblem.Solution) -> Double {
        let dx = s.position.x - bx[i], dy = s.position.y - by[i]
        let d2 = max(dx * dx + dy * dy + bdz[i] * bdz[i], 1e-12)
        let wallLoss = wallLoss(from: Point(bx[i], by[i]), to: s.position, fan: bfan[i])
        return (brssi[i] - heardMean(bp0[i] + s.offset - halfTenNOverLn10 * log(d2) - wallLoss).m) / sigma
    }

    /// The residuals at the solvers' unknowns.
    @inline(__always) package func residuals(unknowns u0: Double, _ u1: Double, _ u2: Double, into out: UnsafeMutablePointer<Double>) {
        residuals(x: u0, y: u1, delta: unknowns == 3 ? u2 - FixModel.offsetShift : 0, into: out)
    }

    /// The Jacobian at the solvers' unknowns (the shift does not change it).
    @inline(__always) package func jacobian(unknowns u0: Double, _ u1: Double, _ u2: Double, into out: UnsafeMutablePointer<Double>) {
        jacobian(x: u0, y: u1, delta: unknowns == 3 ? u2 - FixModel.offsetShift : 0, into: out)
    }

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
            var m = Self.load(bp0, i) + delta - k * FastLog.pair(d2) - wall, slope = Pair(repeating: 1)
            if truncated, any(m .< untruncatedFrom) {
                let h0 = heardMean(m[0]), h1 = i + 1 < rssiCount ? heardMean(m[1]) : (m[1], 1)
                m = Pair(h0.m, h1.m); slope = Pair(h0.slope, h1.slope)
                truncatedTerm = true
            }
            var w = Self.load(bweight, i) * Self.load(brobust, i)
            let r = (Self.load(brssi, i) - m) * w
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
        let dx = x - Self.load(bx, i), dy = y - Self.load(by, i), dz = Self.load(bdz, i)
        var d2 = dx * dx + dy * dy + dz * dz
        d2.replace(with: 1e-12, where: d2 .< 1e-12)   // (pointwiseMax is not always inlined)
        var wall = Pair()
        if hasWalls {
            for l in 0..<2 where i + l < rssiCount { wall[l] = wallLoss(from: Point(bx[i + l], by[i + l]), to: Point(x, y), fan: bfan[i + l]) }
        }
        return (dx, dy, d2, wall)
    }

    /// True when the cost is smooth in the position (no wall steps it): Newton's steps may finish a solve.
    package var isSmooth: Bool { !hasWalls }

    init(unknowns: Int, domain: FixProblem.Domain, walls: WallIndex?, exponent: Double, sigma: Double, sensitivity: Double,
         packetLoss: Double, dropout: Double, truncated: Bool,
         rssi: (Buffer, Buffer, Buffer, Buffer, Buffer, Buffer, Buffer, Buffer, Int),
         ranges: (Buffer, Buffer, Buffer, Buffer, Buffer, Int),
         censored: (Buffer, Buffer, Buffer, Buffer, Buffer, Int),
         bearings: (Buffer, Buffer, Buffer, Buffer, Int),
         prior: (mean: Double, sigma: Double)?, statePrior: StatePrior?, slopes: (Buffer, Buffer), fans: (Buffer, Buffer)) {
        self.unknowns = unknowns; self.domain = domain; self.walls = walls; self.exponent = exponent; self.sigma = sigma
        hasWalls = walls.map { !$0.isEmpty } ?? false
        self.sensitivity = sensitivity; self.packetLoss = packetLoss; self.dropout = dropout; self.truncated = truncated
        untruncatedFrom = sensitivity + TruncatedNormal.untruncatedBeyond * sigma
        halfTenNOverLn10 = 5 * exponent / 2.302585092994046
        (bx, by, bdz, bp0, brssi, bweight, brange, brobust, rssiCount) = rssi
        (mx, my, mdz, mdistance, mweight, rangeCount) = ranges
        (cx, cy, cdz, cp0, cmissed, censoredCount) = censored
        (lx, ly, lheading, lweight, bearingCount) = bearings
        self.prior = prior
        self.statePrior = statePrior
        (bslope, slopePoint) = slopes
        (bfan, cfan) = fans
        slopePoint[3] = 0   // the terms may have changed since the last model
        residualCount = rssiCount + rangeCount + censoredCount + bearingCount + (prior != nil ? 1 : 0) + (statePrior != nil ? unknowns : 0)
    }

    /// The loss of the walls between a beacon at `p` and the phone at `q`, dB (0 without walls): through the beacon's
    /// fan when it has one (`fan` ≥ 0; the same value).
    @inline(__always) func wallLoss(from p: Point, to q: Point, fan: Double) -> Double {
        guard hasWalls else { return 0 }
        return fan >= 0 ? walls!.loss(fromOrigin: Int(fan), to: q) : walls!.loss(from: p, to: q)
    }

    /// The mean of readings with model mean μ that cleared the sensitivity, and its derivative in μ
    /// (``TruncatedNormal/heardMean(_:sensitivity:sigma:)``); (μ, 1) unless the heard means are truncated.
    @inline(__always) func heardMean(_ mu: Double) -> (m: Double, slope: Double) {
        // Most terms of a scan are far above the sensitivity: they skip the division.
        guard truncated, mu < untruncatedFrom else { return (mu, 1) }
        return TruncatedNormal.heardMean(mu, sensitivity: sensitivity, sigma: sigma)
    }

    /// The censored term c at (x, y, δ): its residual and dr/dμ (μ the beacon's mean RSSI).
    @inline(__always) func censored(_ c: Int, x: Double, y: Double, delta: Double) -> (r: Double, dr: Double, dx: Double, dy: Double, d2: Double) {
        let dx = x - cx[c], dy = y - cy[c]
        let d2 = max(dx * dx + dy * dy + cdz[c] * cdz[c], 1e-12)
        let wallLoss = wallLoss(from: Point(cx[c], cy[c]), to: Point(x, y), fan: cfan[c])
        let mu = cp0[c] + delta - halfTenNOverLn10 * log(d2) - wallLoss
        let z = (sensitivity - mu) / sigma
        let miss = max(packetLoss + (1 - packetLoss) * TruncatedNormal.cdf(z), 1e-300)
        // Unheard: every one of the k readings below the sensitivity or lost (m each), or the whole window dropped (d):
        // P = d + (1 − d)·m^k, r² = −2 ln P  ⇒  dr/dμ = share·k·(1 − loss)·φ(z)/(σ·m·r), share = (1 − d)·m^k / P the part
        // of P the readings make (1 without a dropout, when P = m^k exactly).
        let logReadings = cmissed[c] * log(miss)
        var logP = logReadings, share = 1.0
        if dropout > 0 {
            let all = exp(logReadings), p = dropout + (1 - dropout) * all
            logP = log(p); share = (1 - dropout) * all / p
        }
        let r = (-2 * logP).squareRoot()
        let dr = r > 1e-9 ? share * cmissed[c] * (1 - packetLoss) * TruncatedNormal.pdf(z) / (r * miss * sigma) : 0
        return (r, dr, dx, dy, d2)
    }

    /// Writes the `residualCount` residuals at (x, y, δ) to `out`.
    package func residuals(x: Double, y: Double, delta: Double, into out: UnsafeMutablePointer<Double>) {
        let k = halfTenNOverLn10
        for i in 0..<rssiCount {
            let dx = x - bx[i], dy = y - by[i]
            let d2 = max(dx * dx + dy * dy + bdz[i] * bdz[i], 1e-12)
            switch domain {
            case .rssi:
                // Wall losses are piecewise constant in p: they shift the model, not its derivative.
                let wallLoss = wallLoss(from: Point(bx[i], by[i]), to: Point(x, y), fan: bfan[i])
                let term = rssiTerm(i, mean: bp0[i] + delta - k * log(d2) - wallLoss)
                bslope[i] = term.slope
                out[i] = term.r
            case .range: out[i] = rangeDomainResidual(i, d2: d2)
            }
        }
        if domain == .rssi { slopePoint[0] = x; slopePoint[1] = y; slopePoint[2] = delta; slopePoint[3] = 1 }
        otherResiduals(x: x, y: y, delta: delta, into: out)
    }

    /// The residuals after the RSSI terms' (ranges, censored terms, bearings, priors), from row ``rssiCount`` of `out`.
    @inline(__always) func otherResiduals(x: Double, y: Double, delta: Double, into out: UnsafeMutablePointer<Double>) {
        var row = rssiCount
        for m in 0..<rangeCount {
            out[row] = measuredRangeResidual(m, x: x, y: y)
            row += 1
        }
        for c in 0..<censoredCount {
            out[row] = censored(c, x: x, y: y, delta: delta).r
            row += 1
        }
        for b in 0..<bearingCount {
            out[row] = bearingResidual(b, x: x, y: y)
            row += 1
        }
        if let prior { out[row] = (delta - prior.mean) / prior.sigma; row += 1 }
        if let statePrior {
            let r = statePrior.residuals(x: x, y: y, delta: delta)
            out[row] = r.0; out[row + 1] = r.1
            if unknowns == 3 { out[row + 2] = r.2 }
        }
    }

    /// RSSI term i's residual when the model's mean is `mu` (before truncation), and dm/dμ of the heard mean.
    @inline(__always) func rssiTerm(_ i: Int, mean mu: Double) -> (r: Double, slope: Double) {
        let h = heardMean(mu)
        return ((brssi[i] - h.m) * bweight[i] * brobust[i], h.slope)
    }

    /// ``heardMean(_:)``'s mean with λ from the table (``ProfiledCost``, which only compares costs).
    @inline(__always) func tabulatedHeardMean(_ mu: Double) -> Double {
        truncated && mu < untruncatedFrom ? lookup.heardMean(mu, sensitivity: sensitivity, sigma: sigma) : mu
    }

    /// The range domain's term i's residual at squared distance `d2` from its beacon: the distance minus the one its RSSI
    /// says, over that distance's σ.
    @inline(__always) func rangeDomainResidual(_ i: Int, d2: Double) -> Double { (d2.squareRoot() - brange[i]) * bweight[i] }

    /// Measured-range term m's residual at (x, y): the 3-D distance minus the ranged one, over its σ.
    @inline(__always) func measuredRangeResidual(_ m: Int, x: Double, y: Double) -> Double {
        let dx = x - mx[m], dy = y - my[m]
        return ((dx * dx + dy * dy + mdz[m] * mdz[m]).squareRoot() - mdistance[m]) * mweight[m]
    }

    /// Bearing term b's residual: the heading's difference from the bearing to its landmark, wrapped to (−π, π].
    @inline(__always) func bearingResidual(_ b: Int, x: Double, y: Double) -> Double {
        let a = lx[b] - x, c = ly[b] - y
        let bearing = atan2(a, c)
        var diff = (lheading[b] - bearing).truncatingRemainder(dividingBy: 2 * .pi)
        if diff > .pi { diff -= 2 * .pi } else if diff <= -.pi { diff += 2 * .pi }
        return diff * lweight[b]
    }

    /// Writes the Jacobian at (x, y, δ) to `out`, row-major, `unknowns` columns.
    package func jacobian(x: Double, y: Double, delta: Double, into out: UnsafeMutablePointer<Double>) {
        let c = 2 * halfTenNOverLn10   // 10n/ln 10
        let p = unknowns
        let third = p == 3
        let cached = slopePoint[3] == 1 && slopePoint[0] == x && slopePoint[1] == y && slopePoint[2] == delta
        for i in 0..<rssiCount {
            let dx = x - bx[i], dy = y - by[i]
            let d2 = max(dx * dx + dy * dy + bdz[i] * bdz[i], 1e-12)
            let row = out + i * p
            switch domain {
            case .rssi:
                // ∂/∂x of (rssi − P0 − δ + 10 n log10 d) = 10n/ln10 · dx/d²; ∂/∂δ = −1 (times dm/dμ when truncated)
                var w = bweight[i] * brobust[i]
                if truncated && cached {
                    w *= bslope[i]
                } else if truncated {
                    let wallLoss = wallLoss(from: Point(bx[i], by[i]), to: Point(x, y), fan: bfan[i])
                    w *= heardMean(bp0[i] + delta - halfTenNOverLn10 * log(d2) - wallLoss).slope
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
        otherJacobian(x: x, y: y, delta: delta, into: out)
    }

    /// The Jacobian's rows after the RSSI terms' (ranges, censored terms, bearings, priors), from row ``rssiCount`` of `out`.
    @inline(__always) func otherJacobian(x: Double, y: Double, delta: Double, into out: UnsafeMutablePointer<Double>) {
        let c = 2 * halfTenNOverLn10   // 10n/ln 10
        let p = unknowns
        let third = p == 3
        var r = rssiCount
        for m in 0..<rangeCount {
            let dx = x - mx[m], dy = y - my[m]
            let d = max((dx * dx + dy * dy + mdz[m] * mdz[m]).squareRoot(), 1e-6)
            let row = out + r * p
            row[0] = dx / d * mweight[m]
            row[1] = dy / d * mweight[m]
            if third { row[2] = 0 }
            r += 1
        }
        for k in 0..<censoredCount {
            let t = censored(k, x: x, y: y, delta: delta)
            // μ = P0 + δ − 10 n log10 d − walls: ∂μ/∂x = −c·dx/d², ∂μ/∂δ = 1
            let row = out + r * p
            row[0] = -t.dr * c * t.dx / t.d2
            row[1] = -t.dr * c * t.dy / t.d2
            if third { row[2] = t.dr }
            r += 1
        }
        for b in 0..<bearingCount {
            let a = lx[b] - x, e = ly[b] - y
            let r2 = max(a * a + e * e, 1e-12)
            // residual = heading − atan2(a, e); ∂atan2/∂x = −e/r², ∂atan2/∂y = a/r²
            let row = out + r * p
            row[0] = e / r2 * lweight[b]
            row[1] = -a / r2 * lweight[b]
            if third { row[2] = 0 }
            r += 1
        }
        if third, let prior {
            let row = out + r * p
            row[0] = 0; row[1] = 0; row[2] = 1 / prior.sigma
            r += 1
        }
        if let s = statePrior {
            let row = out + r * p
            row[0] = s.w00; row[1] = 0
            row[p] = s.w10; row[p + 1] = s.w11
            if third {
                row[2] = 0; row[p + 2] = 0
                row[2 * p] = s.w20; row[2 * p + 1] = s.w21; row[2 * p + 2] = s.w22
            }
        }
    }
}
