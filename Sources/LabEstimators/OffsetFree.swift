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
    }

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
        scratch.reserveCapacity(venue.beaconCount)
    }

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
        if obs.count + solver.bearingCount <= 3 { solver.offsetPrior = (0, OffsetFreeFit.fallbackPriorSigma) }

        var best: FixSolver.Solution?
        for s in starts {
            let start = venue.bounds.clamp(s)
            guard case .success(var sol) = solver.solve(from: start, offset: ClosedForm.offset(at: start, venue: venue, beacons: obs)) else { continue }
            if options.robust { sol = reweighted(sol) }
            if best == nil || sol.cost < best!.cost { best = sol }
            if !options.walls { break }
        }
        guard let best else { return .noFix(.solverFailed("no start converged")) }
        let p = venue.bounds.clamp(best.position)
        let inView = headings.last.flatMap { $0.frieze ?? FriezeMatcher.bestFrieze(for: $0.heading, from: p, venue: venue) }
        return .fix(Fix(position: p, uncertainty: best.covariance?.drms, beaconsUsed: BeaconSet(obs.lazy.map(\.beacon)),
                        frieze: inView, offset: best.offset))
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

extension EstimatorKind {
    public static let offsetFree = EstimatorKind(OffsetFreeEstimator.self)
    public static let offsetFreeFloorplan = EstimatorKind(OffsetFreeFloorplanEstimator.self)
    public static let robust = EstimatorKind(RobustEstimator.self)
    public static let censored = EstimatorKind(CensoredEstimator.self)
}
