import LabCore

/// Maximum likelihood with the phone's RSSI offset δ as a third unknown (DESIGN.md, "The field"): the fit
/// needs no calibration of the phone, only of the beacons.
///
///     RSSI_i = P0_i + δ − 10·n·log10 d_i (− walls) + X
///
/// (x, y, δ) by GSL's Levenberg–Marquardt, bearings to friezes joining as in ``FusionEstimator``. Started
/// from the power-weighted centroid with the δ that best fits there.
///
/// **Fallback with three beacons and no heading:** three readings fit three unknowns exactly, and the fix
/// swings with the noise. Then a weak prior δ ~ N(0, ``fallbackPriorSigma``²) — "phones read within about
/// 10 dB of the calibration phone" — makes the problem over-determined (a MAP estimate), and the fix says so
/// in nothing but its larger uncertainty. With four or more beacons (or a heading) there is no prior.
///
/// The variants below share this fit: with the venue's walls (multi-start, as in
/// ``FloorplanFusionEstimator``), with a Huber loss by iteratively reweighted least squares, and with
/// censored terms for the beacons of the venue that were not heard.
final class OffsetFreeFit {
    struct Options {
        var walls: Bool
        var robust: Bool
        var censored: Bool
        /// Carries what each scan says about δ to the next (``learned``), and models the heard means as truncated
        /// at the sensitivity (a weak phone's far beacons are heard only when the noise lifts them).
        var learns = false
    }

    /// The phone's offset as learned so far from the scans (a Gaussian: mean and variance, dB and dB²), when
    /// the fit learns: a one-state Kalman filter. Each fit uses it as a prior on δ; the scan's own evidence on δ
    /// (the fit's posterior with the prior divided out, in information form) is then its measurement, with a
    /// variance of at least ``minimumScanVariance`` and Huber-gated against scans whose fix went wrong.
    private(set) var learned: (mean: Double, variance: Double)?
    /// How much δ may wander between scans (the phone turns in the hand), dB² per scan: the posterior never
    /// becomes certain, so a wrong start is forgotten.
    static let offsetDriftPerScan = 0.01
    /// The learned variance never falls below this, dB² (σ 0.32 dB).
    static let learnedVarianceFloor = 0.1
    /// One scan tells δ to no better than 2 dB, whatever its fit says (walls, body and beacon spread are
    /// common to the scan's readings), dB².
    static let minimumScanVariance = 4.0
    /// Innovations beyond this many σ are down-weighted (Huber).
    static let gate = 2.5

    /// σ of the fallback prior on δ, dB.
    static let fallbackPriorSigma = 10.0
    /// Huber's tuning constant: 95% efficiency under Gaussian noise.
    static let huberK = 1.345
    /// Reweighting passes of the robust fit.
    static let robustPasses = 4

    let venue: Venue
    let options: Options
    let solver: FixSolver
    private var scratch: [Point] = []

    init(venue: Venue, options: Options) {
        self.venue = venue
        self.options = options
        solver = FixSolver(venue: venue, domain: .rssi, walls: options.walls ? venue.walls : nil, estimatesOffset: true)
        solver.truncatedMeans = options.learns
        scratch.reserveCapacity(venue.beaconCount)
    }

    /// A new phone: forget what was learned (or start from what the app knows about it).
    func startDevice(offset known: (mean: Double, sigma: Double)? = nil) {
        learned = known.map { ($0.mean, $0.sigma * $0.sigma) }
        varianceFloor = min(OffsetFreeFit.learnedVarianceFloor, known.map { $0.sigma * $0.sigma } ?? .infinity)
        drift = known == nil ? OffsetFreeFit.offsetDriftPerScan : 0
    }
    /// The learned variance's floor and the drift for this phone: an offset the app states keeps the σ it stated.
    private var varianceFloor = OffsetFreeFit.learnedVarianceFloor
    private var drift = OffsetFreeFit.offsetDriftPerScan

