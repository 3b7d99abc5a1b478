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
    /// The venue's radio map, when the problem was made for a venue with one (``init(venue:domain:walls:estimatesOffset:solver:)``).
    package private(set) var radioMap: RadioMapBox?
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
    /// The RSSI terms.
    package let heard: HeardTerms
    /// The Jacobian's reuse of the residuals' work: each RSSI term's dm/dμ at the point the residuals were last
    /// evaluated (``HeardTerms/meanSlope``), and that point (x, y, δ, 1 when valid). Solvers ask for the Jacobian where
    /// they last asked for the residuals (the accepted trial), so the distance's log, the walls and the truncated mean's
    /// erfc are computed once per point, not twice; the numbers are the same.
    let slopePoint: UnsafeMutablePointer<Double>
    /// Where each of the likelihood-ratio region's rays ends, relative to the fix (``regionRays`` points).
    let rayEnds = UnsafeMutablePointer<Point>.allocate(capacity: FixProblem.regionRays)
    /// The region's cost's single-precision copy of the RSSI terms (``ProfiledCost``).
    let regionTerms: UnsafeMutablePointer<ProfiledCost.Quad>
    package private(set) var rssiCount: Int { get { state.pointee.rssiCount } set { state.pointee.rssiCount = newValue } }
    /// Measured ranges (UWB, Channel Sounding, Wi-Fi RTT).
    let ranged: RangedTerms
    package private(set) var rangeCount: Int { get { state.pointee.rangeCount } set { state.pointee.rangeCount = newValue } }
    /// Censored terms: the beacons not heard.
    let censored: CensoredTerms
    package private(set) var censoredCount: Int { get { state.pointee.censoredCount } set { state.pointee.censoredCount = newValue } }
    /// Bearing terms, in one block that grows (a scan has any number of headings).
    private var bearingBlock: UnsafeMutablePointer<Double> { get { state.pointee.bearingBlock } set { state.pointee.bearingBlock = newValue } }
    var bearings: BearingTerms { BearingTerms(block: bearingBlock, capacity: bearingCapacity) }
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
        var bearingBlock: UnsafeMutablePointer<Double>
        var f: UnsafeMutablePointer<Double>, J: UnsafeMutablePointer<Double>
        var residualCapacity: Int
        var lastNormal: LastNormal?
    }
    private let state: UnsafeMutablePointer<State>

    /// What minimises the problem.
    package let solver: any LeastSquaresSolver
    /// The residuals and the Jacobian (row-major, `unknowns` columns) at the solver's answer: solvers leave
    /// them here, and the covariance and cost are read from them.
    package internal(set) var f: UnsafeMutablePointer<Double> { get { state.pointee.f } set { state.pointee.f = newValue } }
    package internal(set) var J: UnsafeMutablePointer<Double> { get { state.pointee.J } set { state.pointee.J = newValue } }
    /// Rows `f` and `J` have room for.
    var residualCapacity: Int { get { state.pointee.residualCapacity } set { state.pointee.residualCapacity = newValue } }
    /// The last solve's answer and its normal equations (``LastNormal``).
    package internal(set) var lastNormal: LastNormal? { get { state.pointee.lastNormal } set { state.pointee.lastNormal = newValue } }

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
        let block = UnsafeMutablePointer<Double>.allocate(capacity: 23 * stride + 4)
        block.initialize(repeating: 0, count: 23 * stride + 4)
        let slice = { (k: Int) in block + k * stride }
        heard = HeardTerms(x: slice(0), y: slice(1), heightOffset: slice(2), p0: slice(3), rssi: slice(4), weight: slice(5),
                           rssiDistance: slice(6), robustWeight: slice(7), meanSlope: slice(18), fan: slice(19), beacon: slice(21))
        ranged = RangedTerms(x: slice(8), y: slice(9), heightOffset: slice(10), distance: slice(11), weight: slice(12))
        censored = CensoredTerms(x: slice(13), y: slice(14), heightOffset: slice(15), p0: slice(16), missedAdvertisements: slice(17),
                                 fan: slice(20))
        slopePoint = slice(22)   // 4 slots: the block's last
        rayEnds.initialize(repeating: .zero, count: FixProblem.regionRays)
        regionTerms = .allocate(capacity: ProfiledCost.storage(forTerms: m))
        regionTerms.initialize(repeating: .zero, count: ProfiledCost.storage(forTerms: m))
        let rows = 3 * termCapacity + 8
        state = .allocate(capacity: 1)
        // The bearing block starts with room for one bearing, grown on the second.
        state.initialize(to: State(bearingBlock: .allocate(capacity: 4), f: .allocate(capacity: rows), J: .allocate(capacity: 3 * rows),
                                   residualCapacity: rows))
    }

    /// A problem for `venue`: its beacon count, path-loss exponent, σ, shadowing correlation, sensitivity and
    /// packet loss.
    package convenience init(venue: Venue, domain: Domain, walls: WallIndex? = nil, estimatesOffset: Bool = false,
                             solver: any LeastSquaresSolver) {
        self.init(capacity: venue.beaconCount, exponent: venue.radio.exponent, sigma: venue.radio.sigma, domain: domain,
                  walls: walls, estimatesOffset: estimatesOffset, solver: solver)
        correlatedShadowing = venue.radio.correlationDistance != nil
        radioMap = venue.radioMap.flatMap { $0.beaconCount == venue.beaconCount ? RadioMapBox($0) : nil }
        modelError = venue.radio.modelError
        sensitivity = venue.radio.sensitivity
        packetLoss = venue.radio.packetLoss
        dropout = venue.radio.dropout
    }

    deinit {
        heard.x.deallocate()   // the block all term buffers live in
        rayEnds.deallocate()
        regionTerms.deallocate()
        bearingBlock.deallocate()
        f.deallocate()
        J.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    package func reset() { rssiCount = 0; rangeCount = 0; bearingCount = 0; censoredCount = 0; offsetPrior = nil; statePrior = nil }

    package var residualCount: Int {
        rssiCount + rangeCount + censoredCount + bearingCount + (offsetPrior != nil && estimatesOffset ? 1 : 0) + (statePrior != nil ? unknowns : 0)
    }

    /// One RSSI term: a mean reading `rssi` of `count` readings of a beacon at `position`. With the venue's `beacon` index
    /// and a radio map (``radioMap``), the map's residual joins the term's mean wherever the model is evaluated, and
    /// `mapVariance` (the map's variance near the phone) its variance.
    package func addRSSI(position: Point, heightOffset: Double, p0: Double, rssi: Double, count: Int, beacon: Int = -1, mapVariance: Double = 0) {
        let i = rssiCount
        precondition(i < termCapacity, "more RSSI terms than beacons")
        heard.x[i] = position.x; heard.y[i] = position.y; heard.heightOffset[i] = heightOffset; heard.p0[i] = p0; heard.rssi[i] = rssi
        heard.fan[i] = fanOrigin(of: position)
        heard.beacon[i] = radioMap?.map.maps(beacon: beacon) == true ? Double(beacon) : -1
        let k = correlatedShadowing ? 1 : Double(max(count, 1))
        heard.weight[i] = 1 / (sigma * sigma / k + modelError * modelError + mapVariance).squareRoot()
        // The range domain's distance (a pow per term: only that domain reads it).
        if domain == .range {
            heard.rssiDistance[i] = RadioModel.distance(rssi: rssi, p0: p0, exponent: exponent)
            heard.weight[i] /= heard.rssiDistance[i] * log(10) / (10 * exponent)
        }
        heard.robustWeight[i] = 1
        heard.weight[i + 1] = 0   // the slot a pair loop reads after the last term weighs nothing
        rssiCount += 1
    }

    /// One RSSI term per beacon observed, with the venue's beacon position, height and power.
    /// With a radio map, each term's map variance is taken `near` that point (the fit's start) when given.
    package func addRSSI(_ observations: [BeaconObservation], venue: Venue, near: Point? = nil) {
        for o in observations {
            let variance = near.flatMap { p in radioMap.map { $0.map.variance(beacon: o.beacon, at: p) } } ?? 0
            addRSSI(position: venue.beaconPositions[o.beacon], heightOffset: venue.beaconHeightOffset[o.beacon],
                    p0: venue.beaconP0[o.beacon], rssi: o.rssi, count: o.count, beacon: o.beacon, mapVariance: variance)
        }
    }

    /// One measured-range term: a distance ranged to a beacon at `position` (`heightOffset` above the phone), σ in metres.
    package func addMeasuredRange(position: Point, heightOffset: Double, distance: Double, sigma: Double) {
        let i = rangeCount
        precondition(i < termCapacity, "more range terms than beacons")
        ranged.x[i] = position.x; ranged.y[i] = position.y; ranged.heightOffset[i] = heightOffset; ranged.distance[i] = distance
        ranged.weight[i] = 1 / max(sigma, 1e-3)
        rangeCount += 1
    }

    /// One censored term per beacon of the venue not in `heard`: it was not heard in any of `advertisements`
    /// chances (1 with correlated shadowing: one draw per window).
    package func addCensored(venue: Venue, heard: BeaconSet, advertisements: Int) {
        let k = correlatedShadowing ? 1.0 : Double(max(advertisements, 1))
        for b in 0..<min(venue.beaconCount, termCapacity) where !heard.contains(b) {
            let i = censoredCount
            censored.x[i] = venue.beaconPositions[b].x; censored.y[i] = venue.beaconPositions[b].y
            censored.fan[i] = fanOrigin(of: venue.beaconPositions[b])
            censored.heightOffset[i] = venue.beaconHeightOffset[b]; censored.p0[i] = venue.beaconP0[b]; censored.missedAdvertisements[i] = k
            censoredCount += 1
        }
    }

    /// `position`'s fan in the walls' index (``HeardTerms/fan``), −1 without one.
    private func fanOrigin(of position: Point) -> Double {
        guard let walls, !walls.isEmpty, let k = walls.origin(of: position) else { return -1 }
        return Double(k)
    }

    package func addBearing(landmark: Point, headingDegrees: Double, sigmaDegrees: Double) {
        if bearingCount == bearingCapacity {
            let grown = max(2 * bearingCapacity, 4)
            let block = UnsafeMutablePointer<Double>.allocate(capacity: 4 * grown)
            let old = bearings
            for (k, column) in [old.x, old.y, old.heading, old.weight].enumerated() { (block + k * grown).update(from: column, count: bearingCount) }
            bearingBlock.deallocate()
            bearingBlock = block
            bearingCapacity = grown
        }
        let i = bearingCount
        let terms = bearings
        terms.x[i] = landmark.x; terms.y[i] = landmark.y; terms.heading[i] = headingDegrees * .pi / 180
        terms.weight[i] = 1 / (max(sigmaDegrees, 0.5) * .pi / 180)
        bearingCount += 1
    }

    /// The problem as it stands, frozen for one solve: what solvers evaluate.
    package var model: FixModel {
        FixModel(unknowns: unknowns, domain: domain, walls: walls, radioMap: radioMap, exponent: exponent, sigma: sigma, sensitivity: sensitivity,
                 packetLoss: packetLoss, dropout: dropout, truncated: truncatedMeans,
                 heard: heard, rssiCount: rssiCount, ranged: ranged, rangeCount: rangeCount,
                 censored: censored, censoredCount: censoredCount, bearings: bearings, bearingCount: bearingCount,
                 prior: estimatesOffset ? offsetPrior : nil, statePrior: statePrior, slopePoint: slopePoint)
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

/// A radio map held by reference, so that a ``FixModel`` (copied per evaluation) borrows it without copying its arrays.
package final class RadioMapBox: @unchecked Sendable {
    package let map: RadioMap
    package init(_ map: RadioMap) { self.map = map }
}
