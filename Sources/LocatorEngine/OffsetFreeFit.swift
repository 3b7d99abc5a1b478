import LabCore
import Foundation

/// Maximum likelihood with the phone's RSSI offset δ as a third unknown (docs/scenario-format.md, "radio.field"): the fit
/// needs no calibration of the phone, only of the beacons.
///
///     RSSI_i = P0_i + δ − 10·n·log10 d_i (− walls) + X
///
/// (x, y, δ) by Levenberg–Marquardt (GSL's in the lab, ``LevenbergMarquardt`` in the shipped library), bearings
/// to friezes joining as in the lab's fusion estimator. Started
/// from the power-weighted centroid with the δ that best fits there.
///
/// **Fallback with three beacons and no heading:** three readings fit three unknowns exactly, and the fix
/// swings with the noise. Then a weak prior δ ~ N(0, ``fallbackPriorSigma``²) — "phones read within about
/// 10 dB of the calibration phone" — makes the problem over-determined (a MAP estimate), and the fix says so
/// in nothing but its larger uncertainty. With four or more beacons (or a heading) there is no prior.
///
/// The lab's offset-free estimators share this fit: free space, with the venue's walls (multi-start), with a
/// Huber loss by iteratively reweighted least squares, with censored terms for the beacons of the venue that
/// were not heard, and learning the phone (the best snapshot estimator, the library's one-scan fix).
package final class OffsetFreeFit {
    package struct Options {
        package var walls: Bool
        package var robust: Bool
        package var censored: Bool
        /// Carries what each scan says about δ to the next (``learned``).
        package var learns = false
        /// Models the heard means as truncated at the sensitivity (a weak phone's far beacons are heard only when
        /// the noise lifts them).
        package var truncatedMeans = false
        /// States the likelihood-ratio region scaled by the learned ``residualScale`` instead of the linearised
        /// covariance (``statedCovariance(_:linear:)``).
        package var statesRegion = false
        /// Weighs the walker's body (``Venue/body``) when the phone's steps tell which way the walker faces: each heard
        /// beacon's reading is corrected by the body's extra loss given that heading (``bodyCorrected(_:ranges:headings:from:)``).
        package var weighsBody = false
        /// Answers a scan of one or two beacons, or of beacons in a line, whenever its readings and the venue determine
        /// one position (``locateFew(_:ranges:headings:heard:)``); otherwise such a scan gets no fix.
        package var answersFewBeacons = false
        package init(walls: Bool, robust: Bool, censored: Bool, learns: Bool = false, truncatedMeans: Bool = false, statesRegion: Bool = false,
                     weighsBody: Bool = false, answersFewBeacons: Bool = false) {
            self.walls = walls; self.robust = robust; self.censored = censored; self.learns = learns
            self.truncatedMeans = truncatedMeans; self.statesRegion = statesRegion; self.weighsBody = weighsBody
            self.answersFewBeacons = answersFewBeacons
        }
        /// The tournament's best snapshot estimator and the library's one-scan fix (`offset-learning`): walls in the model,
        /// the phone learned over the scans, truncated heard means, an honest stated region, the body weighed, and an
        /// answer from fewer than three beacons where they determine one.
        package static let learning = Options(walls: true, robust: false, censored: false, learns: true, truncatedMeans: true, statesRegion: true,
                                              weighsBody: true, answersFewBeacons: true)
    }

    /// The phone's offset as learned so far from the scans (a Gaussian: mean and variance, dB and dB²), when
    /// the fit learns: a one-state Kalman filter. Each fit uses it as a prior on δ; the scan's own evidence on δ
    /// (the fit's posterior with the prior divided out, in information form) is then its measurement, with a
    /// variance of at least ``minimumScanVariance`` and Huber-gated against scans whose fix went wrong.
    package internal(set) var learned: (mean: Double, variance: Double)? { get { state.pointee.learned } set { state.pointee.learned = newValue } }
    /// How much δ may wander between scans (the phone turns in the hand), dB² per scan: the posterior never
    /// becomes certain, so a wrong start is forgotten.
    package static let offsetDriftPerScan = 0.01
    /// The learned variance never falls below this, dB² (σ 0.32 dB).
    package static let learnedVarianceFloor = 0.1
    /// One scan tells δ to no better than 2 dB, whatever its fit says (walls, body and beacon spread are
    /// common to the scan's readings), dB².
    package static let minimumScanVariance = 4.0
    /// Innovations beyond this many σ are down-weighted (Huber).
    package static let gate = 2.5

    /// σ of the fallback prior on δ, dB.
    package static let fallbackPriorSigma = 10.0
    /// Huber's tuning constant: 95% efficiency under Gaussian noise.
    package static let huberK = 1.345
    /// Reweighting passes of the robust fit.
    package static let robustPasses = 4
    /// The readings beyond the unknowns a scan needs before the robust fit reweighs them (``reweighted(_:)``): two, so
    /// five RSSI readings for (x, y, δ). The particle filter starts and resets its cloud from this fit, and with one
    /// reading to spare reweighting cannot tell an outlier and can start a walk far off (docs/tracking.md, "A lost
    /// cloud").
    package static let robustSpareReadings = 2

    package let venue: Venue
    package let options: Options
    /// The linearised covariance of the last fix ``locate(_:ranges:)`` gave (before the stated region widened it).
    package internal(set) var linearCovariance: Covariance2? { get { state.pointee.linearCovariance } set { state.pointee.linearCovariance = newValue } }
    /// The same over (x, y, δ), when δ was estimated: how the fix slides with δ (a phone read weaker puts it nearer
    /// the beacons).
    package internal(set) var linearFull: Symmetric3? { get { state.pointee.linearFull } set { state.pointee.linearFull = newValue } }
    package let problem: FixProblem

    /// What the fit learns and reuses from scan to scan, in one block the class holds by a `let` pointer: read and changed
    /// through it, it costs no exclusivity check (each access to a class's stored `var` does, with a thread-local lookup,
    /// and a fix makes many: docs/speed.md, "How and why").
    struct State {
        var learned: (mean: Double, variance: Double)?
        var linearCovariance: Covariance2?, linearFull: Symmetric3?
        var varianceFloor = OffsetFreeFit.learnedVarianceFloor, drift = OffsetFreeFit.offsetDriftPerScan
        var facing: (heading: Double, sigma: Double)?
        var scaleCost = 0.0, scaleDegrees = 0.0
        /// The collinearity check's workspace, and its last answer with the beacons it was for (``collinearity(_:ranges:heard:)``).
        var scratch: [Point] = []
        var lastGeometry: (heard: BeaconSet, reason: NoFixReason?)?
        /// The other starts' minima of the scan's own fit (position, cost): rivals the stated region takes in.
        var rivals: [(position: Point, cost: Double)] = []
        /// The starting points of the fit being made.
        var starts: [Point] = []
        /// The body-corrected readings (``bodyCorrected(_:facing:at:)``).
        var corrected: [BeaconObservation] = []
    }
    let state: UnsafeMutablePointer<State> = {
        let p = UnsafeMutablePointer<State>.allocate(capacity: 1)
        p.initialize(to: State())
        return p
    }()

    /// A fit of `venue` with these options whose least squares `solver` minimises.
    package init(venue: Venue, options: Options, solver: any LeastSquaresSolver) {
        self.venue = venue
        self.options = options
        problem = FixProblem(venue: venue, domain: .rssi, walls: options.walls ? venue.walls : nil, estimatesOffset: true, solver: solver)
        problem.truncatedMeans = options.truncatedMeans
        state.pointee.scratch.reserveCapacity(venue.beaconCount)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// A new phone: forget what was learned (or start from what the app knows about it).
    package func startDevice(offset known: (mean: Double, sigma: Double)? = nil) {
        learned = known.map { ($0.mean, $0.sigma * $0.sigma) }
        startTrack()
        varianceFloor = min(OffsetFreeFit.learnedVarianceFloor, known.map { $0.sigma * $0.sigma } ?? .infinity)
        drift = known == nil ? OffsetFreeFit.offsetDriftPerScan : 0
    }
    /// The learned variance's floor and the drift for this phone: an offset the app states keeps the σ it stated.
    private var varianceFloor: Double { get { state.pointee.varianceFloor } set { state.pointee.varianceFloor = newValue } }
    var drift: Double { get { state.pointee.drift } set { state.pointee.drift = newValue } }

    /// The fix for one scan: its RSSI readings and headings, and — in the library — distances ranged to beacons,
    /// which join the same likelihood (they say nothing about δ).
    package func locate(_ observation: Observation, ranges: [MeasuredRange] = []) -> EstimateOutcome {
        linearCovariance = nil; linearFull = nil
        if let problem = observation.problem(beaconCount: venue.beaconCount) { return .noFix(.invalidInput(problem)) }
        var obs = observation.beacons
        let headings = venue.friezes.isEmpty ? [] : observation.headings
        let heard = obs.count + ranges.count
        noteFacing(observation)
        guard heard >= 3 || headings.count >= 2 else {
            return options.answersFewBeacons && heard > 0 ? locateFew(obs, ranges: ranges, headings: headings)
                : .noFix(.tooFewBeacons(heard: heard, needed: 3))
        }
        let heardSet = BeaconSet(obs.lazy.map(\.beacon))
        if headings.isEmpty, let reason = collinearity(obs, ranges: ranges, heard: heardSet) {
            return options.answersFewBeacons ? locateFew(obs, ranges: ranges, headings: headings) : .noFix(reason)
        }
        // Starting points: the power-weighted centroid (offset-free; with ranges only, the centroid weighted by
        // 1/ρ²), and with walls also the strongest beacon pulled 1 m toward it and the identified bearing lines'
        // intersection.
        let centroid = obs.isEmpty ? ClosedForm.rangeCentroid(venue: venue, ranges: ranges) : ClosedForm.powerCentroid(venue: venue, beacons: obs)
        state.pointee.starts.removeAll(keepingCapacity: true)
        if let centroid { state.pointee.starts.append(centroid) }
        if headings.contains(where: { $0.frieze != nil }) {
            let identified = headings.compactMap { h in h.frieze.map { (venue.landmarks[$0].position, h.heading, 1.0) } }
            if let b = ClosedForm.bearingIntersection(lines: identified) { state.pointee.starts.append(b) }
        }
        if options.walls, let centroid, !obs.isEmpty, !venue.walls.isEmpty {
            let strongest = venue.beaconPositions[obs[0].beacon]
            let toward = centroid - strongest
            let d = toward.length
            if d > 1 { state.pointee.starts.append(strongest + toward / d) }
        }
        guard let first = state.pointee.starts.first else { return .noFix(.tooFewBeacons(heard: heard, needed: 3)) }

        if let corrected = bodyCorrected(obs, ranges: ranges, headings: headings, from: first) { obs = corrected }
        loadTerms(obs, ranges: ranges, headings: headings, matchingFrom: first)
        // δ needs a prior when the scan cannot tell it: no RSSI at all, or no more terms than unknowns.
        let fallback = fallbackPrior(rssi: obs.count, heard: heard)
        // The scan on its own (no learned prior): the fix when nothing is learned yet, and when learning, the
        // scan's independent measurement of δ — a fit that started from the learned δ could follow its own
        // mistakes (a wrong fix pulling δ, δ pulling the next fix).
        problem.offsetPrior = fallback
        state.pointee.rivals.removeAll(keepingCapacity: true)
        guard var best = bestFit(starts: state.pointee.starts, offset: nil, beacons: obs, collectingRivals: true) else {
            return .noFix(.solverFailed("no start converged"))
        }
        if let learned, !obs.isEmpty {
            let before = learned
            if fallback == nil, let v = best.offsetVariance, v > 0 { learn(from: best.offset, variance: v) }
            // The fix: this scan's data with what the earlier scans learned as the prior, from the scan fit moved by one
            // Newton step of the prior's pull (``informedStart(from:prior:scanPrior:)``).
            let prior = (mean: before.mean, sigma: (before.variance + drift).squareRoot())
            problem.offsetPrior = prior
            let start = informedStart(from: best, prior: prior, scanPrior: fallback)
            state.pointee.starts.removeAll(keepingCapacity: true)
            state.pointee.starts.append(start.position)
            if let informed = bestFit(starts: state.pointee.starts, offset: start.offset, startStep: start.step, beacons: obs) { best = informed }
        } else if options.learns, fallback == nil, let v = best.offsetVariance, v > 0 {
            learn(from: best.offset, variance: v)
        }
        let p = venue.bounds.clamp(best.position)
        linearCovariance = best.covariance
        linearFull = best.full
        // The shipped fit states an honest region; the lab's other offset-free fits keep the linearised covariance.
        let covariance = options.statesRegion ? best.covariance.map { statedCovariance(best, linear: $0) } : best.covariance
        let inView = headings.last.flatMap { $0.frieze ?? FriezeMatcher.bestFrieze(for: $0.heading, from: p, venue: venue) }
        var used = heardSet
        for r in ranges { used.insert(r.beacon) }
        return .fix(Fix(position: p, uncertainty: covariance?.drms, beaconsUsed: used,
                        frieze: inView, offset: obs.isEmpty ? nil : best.offset, covariance: covariance))
    }

    /// ``GeometryChecks/collinearity(venue:beacons:ranges:scratch:)`` for the heard beacons `obs` (the set `heard`) and
    /// `ranges`: its answer is kept for the next scan that hears the same beacons and ranges none, as a phone hears mostly
    /// the same beacons scan after scan (in a venue of at most 128 beacons, whose sets say exactly which were heard).
    private func collinearity(_ obs: [BeaconObservation], ranges: [MeasuredRange], heard: BeaconSet) -> NoFixReason? {
        let keyed = ranges.isEmpty && venue.beaconCount <= 128
        if keyed, let last = state.pointee.lastGeometry, last.heard == heard { return last.reason }
        let reason = GeometryChecks.collinearity(venue: venue, beacons: obs, ranges: ranges, scratch: &state.pointee.scratch)
        if keyed { state.pointee.lastGeometry = (heard, reason) }
        return reason
    }

    /// Where the informed fit starts. When the scan fit `s` came with the exact Hessian (``NormalEquations/exactCurvature``:
    /// the library's solver, in a venue without walls) and without a prior of its own (`scanPrior`, the fallback prior of a
    /// scan with too few terms), one Newton step of its cost with the offset `prior` added, from where those equations were
    /// evaluated (the scan fit, or the point one unevaluated Newton step before it): the prior's pull, δ toward the learned
    /// mean and the position along with it, plus that unevaluated step if there was one. It lands within about its square
    /// of the informed minimum, where the solver finishes in Newton's steps (`step`, the step's relative size, tells it how
    /// near). Otherwise — and when that matrix is not positive definite — the scan fit's position with the prior's mean:
    /// a Gauss–Newton step would land nearer the minimum but not within the step tolerance of it, and GSL, which stops on
    /// its first step under that tolerance, would stop there, millimetres from the library's fix (docs/speed.md,
    /// "Alternatives considered").
    private func informedStart(from s: FixProblem.Solution, prior: (mean: Double, sigma: Double),
                               scanPrior: (mean: Double, sigma: Double)?) -> (position: Point, offset: Double, step: Double?) {
        let fallback = (s.position, prior.mean, nil as Double?)
        // The scan fit's normal equations, when it was the problem's last solve (one start, no reflection: a smooth venue).
        guard scanPrior == nil, let last = problem.lastNormal, last.position == s.position, last.offset == s.offset,
              case let normal = last.normal, normal.exactCurvature,
              let v = LevenbergMarquardt.newtonStep(normal.addingOffsetPrior(mean: prior.mean, sigma: prior.sigma, at: last.evaluatedOffset), three: true)
        else { return fallback }
        let position = Point(last.evaluatedAt.x + v.0, last.evaluatedAt.y + v.1), offset = last.evaluatedOffset + v.2
        guard position.isFinite, offset.isFinite else { return fallback }
        return (position, offset, LevenbergMarquardt.relativeSize(v.0, v.1, v.2, of: position.x, position.y, offset + FixModel.offsetShift, three: true))
    }

    /// The last scan's ridge: for each of `offsets` (increasing, around the fix's δ), where its terms put the phone with
    /// δ held there (a prior of 0.1 dB), each solved from its neighbour nearer `fix` (and that neighbour's point where a
    /// solve fails). A phone read weaker is nearer the beacons: far along the ridge the position follows δ non-linearly
    /// (every distance scales by 10^(Δδ / 10n)), which a slope through the fix's covariance would not. Call right after
    /// ``locate(_:ranges:)`` gave `fix`: it reuses that scan's terms and leaves the problem's prior changed (the next
    /// locate resets it).
    package func ridge(through offsets: [Double], fix: Fix) -> [Point] {
        guard let delta = fix.offset else { return offsets.map { _ in fix.position } }
        var out = [Point](repeating: fix.position, count: offsets.count)
        let middle = offsets.firstIndex { $0 >= delta } ?? offsets.count
        for order in [Array((middle..<offsets.count)), Array((0..<middle).reversed())] {
            var from = fix.position
            for k in order {
                problem.offsetPrior = (offsets[k], 0.1)
                if case .success(let sol) = problem.solve(from: venue.bounds.clamp(from), offset: offsets[k]) {
                    from = venue.bounds.clamp(sol.position)
                }
                out[k] = from
            }
        }
        return out
    }

    /// The prior δ needs when the loaded scan cannot tell it (no RSSI at all, or no more terms than unknowns: `heard`
    /// readings and ranges, and the problem's bearings); nil when it can.
    private func fallbackPrior(rssi: Int, heard: Int) -> (mean: Double, sigma: Double)? {
        rssi == 0 || heard + problem.bearingCount <= 3 ? (0, OffsetFreeFit.fallbackPriorSigma) : nil
    }

    /// Which way the walker faces, as the phone's steps told: the last step's heading (degrees) and its σ (degrees:
    /// the step's own and the compass's bias), kept while a phone with a step detector reports no step (the walker
    /// stands) and forgotten by a scan without a step detector or a new track. Frieze headings do not set it: a phone
    /// pointed at a frieze need not face where the walker's body does.
    private var facing: (heading: Double, sigma: Double)? { get { state.pointee.facing } set { state.pointee.facing = newValue } }
    /// The compass's bias σ a step heading carries on top of its own, degrees (the trackers' ``MotionModel``'s).
    private static let compassBiasSigma = MotionModel().stepBiasSigma

    /// The same phone moved arbitrarily (a new track): where the walker faced is forgotten.
    package func startTrack() { facing = nil }

    private func noteFacing(_ o: Observation) {
        guard options.weighsBody, !venue.body.isNone else { return }
        if let step = o.steps?.last {
            facing = (step.heading, (step.headingAccuracy * step.headingAccuracy + OffsetFreeFit.compassBiasSigma * OffsetFreeFit.compassBiasSigma).squareRoot())
        } else if o.steps == nil {
            facing = nil
        }
    }

    /// The heard beacons' readings corrected by the body's extra loss (``BodyShadowing/extraLoss(probability:)``) when
    /// the walker's facing is known: its sector, blurred by the heading's σ, placed at a first fit of the scan without
    /// the body (from the same starts as the main fit: one more multi-start solve per scan; `first`, the power-weighted
    /// centroid, if none converges). The correction made there holds over the whole fit, its rivals and its stated
    /// region. The corrected readings are no longer sorted strongest first (nothing after this reads their order).
    /// Nil when the facing is not known.
    ///
    /// The model error keeps the body's unknown-heading share: a step's heading is known to about 20° (the compass's
    /// bias), so the sector's edges stay uncertain, and taking the share out makes the stated regions overconfident
    /// (docs/library.md, "The body, when the phone says which way the walker faces"). The truncated-means model
    /// compares a corrected reading with the unchanged sensitivity (an approximation: the body moves the mean, not the
    /// receiver).
    private func bodyCorrected(_ obs: [BeaconObservation], ranges: [MeasuredRange], headings: [HeadingReading], from first: Point) -> [BeaconObservation]? {
        // `starts` is the main fit's list (built by `locate`); it is read here, not changed.
        guard let facing, !obs.isEmpty else { return nil }
        loadTerms(obs, ranges: ranges, headings: headings, matchingFrom: first)
        problem.offsetPrior = fallbackPrior(rssi: obs.count, heard: obs.count + ranges.count)
        let at = bestFit(starts: state.pointee.starts, offset: nil, beacons: obs)?.position ?? first   // the main fit's starts, untouched
        return bodyCorrected(obs, facing: facing, at: at)
    }

    /// The readings `obs` of a phone at `at` corrected by the body's extra loss, the walker facing `facing.heading`
    /// (degrees, σ `facing.sigma`): each beacon's chance of lying in the sector behind the walker, blurred by the
    /// heading's σ, moves its reading by ``BodyShadowing/extraLoss(probability:)``.
    private func bodyCorrected(_ obs: [BeaconObservation], facing: (heading: Double, sigma: Double), at: Point) -> [BeaconObservation] {
        let body = venue.body
        let sector = body.sector(headingSigma: facing.sigma)
        let hx = sin(facing.heading * .pi / 180), hy = cos(facing.heading * .pi / 180)
        state.pointee.corrected.removeAll(keepingCapacity: true)   // reused: the caller's copy of the last scan's is gone by now
        for o in obs {
            let b = venue.beaconPositions[o.beacon]
            let dx = at.x - b.x, dy = at.y - b.y, h = (dx * dx + dy * dy).squareRoot()
            let q = h > 1e-9 ? sector.probability(cosineFromBack: (dx * hx + dy * hy) / h) : body.share
            state.pointee.corrected.append(BeaconObservation(beacon: o.beacon, rssi: o.rssi + body.extraLoss(probability: q), count: o.count))
        }
        return state.pointee.corrected
    }

    /// A tracker's measurement update (the iterated extended Kalman filter's, ``KalmanTracker``): this scan's terms
    /// with the tracker's prediction as a Gaussian prior on (x, y, δ), solved from the prediction and — so that a
    /// track gone wrong can come back when the scan clearly says so — from the power-weighted centroid; robust when
    /// the options say. The prior keeps the problem determined whatever was heard, so one or two beacons (or none)
    /// still update it. Nil when the observation is unusable or no start converged.
    ///
    /// With `facing` (the walker's heading as the tracker knows it, degrees, and its σ) and a venue with a body, the
    /// readings are corrected by the body's extra loss at the prediction (``bodyCorrected(_:facing:at:)``).
    package func update(_ observation: Observation, ranges: [MeasuredRange] = [], prior: StatePrior,
                        facing: (heading: Double, sigma: Double)? = nil) -> FixProblem.Solution? {
        guard observation.problem(beaconCount: venue.beaconCount) == nil else { return nil }
        let predicted = Point(prior.x, prior.y)
        var obs = observation.beacons
        if let facing, !venue.body.isNone, !obs.isEmpty { obs = bodyCorrected(obs, facing: facing, at: predicted) }
        loadTerms(obs, ranges: ranges, headings: venue.friezes.isEmpty ? [] : observation.headings, matchingFrom: predicted)
        problem.statePrior = prior
        state.pointee.starts.removeAll(keepingCapacity: true)
        state.pointee.starts.append(predicted)
        if obs.count >= 3 { state.pointee.starts.append(ClosedForm.powerCentroid(venue: venue, beacons: obs)) }
        state.pointee.rivals.removeAll(keepingCapacity: true)
        return bestFit(starts: state.pointee.starts, offset: prior.delta, beacons: obs, everyStart: true)
    }

    /// Loads one scan's terms into the problem: RSSI, measured ranges, censored terms (when the options say) and
    /// bearings (unidentified friezes matched from `matchingFrom`).
    func loadTerms(_ obs: [BeaconObservation], ranges: [MeasuredRange], headings: [HeadingReading], matchingFrom first: Point) {
        problem.reset()
        problem.addRSSI(obs, venue: venue, near: first)
        for r in ranges {
            problem.addMeasuredRange(position: venue.beaconPositions[r.beacon], heightOffset: venue.beaconHeightOffset[r.beacon],
                                     distance: r.distance, sigma: r.sigma)
        }
        if options.censored { problem.addCensored(venue: venue, heard: BeaconSet(obs.lazy.map(\.beacon)), advertisements: venue.radio.advertisementsPerWindow) }
        for h in headings {
            guard let f = h.frieze ?? FriezeMatcher.bestFrieze(for: h.heading, from: first, venue: venue) else { continue }
            problem.addBearing(landmark: venue.landmarks[f].position, headingDegrees: h.heading, sigmaDegrees: h.accuracy)
        }
    }

    /// The best fit over `starts` (δ from `offset`, or the closed form at each start; `startStep` the relative size of the
    /// Newton step that led to the first, ``FixProblem/solve(from:offset:startStep:maxIterations:)``), robust when asked; the
    /// losing starts' minima go to ``rivals`` when `collectingRivals`. Without walls only the first start is
    /// tried (the others are for wall-crossing ambiguity) unless `everyStart`.
    ///
    /// A best minimum outside the venue is tried again from its mirror image inside (``Rect/reflect(_:)``), the lower
    /// cost winning. With the beacons nearly in a line, as along a corridor's walls, the distance from that line and δ
    /// trade off, and the fit can settle beyond a wall, mirroring the readings' own minimum inside. With exact readings
    /// in a corridor 2 m wide with beacons on alternate walls, the reflection leaves two of its 145 points off
    /// (`IndoorLocatorAPITests.aCorridorFixesWhereTheReadingsWereMade`). Those need a start beyond the reflection, and
    /// the starts tried for them (across the venue's middle, across the beacons' line) are far from the fit in a large
    /// venue, where GSL's path and the pure-Swift solver's part, so they are not made (docs/speed.md, "Alternatives
    /// considered").
    private func bestFit(starts: [Point], offset: Double?, startStep: Double? = nil, beacons obs: [BeaconObservation],
                         collectingRivals: Bool = false, everyStart: Bool = false) -> FixProblem.Solution? {
        var best: FixProblem.Solution?
        func tryStart(_ s: Point, step: Double? = nil) {
            let start = venue.bounds.clamp(s)
            guard case .success(var sol) = problem.solve(from: start, offset: offset ?? ClosedForm.offset(at: start, venue: venue, beacons: obs),
                                                         startStep: start == s ? step : nil) else { return }
            if options.robust { sol = reweighted(sol) }
            if collectingRivals, let b = best { state.pointee.rivals.append(sol.cost < b.cost ? (b.position, b.cost) : (sol.position, sol.cost)) }
            if best == nil || sol.cost < best!.cost { best = sol }
        }
        for (k, s) in starts.enumerated() {
            tryStart(s, step: k == 0 ? startStep : nil)
            if !everyStart && (!options.walls || venue.walls.isEmpty) { break }
        }
        if let outside = best?.position, !venue.bounds.contains(outside) { tryStart(venue.bounds.reflect(outside)) }
        return best
    }

    /// How much larger the residuals run than the radio model's σ says, learned over the scans as
    /// s² = (ν₀ + Σ λᵏ costₖ) / (ν₀ + Σ λᵏ dofₖ): the cost and degrees of freedom of recent scans, with
    /// ``scalePriorDegrees`` degrees of freedom at 1 and a memory of ``scaleMemory`` per scan. What the model
    /// leaves out — beacons that differ from their calibration, the body, multipath — shows up here, so the
    /// stated uncertainty grows with it. Never below 1. Kept across phones: it describes the venue.
    package var residualScale: Double { max((OffsetFreeFit.scalePriorDegrees + scaleCost) / (OffsetFreeFit.scalePriorDegrees + scaleDegrees), 1) }
    private var scaleCost: Double { get { state.pointee.scaleCost } set { state.pointee.scaleCost = newValue } }
    private var scaleDegrees: Double { get { state.pointee.scaleDegrees } set { state.pointee.scaleDegrees = newValue } }
    package static let scalePriorDegrees = 5.0
    package static let scaleMemory = 0.98

    /// The covariance a fix states: the linearised one widened to the likelihood-ratio region
    /// (``FixProblem/likelihoodRegion(_:covariance:threshold:within:)``) at the 95% level scaled by ``residualScale``;
    /// then this scan's cost joins the learned scale.
    func statedCovariance(_ s: FixProblem.Solution, linear: Covariance2) -> Covariance2 {
        let scale = residualScale
        let dof = problem.residualCount - problem.unknowns
        if dof > 0, s.cost.isFinite {
            scaleCost = OffsetFreeFit.scaleMemory * scaleCost + s.cost
            scaleDegrees = OffsetFreeFit.scaleMemory * scaleDegrees + Double(dof)
        }
        let threshold = OffsetFreeFit.chiSquare95 * scale
        let region = problem.likelihoodRegion(s, covariance: linear, threshold: threshold, within: venue.bounds)
        var c = region.scaled(by: scale)
        // Another minimum the data cannot rule out (within the threshold of this one's cost, e.g. the other side
        // of a wall) joins the region: C + v vᵀ/χ² holds the point at v inside its ellipse (Sherman–Morrison).
        let reported = venue.bounds.clamp(s.position)
        for r in state.pointee.rivals where r.cost - s.cost < threshold {
            let v = venue.bounds.clamp(r.position) - reported
            c = c.adding(outer: v, over: OffsetFreeFit.chiSquare95)
        }
        return c
    }
    /// The confidence the stated region is meant to hold the truth with.
    package static let statedConfidence = 0.95
    /// χ² with 2 degrees of freedom at ``statedConfidence``.
    package static let chiSquare95 = Covariance2.chiSquare2(statedConfidence)

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

    /// Huber IRLS: a reading u σ's from the model gets weight min(1, k/|u|); refit; repeat. Only with at least
    /// ``robustSpareReadings`` RSSI readings beyond the unknowns: with fewer, the fit passes (nearly) through every
    /// reading, no reading can be told an outlier, and down-weighting one leaves as many equations as unknowns.
    private func reweighted(_ start: FixProblem.Solution) -> FixProblem.Solution {
        var sol = start
        guard problem.rssiCount - problem.unknowns >= OffsetFreeFit.robustSpareReadings else { return sol }
        for _ in 0..<OffsetFreeFit.robustPasses {
            var changed = false
            let model = problem.model
            for i in 0..<problem.rssiCount {
                let u = abs(model.standardisedRSSIResidual(i, at: sol) * problem.sigma * problem.heard.weight[i])
                let w = u > OffsetFreeFit.huberK ? (OffsetFreeFit.huberK / u).squareRoot() : 1
                if abs(w - problem.heard.robustWeight[i]) > 1e-3 { changed = true }
                problem.heard.robustWeight[i] = w
            }
            guard changed, case .success(let next) = problem.solve(from: sol.position, offset: sol.offset) else { break }
            sol = next
        }
        return sol
    }
}