    func locate(_ observation: Observation) -> EstimateOutcome {
        if let problem = observation.problem(beaconCount: venue.beaconCount) { return .noFix(.invalidInput(problem)) }
        let obs = observation.beacons
        let headings = venue.friezes.isEmpty ? [] : observation.headings
        guard obs.count >= 3 || headings.count >= 2 else { return .noFix(.tooFewBeacons(heard: obs.count, needed: 3)) }
        if headings.isEmpty, let reason = RSSIFit.collinearity(venue: venue, beacons: obs, scratch: &scratch) { return .noFix(reason) }
        // Starting points: the power-weighted centroid (offset-free), and with walls also the strongest beacon
        // pulled 1 m toward it and the identified bearing lines' intersection.
        let centroid = obs.isEmpty ? nil : ClosedForm.powerCentroid(venue: venue, beacons: obs)
        var starts: [Point] = []
        if let centroid { starts.append(centroid) }
        let identified = headings.compactMap { h in h.frieze.map { (venue.landmarks[$0].position, h.heading, 1.0) } }
        if let b = ClosedForm.bearingIntersection(lines: identified) { starts.append(b) }
        if options.walls, let centroid, !venue.walls.isEmpty {
            let strongest = venue.beaconPositions[obs[0].beacon]
            let toward = centroid - strongest
            let d = toward.length
            if d > 1 { starts.append(strongest + toward / d) }
        }
        guard let first = starts.first else { return .noFix(.tooFewBeacons(heard: obs.count, needed: 3)) }

        solver.reset()
        solver.addRSSI(obs, venue: venue)
        if options.censored { solver.addCensored(venue: venue, heard: BeaconSet(obs.lazy.map(\.beacon)), advertisements: venue.radio.advertisementsPerWindow) }
        for h in headings {
            guard let f = h.frieze ?? FriezeMatcher.bestFrieze(for: h.heading, from: first, venue: venue) else { continue }
            solver.addBearing(landmark: venue.landmarks[f].position, headingDegrees: h.heading, sigmaDegrees: h.accuracy)
        }
        let fallback: (mean: Double, sigma: Double)? = obs.count + solver.bearingCount <= 3 ? (0, OffsetFreeFit.fallbackPriorSigma) : nil
        // The scan on its own (no learned prior): the fix when nothing is learned yet, and when learning, the
        // scan's independent measurement of δ — a fit that started from the learned δ could follow its own
        // mistakes (a wrong fix pulling δ, δ pulling the next fix).
        solver.offsetPrior = fallback
        guard var best = bestFit(starts: starts, offset: nil, beacons: obs) else { return .noFix(.solverFailed("no start converged")) }
        if let learned {
            let before = learned
            if fallback == nil, let v = best.offsetVariance, v > 0 { learn(from: best.offset, variance: v) }
            // The fix: this scan's data with what the earlier scans learned as the prior.
            solver.offsetPrior = (before.mean, (before.variance + drift).squareRoot())
            if let informed = bestFit(starts: [best.position], offset: before.mean, beacons: obs) { best = informed }
        } else if options.learns, fallback == nil, let v = best.offsetVariance, v > 0 {
            learn(from: best.offset, variance: v)
        }
        let p = venue.bounds.clamp(best.position)
        let inView = headings.last.flatMap { $0.frieze ?? FriezeMatcher.bestFrieze(for: $0.heading, from: p, venue: venue) }
        return .fix(Fix(position: p, uncertainty: best.covariance?.drms, beaconsUsed: BeaconSet(obs.lazy.map(\.beacon)),
                        frieze: inView, offset: best.offset))
    }

    /// The best fit over `starts` (δ from `offset`, or the closed form at each start), robust when asked.
    private func bestFit(starts: [Point], offset: Double?, beacons obs: [BeaconObservation]) -> FixSolver.Solution? {
        var best: FixSolver.Solution?
        for s in starts {
            let start = venue.bounds.clamp(s)
            guard case .success(var sol) = solver.solve(from: start, offset: offset ?? ClosedForm.offset(at: start, venue: venue, beacons: obs)) else { continue }
            if options.robust { sol = reweighted(sol) }
            if best == nil || sol.cost < best!.cost { best = sol }
            if !options.walls || venue.walls.isEmpty { break }   // the other starts are for wall-crossing ambiguity
        }
        return best
    }

    /// The Kalman update of ``learned`` from one scan's own estimate of δ and its variance.
    private func learn(from z: Double, variance: Double) {
        var r = max(variance, OffsetFreeFit.minimumScanVariance)
        guard let l = learned else { learned = (z, r); return }
        let p = l.variance + drift
        let u = abs(z - l.mean) / (p + r).squareRoot()
        if u > OffsetFreeFit.gate { r *= u / OffsetFreeFit.gate }
        let k = p / (p + r)
        learned = (l.mean + k * (z - l.mean), max((1 - k) * p, varianceFloor))
    }

    /// Huber IRLS: a reading u σ's from the model gets weight min(1, k/|u|); refit; repeat.
    private func reweighted(_ start: FixSolver.Solution) -> FixSolver.Solution {
        var sol = start
        for _ in 0..<OffsetFreeFit.robustPasses {
            var changed = false
            for i in 0..<solver.rssiCount {
                let u = abs(solver.standardisedRSSIResidual(i, at: sol) * solver.sigma * solver.bweight[i])
                let w = u > OffsetFreeFit.huberK ? (OffsetFreeFit.huberK / u).squareRoot() : 1
                if abs(w - solver.brobust[i]) > 1e-3 { changed = true }
                solver.brobust[i] = w
            }
            guard changed, case .success(let next) = solver.solve(from: sol.position, offset: sol.offset) else { break }
            sol = next
        }
        return sol
    }
}

/// ``OffsetFreeFit`` in free space: (x, y, δ), no walls.
public final class OffsetFreeEstimator: PositionEstimator {
    public static let name = "offset-free"
    public static let summary = "maximum likelihood of position and phone offset together (GSL, 3 unknowns), free space"
    public static let inputs = EstimatorInputs(uses: [.rssi, .headings], minimumBeacons: 3, minimumHeadings: 2)
    let fit: OffsetFreeFit
    public init(venue: Venue) { fit = OffsetFreeFit(venue: venue, options: .init(walls: false, robust: false, censored: false)) }
    public func locate(_ observation: Observation) -> EstimateOutcome { fit.locate(observation) }
}

/// ``OffsetFreeFit`` with the venue's walls in the model (multi-start).
public final class OffsetFreeFloorplanEstimator: PositionEstimator {
    public static let name = "offset-free-floorplan"
    public static let summary = "offset-free maximum likelihood whose model includes the walls crossed (multi-start)"
    public static let inputs = EstimatorInputs(uses: [.rssi, .headings, .walls], minimumBeacons: 3, minimumHeadings: 2)
    let fit: OffsetFreeFit
    public init(venue: Venue) { fit = OffsetFreeFit(venue: venue, options: .init(walls: true, robust: false, censored: false)) }
    public func locate(_ observation: Observation) -> EstimateOutcome { fit.locate(observation) }
}

/// ``OffsetFreeFloorplanEstimator`` with Huber's loss (k = 1.345) by iteratively reweighted least squares:
/// multipath outliers and body shadowing lose their pull.
public final class RobustEstimator: PositionEstimator {
    public static let name = "robust"
    public static let summary = "offset-free floorplan fit with a Huber loss (iteratively reweighted), for outliers"
    public static let inputs = EstimatorInputs(uses: [.rssi, .headings, .walls], minimumBeacons: 3, minimumHeadings: 2)
    let fit: OffsetFreeFit
    public init(venue: Venue) { fit = OffsetFreeFit(venue: venue, options: .init(walls: true, robust: true, censored: false)) }
    public func locate(_ observation: Observation) -> EstimateOutcome { fit.locate(observation) }
}

/// ``OffsetFreeFloorplanEstimator`` that also counts the beacons it did not hear: each is a reading below the
/// sensitivity in every advertisement of the window (a censored likelihood), which says "not near that one".
public final class CensoredEstimator: PositionEstimator {
    public static let name = "censored"
    public static let summary = "offset-free floorplan fit where unheard beacons count as readings below the sensitivity"
    public static let inputs = EstimatorInputs(uses: [.rssi, .headings, .walls], minimumBeacons: 3, minimumHeadings: 2)
    let fit: OffsetFreeFit
    public init(venue: Venue) { fit = OffsetFreeFit(venue: venue, options: .init(walls: true, robust: false, censored: true)) }
    public func locate(_ observation: Observation) -> EstimateOutcome { fit.locate(observation) }
}

/// ``OffsetFreeFloorplanEstimator`` with Huber's loss that **learns the phone**: each scan's fit starts from
/// the offset learned so far as a prior, N(mean, variance + drift), and leaves its posterior for the next.
/// The offset's σ falls as about 1/√(scans), so after a few dozen scans the fit is nearly the known-offset
/// one; the tournament tells it when a new phone starts (``PositionEstimator/startDevice()``).
public final class OffsetLearningEstimator: PositionEstimator {
    public static let name = "offset-learning"
    public static let summary = "robust offset-free floorplan fit that learns the phone's offset over the scans (posterior carried forward)"
    public static let inputs = EstimatorInputs(uses: [.rssi, .headings, .walls], minimumBeacons: 3, minimumHeadings: 2)
    let fit: OffsetFreeFit
    public init(venue: Venue) { fit = OffsetFreeFit(venue: venue, options: .init(walls: true, robust: false, censored: false, learns: true)) }
    public func locate(_ observation: Observation) -> EstimateOutcome { fit.locate(observation) }
    public func startDevice() { fit.startDevice() }
    /// A new phone whose offset the app knows: δ ~ N(mean, sigma²) to start from.
    public func startDevice(knownOffset mean: Double, sigma: Double) { fit.startDevice(offset: (mean, sigma)) }
    /// The offset learned so far: mean and σ, dB.
    public var learnedOffset: (mean: Double, sigma: Double)? { fit.learned.map { ($0.mean, $0.variance.squareRoot()) } }
}

extension EstimatorKind {
    public static let offsetLearning = EstimatorKind(OffsetLearningEstimator.self)
    public static let offsetFree = EstimatorKind(OffsetFreeEstimator.self)
    public static let offsetFreeFloorplan = EstimatorKind(OffsetFreeFloorplanEstimator.self)
    public static let robust = EstimatorKind(RobustEstimator.self)
    public static let censored = EstimatorKind(CensoredEstimator.self)
}
