import Foundation
import LabCore

/// Tracks a walker with particles that live on the floorplan (docs/tracking.md): each particle is a
/// state (x, y, vx, vy, δ) — position, velocity and the phone's RSSI offset — and
/// - **moves** by the trackers' ``MotionModel`` (constant velocity, white-noise acceleration q, exactly
///   discretised over the time between scans; δ a slow random walk); or, when the phone reports steps
///   (``Observation/steps``), by each step's length and heading with their errors and a compass bias that
///   every particle carries (drawn at the track's start, a random walk after);
/// - **cannot cross a wall**: a particle whose step crosses one, or that leaves the walkable floor (the rooms),
///   is dropped (weight 0); doors are the gaps between walls, so particles go through them. Wall checks use a
///   uniform-grid spatial index of the walls (``FloorplanIndex``);
/// - is **weighed** by the scan's likelihood with the walls' losses (from a per-beacon loss grid) and its own δ:
///   each heard beacon's mean RSSI z against μ = P0 + δ − 10·n·log10 d − walls, with the heavy-tailed noise
///   (1 − ε)·N(0, s²) + ε·N(0, s² + s_o²), s² = σ²/k + σ_m² (k readings averaged, one under correlated
///   shadowing; σ_m the model error: beacons off their calibration, the body). When the scan brings steps and
///   the venue knows the walker's ``Venue/body`` shadowing, each particle's walker faces along the particle's own
///   last step (drawn with the step's heading noise, less its compass bias), so the particle knows which beacons
///   the body shadows (``BodyShadowing/Sector``): their means move by L·(q − p) and the body's share leaves σ_m. A
///   phone without steps: once the cloud has moved, each particle's walker faces along the cloud's mean velocity
///   turned by the particle's own velocity across it (``Settings/facingFromVelocity``).
///   With ``Settings/fieldModel`` (the default) the likelihood is the field's: heard
///   means truncated at the sensitivity, heard and missed beacons, each beacon's P0 error learned, and the facing
///   kept while the walker stands (``weigh(_:)``);
/// - is **resampled** systematically (one uniform draw, N evenly spaced pointers) when the effective sample
///   size 1/Σw² falls below half the particles, then **regularised** (``Settings/regularised``): each particle
///   moved by a Gaussian kernel of h² times the resampled cloud's covariance;
/// - is **reset in part when lost** (``Settings/resetsLostCloud``): a cumulative test of the scans' innovations against
///   the cloud (``noteInnovation(_:beacons:)``) finds a cloud in the wrong place, and part of it (a tenth by default)
///   is drawn afresh around the scan's own fit (``inject(_:)``).
///
/// A track starts from its first scan's posterior (``Settings/posteriorStart``): particles drawn around the scan's snapshot
/// fit (the fit's linearised covariance, widened; δ around the fix's, or what earlier tracks of the phone learned) and a
/// share of them anywhere on the walkable floor, weighed by the scan's likelihood times the prior over the density they
/// were drawn from (importance sampling with a defensive mixture); the first report is their weighted mean and covariance.
/// When every particle is dropped the track starts again. The estimate is the particles' weighted mean and covariance (under correlated shadowing the
/// covariance times what weighing correlated scans as news leaves out: ``ShadowingMemory``), kept in sight of the
/// previous estimate (no jump through a wall: see ``estimate(_:ranges:inflation:)``). Random draws come from the
/// tracker's own stream (``TrackerRandom``), seeded per phone from ``Venue/seed``, so fixes repeat.
package final class ParticleTracker {
    package struct Settings: Sendable {
        /// How many particles.
        package var particles = 1000
        /// How the walker and the phone's offset move between scans (the ekf's).
        package var motion = MotionModel()
        /// The model error σ_m added to each mean's variance, dB, at least, when the venue states a model error
        /// (``RadioModel/modelError`` > 0; the venue's when larger): what remains of it after the parts the filter weighs
        /// itself (the body when the facing is known, the beacons' learned P0 errors) never falls below this. A venue
        /// that states none (the ideal condition, whose law is exact; a fit that could not split its σ, which is then
        /// the whole spread) adds nothing: with 2 dB there, the ideal condition's ellipses held the truth in 98% of fixes
        /// (`indoorlab coverage --estimator particle-filter --seeds 2`), with none 95%.
        package var modelSigma = 2.0
        /// Outlier rate ε and extra scale s_o (dB) of the likelihood's heavy tail.
        package var outlierRate = 0.05
        package var outlierScale = 10.0
        /// The field's likelihood (docs/tracking.md, "The field's likelihood"): each beacon's P0 error
        /// learned along the track (when the venue has a ``Venue/beaconSpread``), the heard means truncated at the
        /// sensitivity, whether each beacon was heard or missed, and the walker facing where it last went while it
        /// stands. Off (for comparison): each scan's beacons are weighed as independent readings with the model error.
        package var fieldModel = true
        /// With the field's likelihood, the least probability that a beacon goes unreported for a whole scan window
        /// however strong it would read (the receiver busy, scans throttled, a duty-cycled scanner): a missed beacon
        /// weighs a place down by at most ln of this, so one dropout cannot veto the walker's true place. 2%: the
        /// Daniş receivers missed 2% of (window, receiver) pairs, near or far (docs/tracking.md, "The field's
        /// likelihood"); the simulated field walks do as well with it as without it. The venue's measured
        /// ``RadioModel/dropout`` d adds to it as an independent cause: the floor is 1 − (1 − this)·(1 − d).
        package var missFloor = 0.02
        /// A track's first cloud is the posterior of its first scan (``start(_:ranges:dt:)``): the particles drawn around
        /// the scan's fit, and a share (``uniformShare``) anywhere on the walkable floor, weighed by the scan's
        /// likelihood times the prior over the proposal's density, and the first report is their weighted mean. Off: the
        /// first report is the fit and the cloud drawn around it is taken as the posterior unweighed.
        package var posteriorStart = true
        /// Each scan's headings toward friezes weigh the particles (``weigh(headings:)``), as they join the snapshot fit.
        /// Off (for comparison): the filter weighs RSSI and ranges only.
        package var weighsHeadings = true
        /// The share of a track's first cloud drawn uniformly over the walkable floor (a defensive mixture: Hesterberg
        /// 1995), so that the weighed cloud holds the posterior's mass where the fit's neighbourhood misses it.
        package var uniformShare = 0.3
        /// With the field's likelihood and a phone without a step detector, each particle's walker faces along the
        /// cloud's mean velocity turned by the particle's own velocity across it, while the cloud moves faster than
        /// ``facingSpeed`` (and keeps its last facing below it), so the body's sector is weighed instead of left in the
        /// model error: the body's pattern tells the particles whose heading is right (``faceAlongVelocity()``).
        package var facingFromVelocity = true
        /// The least speed of the cloud's mean velocity at which the velocities set the facing, m/s.
        package var facingSpeed = 0.4
        /// The regularised filter (Musso, Oudjane & Le Gland 2001): after each resampling every particle's position,
        /// δ and compass bias move by a Gaussian kernel of covariance h² times the resampled cloud's, h from
        /// Silverman's rule (``bandwidth(particles:)``); a jittered position that leaves the floor or crosses a wall
        /// stays where it was. Resampling copies the particles that weighed most, and without fresh spread a cloud
        /// that has resampled again and again is a few copies, narrower than its error (docs/tracking.md, "The
        /// regularised filter"). Off: the plain bootstrap filter.
        package var regularised = true
        /// Sensor resetting of a lost cloud (Lenser & Veloso 2000): when the scans keep disagreeing with the cloud
        /// (``lostEvidence`` passes ``lostThreshold``), ``injectedShare`` of the particles are drawn afresh around the
        /// scan's own fit, as a track's first cloud is, and the next scans weigh them against the rest
        /// (docs/tracking.md, "A lost cloud"). Off: a lost cloud finds the walker only by its own spread.
        package var resetsLostCloud = true
        /// The cumulative evidence (in units of the capped normalised innovation squared, beyond one per heard beacon)
        /// at which the cloud counts as lost.
        package var lostThreshold = 8.0
        /// The share of the particles drawn afresh around the scan's fit when the cloud is lost, in (0, 1]: every
        /// (1/share, rounded)-th particle.
        package var injectedShare = 0.1
        /// The readings and ranges a scan needs before a lost cloud is drawn again around its fit: four, one more than
        /// the fit's unknowns (x, y, δ). A fit of three readings passes through all three (only the fallback prior holds
        /// δ), so it follows their noise, and particles drawn around it followed it: museum-gallery's field walk of seed
        /// 500 was reset around three such fits and its reports stayed 6 to 21 m off (walk RMSE 9.30 m with three, 3.79 m
        /// with four, 3.82 m without resetting; over 600 seeds of two venues one other walk lost more than 0.1 m:
        /// docs/tracking.md, "A lost cloud").
        package var resetReadings = 4
        package init() {}
    }

    package let venue: Venue
    package let settings: Settings
    package let floorplan: FloorplanIndex
    let fit: OffsetFreeFit
    let n: Int
    // Particles, structure of arrays.
    private let px, py, pvx, pvy, pd, pw, pb: UnsafeMutablePointer<Double>
    /// Where each particle's walker faces (unit vector: sin, cos of the heading), for the body (``weigh(_:)``): along
    /// the particle's own last step (``predict(steps:dt:)``), or without steps along the cloud's mean velocity turned
    /// by the particle's own velocity across it (``faceAlongVelocity()``), kept while the walker stands.
    private let fx, fy: UnsafeMutablePointer<Double>
    private let scratch: UnsafeMutablePointer<Double>
    /// Each beacon's P0 error as each particle has learned it (``Venue/beaconSpread``; nil when the venue has none),
    /// `beacons` per particle, one particle after another: the mean of a Gaussian whose variance is the same for
    /// every particle (it depends on how often the beacon was heard, not where) and kept once, in `spreadVariance`.
    /// The errors are linear in the readings given a particle's track, so each particle updates its own by a Kalman
    /// step (Rao–Blackwellisation: the particles carry the track, the Gaussians the beacons).
    private let spreadMean, spreadScratch, spreadVariance: UnsafeMutablePointer<Double>?
    private let beacons: Int
    /// Which of the venue's beacons this scan heard (``weigh(_:)``, with the field's likelihood), reused.
    private let heardFlags: UnsafeMutablePointer<Bool>
    /// How far above its mean a beacon's strongest reading in a scan window lies, dB (``weigh(_:)``).
    private let detectionLift: Double
    /// The strongest reading's variance about that, in units of σ² (``weigh(_:)``).
    private let strongestSpread: Double
    /// ln P(missed) against how far the sensitivity lies above the strongest reading's mean (``Settings/missFloor``).
    private let missedTerm: TruncatedNormal.FlooredLogSurvival
    /// The particles resampling keeps, reused every time.
    private let chosen: UnsafeMutablePointer<Int>
    private var rng = TrackerRandom(seed: 0)
    private var devices: UInt64 = 0
    private var time: Double?
    package private(set) var isTracking = false
    private var device: (mean: Double, variance: Double)?
    /// Whether this track's particles have their compass bias yet: drawn at the first steps, so that a phone
    /// without a step detector takes the same random draws as before steps existed.
    private var biasDrawn = false
    /// Whether this track's particles know where the walker faces: since the phone reported its first step.
    private var facingKnown = false
    /// Page's cumulative sum (CUSUM) of the scans' disagreement with the cloud: each scan adds its normalised innovation
    /// squared (``noteInnovation(_:beacons:)``) less one per heard beacon, and the sum never falls below 0. A cloud in the
    /// right place keeps it near 0 (each beacon's term is about 1 or less); a cloud in the wrong place makes it climb.
    private var lostEvidence = 0.0
    /// The cloud was found lost at this scan: particles are drawn afresh after its report (``inject(_:)``).
    private var injectionDue = false
    /// How many times this tracker found its cloud lost and drew particles afresh (``inject(_:)``), over its life.
    package private(set) var resets = 0
    /// Each heard beacon's innovation term is capped here (3σ squared), so that one multipath outlier does not count as
    /// a lost cloud.
    static let innovationCap = 9.0

    /// The position this track last reported: the next report is kept in sight of it (no wall between).
    private var reported: Point?
    /// When set, every step appends what an offline smoother needs (``Snapshot``; nil for a step without a fix):
    /// see ``smoothTrack(_:lag:)``.
    private var history: [Snapshot?]?

    package init(venue: Venue, solver: any LeastSquaresSolver, settings: Settings = Settings(), floorplan: FloorplanIndex? = nil) {
        self.venue = venue
        self.settings = settings
        // The field's likelihood reads the attenuation grid; without it (the comparison) it is not made.
        if let floorplan, floorplan.hasAttenuations || !settings.fieldModel {
            self.floorplan = floorplan
        } else {
            self.floorplan = FloorplanIndex(venue: venue, attenuations: settings.fieldModel)
        }
        // The grids' stride per cell is the floorplan's beacon count; the weights' mixture needs 0 ≤ ε < 1.
        precondition(self.floorplan.beaconCount == venue.beaconCount, "a floorplan index made for another venue")
        precondition(settings.outlierRate >= 0 && settings.outlierRate < 1, "outlier rate outside [0, 1)")
        precondition(settings.injectedShare > 0 && settings.injectedShare <= 1, "injected share outside (0, 1]")
        fit = OffsetFreeFit(venue: venue, options: .init(walls: true, robust: true, censored: false, truncatedMeans: true, statesRegion: true), solver: solver)
        n = max(settings.particles, 1)
        let block = UnsafeMutablePointer<Double>.allocate(capacity: 10 * n)
        block.initialize(repeating: 0, count: 10 * n)
        px = block; py = block + n; pvx = block + 2 * n; pvy = block + 3 * n; pd = block + 4 * n; pw = block + 5 * n
        scratch = block + 6 * n; pb = block + 7 * n; fx = block + 8 * n; fy = block + 9 * n
        chosen = .allocate(capacity: n)
        chosen.initialize(repeating: 0, count: n)
        beacons = venue.beaconCount
        heardFlags = .allocate(capacity: max(beacons, 1))
        heardFlags.initialize(repeating: false, count: max(beacons, 1))
        let readings = venue.radio.correlationDistance != nil ? 1 : Double(venue.radio.advertisementsPerWindow) * (1 - venue.radio.packetLoss)
        detectionLift = venue.radio.sigma * TruncatedNormal.expectedMaximum(of: readings)
        // The strongest of K′ readings spreads about half a σ; under correlated shadowing (one draw per window), or with
        // at most one reading a window (a phone that reports one reading a scan), a whole σ.
        strongestSpread = venue.radio.correlationDistance != nil || readings < 2 ? 1 : 0.25
        missedTerm = TruncatedNormal.FlooredLogSurvival(floor: 1 - (1 - settings.missFloor) * (1 - venue.radio.dropout))
        if settings.fieldModel && venue.beaconSpread > 0 {
            let spread = UnsafeMutablePointer<Double>.allocate(capacity: (2 * n + 1) * beacons)
            spread.initialize(repeating: 0, count: (2 * n + 1) * beacons)
            spreadMean = spread; spreadScratch = spread + n * beacons; spreadVariance = spread + 2 * n * beacons
        } else {
            spreadMean = nil; spreadScratch = nil; spreadVariance = nil
        }
        startDevice()
    }

    deinit { px.deallocate(); chosen.deallocate(); spreadMean?.deallocate(); heardFlags.deallocate() }

    /// A new phone: its own random stream, no track, nothing known about its offset (or what the app knows about it).
    package func startDevice(knownOffset: (mean: Double, sigma: Double)? = nil) {
        devices += 1
        rng = TrackerRandom(seed: venue.seed &* 0x9E37_79B9_7F4A_7C15 &+ devices)
        isTracking = false; time = nil; reported = nil
        device = knownOffset.map { ($0.mean, $0.sigma * $0.sigma) }
    }

    /// δ as the filter knows it now (mean, σ), dB: the particles' weighted mean and spread while tracking, else what
    /// the phone's earlier tracks left.
    package var offset: (mean: Double, sigma: Double)? {
        guard isTracking else { return device.map { ($0.mean, $0.variance.squareRoot()) } }
        var mean = 0.0, square = 0.0
        for i in 0..<n { mean += pw[i] * pd[i]; square += pw[i] * pd[i] * pd[i] }   // normalised after every step
        return (mean, max(square - mean * mean, 0).squareRoot())
    }

    /// The same phone moved arbitrarily: the track ends, δ's estimate is kept.
    package func startTrack() {
        endTrack()
        reported = nil
    }

    /// Every particle was dropped: δ's estimate is kept, and so is the last report, so that the track drawn again
    /// does not jump through a wall.
    private func endTrack() {
        keepOffset()
        isTracking = false; time = nil
    }

    /// δ's weighted mean and variance over the particles, kept for the phone's next track (unchanged when no
    /// particle has weight left: then the last kept estimate stands).
    private func keepOffset() {
        guard isTracking else { return }
        var total = 0.0, mean = 0.0, square = 0.0
        for i in 0..<n { total += pw[i]; mean += pw[i] * pd[i]; square += pw[i] * pd[i] * pd[i] }
        guard total > 0, total.isFinite else { return }
        mean /= total; square /= total
        device = (mean, max(square - mean * mean, 0.01))
    }

    /// The walker's position and velocity after one more scan: its RSSI, its steps when the phone has a step
    /// detector, and in the library the distances ranged to beacons (each a Gaussian with its stated σ).
    package func step(_ o: Observation, ranges: [MeasuredRange] = []) -> EstimateOutcome {
        if let problem = o.problem(beaconCount: venue.beaconCount) { history?.append(nil); return .noFix(.invalidInput(problem)) }
        var dt = venue.radio.scanWindow
        if let t = o.t, let last = time { dt = t - last }
        if dt < 0 || dt > settings.motion.longestGap { startTrack(); dt = venue.radio.scanWindow }
        if let t = o.t { time = t }
        if isTracking {
            keepOffset()   // before the particles move: if every one is dropped, δ's estimate survives
            if let steps = o.steps { predict(steps: steps, dt: dt) } else { predict(dt: dt) }
            let prior = shadowing != nil ? spread() : nil
            weighScan(o, ranges: ranges)
            if !normalise() { endTrack() } else if let prior { followShadowing(prior: prior) }
        }
        let fresh = !isTracking   // drawn afresh below: no lineage to the step before
        var first: Fix?
        if !isTracking {
            switch start(o, ranges: ranges, dt: dt) {
            case .noFix(let reason): history?.append(nil); return .noFix(reason)
            case .fix(let f): first = f
            }
            // The first cloud weighed by its scan: the posterior, whose mean is the first report (and whose spread the
            // correlated shadowing's memory starts from: the first scan's error).
            if settings.posteriorStart {
                weighScan(o, ranges: ranges)
                if normalise() { first = nil } else { for i in 0..<n { pw[i] = 1 / Double(n) } }
                if shadowing != nil { shadowing = ShadowingMemory(start: spread(), share: shadowingShare) }
            }
        }
        let hadReport = reported != nil
        // Without the posterior start a new track reports the fix it was drawn around (the cloud's mean is that fix, less
        // what the floor cut off); a track drawn again after every particle was dropped keeps to the cloud's rule, in sight
        // of its last report.
        let outcome: EstimateOutcome
        if let first, !hadReport {
            reported = first.position
            var f = first
            f.velocity = Point(0, 0)
            outcome = .fix(f)
        } else {
            outcome = estimate(o, ranges: ranges, inflation: shadowing?.inflation ?? 1)
        }
        let recorded = history != nil
        if recorded {
            // px, py, pvx, pvy, pd, pw lie one after another in one block: one copy keeps them all.
            history!.append(Snapshot(particles: Array(UnsafeBufferPointer(start: px, count: 6 * n)), fresh: fresh, hadReport: hadReport))
        }
        // A lost cloud: where the scan's own fit would put fresh particles (none when it gives no fit: the evidence stays,
        // and the next scan tries again).
        let redraw = injectionDue && !fresh ? freshParticles(o, ranges: ranges, dt: dt) : nil
        injectionDue = false
        if resampleIfNeeded(always: redraw != nil) {
            if recorded { history![history!.count - 1]!.parents = (0..<n).map { Int32(chosen[$0]) } }
            if settings.regularised { regularise(bandwidth: ParticleTracker.bandwidth(particles: n)) }
        }
        if let redraw {
            let drawn = inject(redraw)
            if recorded { graft(drawn, onto: history!.count - 1) }
        }
        return outcome
    }

    /// One step's particles as reported (before resampling), and, when they were resampled after it, the
    /// particle of this step each particle of the next step copies.
    package struct Snapshot {
        /// x, y, vx, vy, δ and weight, `n` of each, one after another (the filter's own layout).
        let particles: [Double]
        var parents: [Int32]?
        /// Drawn afresh at this step: no lineage to the step before.
        let fresh: Bool
        /// The filter kept this step's report in sight of an earlier one (false when the track is new).
        let hadReport: Bool
    }

    /// A whole track for offline replay: the filter over `observations`, recording each step, then
    /// ``smoothed(_:lag:)`` over what it recorded.
    package func smoothTrack(_ observations: [Observation], lag: Int) -> [EstimateOutcome] {
        history = []
        history!.reserveCapacity(observations.count)
        defer { history = nil }
        let filtered = observations.map { step($0) }
        return smoothed(filtered, lag: lag)
    }

    /// Fixed-lag smoothing of the recorded ``history`` (offline, where the future is known), given the steps'
    /// `outcomes` (one per recorded step, as ``step(_:)`` returned them): each step's report is made from its own
    /// particles, each weighed by the weight its descendants carry `lag` steps later (or at the track's last
    /// step, if sooner) — the particles' genealogy, Kitagawa's fixed-lag smoother. A particle whose line died out
    /// (dropped at a wall, or not drawn at a resampling) gets no weight, so the smoothed cloud is the part of the
    /// filter's cloud that the later scans confirm. The report follows the filter's rule, in sight of the previous
    /// smoothed report wherever the filter kept its own in sight of its previous one. A step without a fix (an
    /// invalid scan, which leaves the particles as they were) is stepped over; a track drawn afresh ends the
    /// lineages, while the particles a reset draws carry on the lineages of the lost cloud's particles nearest them
    /// (``graft(_:onto:)``). Steps without a fix stay without one, and a track's last step keeps the filter's fix.
    ///
    /// The smoothed fix states the filter's covariance at that step, not the smoothed cloud's: within a lag of ten
    /// scans the lineages coalesce onto a few ancestors (path degeneracy), so the weighted cloud is far narrower than
    /// the smoothed estimate's error (its 95% ellipses held the truth in 58.5% of fixes on field walks with correlated
    /// shadowing), while the filter's covariance, which uses fewer scans and carries the allowance for correlated
    /// shadowing (``ShadowingMemory``), is on the safe side of it (docs/tracking.md, "The smoother's ellipse").
    ///
    /// Memory: the history holds six numbers per particle per step (48 KB per scan with 1,000 particles).
    private func smoothed(_ outcomes: [EstimateOutcome], lag: Int) -> [EstimateOutcome] {
        guard let history, history.count == outcomes.count else { return outcomes }
        var out = outcomes
        var weights = [Double](repeating: 0, count: n), line = [Int](repeating: 0, count: n)
        var previous: Point?
        for t in history.indices {
            guard let here = history[t], var f = outcomes[t].fix else { continue }
            if !here.hadReport { previous = nil }
            // The last step within the lag that the same lineages reach (over steps without a fix, not past a
            // fresh draw).
            var last = t, u = t
            while u < history.count - 1, u - t < lag {
                u += 1
                guard let next = history[u] else { continue }
                if next.fresh { break }
                last = u
            }
            guard last > t else { previous = f.position; continue }   // nothing later weighs it: the filter's fix
            for i in 0..<n { line[i] = i; weights[i] = 0 }
            for v in stride(from: last - 1, through: t, by: -1) {
                guard let parents = history[v]?.parents else { continue }
                for i in 0..<n where line[i] >= 0 { line[i] = Int(parents[line[i]]) }   // −1: no ancestor there
            }
            guard let future = history[last]?.particles else { previous = f.position; continue }
            var total = 0.0
            for i in 0..<n where line[i] >= 0 { weights[line[i]] += future[5 * n + i]; total += future[5 * n + i] }
            guard total > 0 else { previous = f.position; continue }
            for i in 0..<n { weights[i] /= total }
            let summary = here.particles.withUnsafeBufferPointer { p in weights.withUnsafeBufferPointer { w in
                report(Cloud(p.baseAddress!, n: n, weights: w.baseAddress!), previous: previous)
            } }
            previous = summary.position
            f.position = summary.position   // the covariance stays the filter's (see above)
            f.velocity = summary.velocity; f.offset = summary.offset
            out[t] = .fix(f)
        }
        return out
    }

    /// Draws the particles around a snapshot fix, and gives that fix (or why there is none).
    private func start(_ o: Observation, ranges: [MeasuredRange], dt: Double) -> EstimateOutcome {
        fit.startDevice(offset: settings.motion.carriedOffset(device, dt: dt))
        let outcome = fit.locate(o, ranges: ranges)
        // Around the fit's linearised covariance (with the model error), widened (``NewParticles``). (The fix a new track
        // reports states the fit's honest region, the likelihood-ratio region scaled by the learned residual scale;
        // drawing from that region instead measured no better: docs/tracking.md.)
        guard case .fix(let f) = outcome, let c = fit.linearCovariance, f.covariance != nil,
              let around = newParticles(f, linear: c, dt: dt) else {
            if case .noFix = outcome { return outcome }
            return .noFix(.solverFailed("the first fix has no covariance"))
        }
        // With the posterior start, each particle's weight is the prior (flat on the floor; δ's carried prior, flat for a
        // new phone) over the density it was drawn from — δ, then the position given δ from the mixture of the Gaussian
        // around the fit and the uniform floor (the floor's cut of the Gaussian is not renormalised) — before its scan weighs
        // it (``step(_:ranges:)``).
        let posterior = settings.posteriorStart, uniform = posterior ? settings.uniformShare : 0
        let carried = settings.motion.carriedOffset(device, dt: dt)
        let floorDensity = 1 / floorplan.walkableArea, gaussianNorm = 1 / (2 * Double.pi * around.l00 * around.l11)
        var most = -Double.infinity
        for i in 0..<n {
            pd[i] = around.offset + around.offsetSigma * rng.gaussian()
            var q = walkablePoint(around, offset: pd[i]) ?? around.center(offset: pd[i])
            if uniform > 0 && rng.uniform() < uniform, let anywhere = floorPoint() { q = anywhere }
            px[i] = q.x; py[i] = q.y
            if posterior {
                let zd = (pd[i] - around.offset) / around.offsetSigma
                let c = around.center(offset: pd[i])
                let e0 = (q.x - c.x) / around.l00, e1 = (q.y - c.y - around.l10 * e0) / around.l11
                let proposal = (1 - uniform) * gaussianNorm * exp(-0.5 * (e0 * e0 + e1 * e1)) + uniform * floorDensity
                var lw = 0.5 * zd * zd - log(proposal)
                if let carried { let u = (pd[i] - carried.mean) / carried.sigma; lw -= 0.5 * u * u }
                scratch[i] = lw
                most = max(most, lw)
            }
            pvx[i] = settings.motion.startSpeedSigma * rng.gaussian(); pvy[i] = settings.motion.startSpeedSigma * rng.gaussian()
            let speed = (pvx[i] * pvx[i] + pvy[i] * pvy[i]).squareRoot()   // facing along the drawn velocity until it moves
            if speed > 0 { fx[i] = pvx[i] / speed; fy[i] = pvy[i] / speed } else { fx[i] = 0; fy[i] = 1 }
            pw[i] = 1 / Double(n)
        }
        if posterior && most.isFinite { for i in 0..<n { pw[i] = exp(scratch[i] - most) } }
        isTracking = true
        lostEvidence = 0; injectionDue = false
        biasDrawn = false; facingKnown = false; hasMoved = false
        shadowing = venue.radio.correlationDistance != nil ? ShadowingMemory(start: spread(), share: shadowingShare) : nil
        if let spreadMean, let spreadVariance {   // the beacons' errors are learned afresh on every track
            spreadMean.update(repeating: 0, count: n * beacons)
            spreadVariance.update(repeating: venue.beaconSpread * venue.beaconSpread, count: beacons)
        }
        return outcome
    }

    /// Where fix `f` (the fit's last, with its linearised covariance `c`) puts new particles: a track's first cloud
    /// (``start(_:ranges:dt:)``) or a lost cloud's fresh part (``inject(_:)``). δ comes first, from N(the fix's δ,
    /// σ²): σ is what the phone's earlier tracks carried (``MotionModel/startOffsetVariance(_:dt:)``), and for a new
    /// phone at least the fit's own σ of δ, which a scan of few beacons leaves wide. The position then comes from
    /// N(where the scan puts the phone *given that δ*, c widened by 1 m² per axis; the floor may cut part of it away).
    /// For a new phone "given that δ" is the fit's ridge (``OffsetFreeFit/ridge(through:fix:)``, solved at
    /// ``NewParticles/ridgeSteps``): a phone read weaker is nearer the beacons, and far along the ridge every
    /// distance scales by 10^(Δδ / 10n). For a phone already known (its next track, a lost cloud's fresh part) it is
    /// the fix: δ is known there to the σ carried. (Following the slope of the fit's (x, y, δ) covariance there too
    /// took the Daniş particle smoother's P75 from 2.45 to 2.65 m a→b, `compare --seeds 10 --conditions ideal,field
    /// --real ../shared/datasets`, and moved nothing else by more than 0.03 m.)
    ///
    /// Drawn independently (position around the fix, δ around its δ), a first cloud lay across the ridge: with a
    /// phone 10–15 dB weaker than calibrated, heard by 2–5 beacons, it held no particle near the truth's (position, δ)
    /// and tracked 4–8 m off for 30–50 s. The ridge's cloud measured (field walks, `compare museum-gallery
    /// esoc-office --seeds 30 --seed S --conditions field`, S = 1, 101, …, 601): efficiency against the posterior
    /// bound ≤ 1.29 in all 14 blocks, against 1.63 at worst before (docs/tracking.md, "A new phone's first cloud").
    private func newParticles(_ f: Fix, linear c: Covariance2, dt: Double) -> NewParticles? {
        guard let delta = f.offset else { return nil }
        var sigma = settings.motion.startOffsetVariance(device, dt: dt).squareRoot()
        var along: NewParticles.Along = .fixed
        if device == nil, let full = fit.linearFull, full.dd > 1e-9, full.dd.isFinite {
            sigma = max(sigma, full.dd.squareRoot())
            let offsets = NewParticles.ridgeSteps.map { delta + $0 * sigma }
            along = .ridge(offsets: offsets, points: fit.ridge(through: offsets, fix: f))
        }
        let (l00, l10, l11) = Covariance2(xx: c.xx + 1, xy: c.xy, yy: c.yy + 1).choleskyFactor(floor: 1e-6)
        return NewParticles(center: venue.bounds.clamp(f.position), l00: l00, l10: l10, l11: l11, offset: delta,
                            offsetSigma: sigma, along: along)
    }

    private struct NewParticles {
        /// How the position's mean follows δ.
        enum Along {
            /// It does not: the fix whatever δ.
            case fixed
            /// Through these points at these (increasing) δ, linearly between them, held at the ends.
            case ridge(offsets: [Double], points: [Point])
        }
        /// Where a new phone's ridge is solved: δ's σ multiples around the fix's δ.
        static let ridgeSteps: [Double] = [-2.5, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5]
        /// The fix (clamped into the venue's bounds) and δ's.
        let center: Point
        /// The widened covariance's Cholesky factor.
        let l00, l10, l11: Double
        let offset, offsetSigma: Double
        let along: Along

        /// The position's mean given δ = `delta`, inside the venue's bounds.
        func center(offset delta: Double) -> Point {
            switch along {
            case .fixed:
                return center
            case .ridge(let offsets, let points):
                guard delta > offsets[0] else { return points[0] }
                guard delta < offsets[offsets.count - 1] else { return points[points.count - 1] }
                var k = 1
                while offsets[k] < delta { k += 1 }
                let t = (delta - offsets[k - 1]) / (offsets[k] - offsets[k - 1])
                let a = points[k - 1], b = points[k]
                return Point(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t)
            }
        }
    }

    /// A position drawn from `around` on walkable floor (up to 20 tries; nil when none lands there).
    private func walkablePoint(_ around: NewParticles, offset: Double) -> Point? {
        let c = around.center(offset: offset)
        for _ in 0..<20 {
            let z0 = rng.gaussian(), z1 = rng.gaussian()
            let x = c.x + around.l00 * z0, y = c.y + around.l10 * z0 + around.l11 * z1
            if floorplan.isWalkable(x, y) { return Point(x, y) }
        }
        return nil
    }

    /// A point drawn uniformly on the walkable floor (up to 50 tries in the bounds; nil when none lands on it).
    private func floorPoint() -> Point? {
        let b = venue.bounds
        for _ in 0..<50 {
            let x = b.minX + b.width * rng.uniform(), y = b.minY + b.height * rng.uniform()
            if floorplan.isWalkable(x, y) { return Point(x, y) }
        }
        return nil
    }

    /// The least model error σ_m the likelihood allows for after the parts it weighs itself, dB: ``Settings/modelSigma``
    /// when the venue states a model error, 0 when it states none.
    private var modelErrorFloor: Double { venue.radio.modelError > 0 ? settings.modelSigma : 0 }

    /// The correlated shadowing's memory of this track (nil without ``RadioModel/correlationDistance``).
    private var shadowing: ShadowingMemory?

    /// ς = σ² / (σ² + σ_m²): the shadowing's share of what the likelihood takes one beacon's scan mean to vary by at
    /// a track's start (one reading per window under correlated shadowing). σ_m² is the venue's model error (at least
    /// ``Settings/modelSigma``) whole: ``weigh(_:)`` moves the beacons' spread out of it into their learned errors'
    /// variance, which starts at the same size, and keeps the body's share until the facing is known.
    private var shadowingShare: Double {
        ShadowingMemory.share(sigma: venue.radio.sigma, modelError: max(modelErrorFloor, venue.radio.modelError))
    }

    /// The scan just weighed, after `prior` (the cloud as it moved): the shadowing's memory follows.
    private func followShadowing(prior: (mean: Point, variance: Double)) {
        guard var memory = shadowing, let distance = venue.radio.correlationDistance else { return }
        let posterior = spread()
        memory.update(prior: prior, posterior: posterior, correlationDistance: distance)
        shadowing = memory
    }

    /// The cloud's weighted mean position and its variance per axis (the covariance's half trace); weights need not
    /// sum to 1.
    private func spread() -> (mean: Point, variance: Double) {
        var total = 0.0, mx = 0.0, my = 0.0
        for i in 0..<n where pw[i] > 0 { total += pw[i]; mx += pw[i] * px[i]; my += pw[i] * py[i] }
        guard total > 0 else { return (Point(0, 0), 0) }
        mx /= total; my /= total
        var square = 0.0
        for i in 0..<n where pw[i] > 0 {
            let ex = px[i] - mx, ey = py[i] - my
            square += pw[i] * (ex * ex + ey * ey)
        }
        return (Point(mx, my), square / (2 * total))
    }

    /// Moves every particle by the motion model; a step through a wall or off the floor drops it.
    private func predict(dt: Double) {
        // Q's Cholesky factor per axis, so that (Δposition, Δvelocity) = L·(z₁, z₂) has covariance Q.
        let (pp, pv, vv, dd) = settings.motion.processNoise(dt: dt)
        let (l11, l21, l22) = Covariance2(xx: pp, xy: pv, yy: vv).choleskyFactor()
        let drift = dd.squareRoot()
        var rng = self.rng   // a local copy: no exclusivity check per draw
        defer { self.rng = rng }
        for i in 0..<n where pw[i] > 0 {
            let zx = rng.gaussian(), zy = rng.gaussian()
            let x = px[i] + pvx[i] * dt + l11 * zx, y = py[i] + pvy[i] * dt + l11 * zy
            pvx[i] += l21 * zx + l22 * rng.gaussian(); pvy[i] += l21 * zy + l22 * rng.gaussian()
            pd[i] += drift * rng.gaussian()
            if !floorplan.isWalkable(x, y) || floorplan.crosses(px[i], py[i], x, y) { pw[i] = 0 }
            px[i] = x; py[i] = y
        }
        if facesAlongVelocity { faceAlongVelocity() }
    }

    /// Whether this track's cloud has moved faster than ``Settings/facingSpeed`` (its weighted mean velocity): from then
    /// on particles of a phone without steps face along it (``faceAlongVelocity()``). A phone that never moved (on a desk, or
    /// held by someone standing) keeps the body in the model error.
    private var hasMoved = false

    /// Whether particles face along their velocity (``Settings/facingFromVelocity``): the field's likelihood, a body
    /// to weigh, and no steps in this track.
    private var facesAlongVelocity: Bool { settings.fieldModel && settings.facingFromVelocity && !venue.body.isNone && !facingKnown }

    /// Where each particle's walker faces, once the cloud moves faster than ``Settings/facingSpeed`` (its weighted mean
    /// velocity v̄; below it every particle keeps its last facing): along v̄, turned by the particle's own velocity
    /// across v̄ — the direction of v̄ + ((vᵢ − v̄)·u⊥)·u⊥, u⊥ the unit vector across v̄. The particle's speed along
    /// v̄ does not turn it. Facing along each particle's own velocity instead made the body's pattern, which tells
    /// direction, pick fast particles (under the motion model's isotropic velocity noise, a particle's velocity points
    /// the right way more often the faster it is along the track): in killian-court's field walks the cloud ran 1.8×
    /// the walker's speed and reported 6.5 m ahead of it (docs/tracking.md). Notes when the cloud first moves
    /// (``hasMoved``).
    private func faceAlongVelocity() {
        var total = 0.0, vx = 0.0, vy = 0.0
        for i in 0..<n where pw[i] > 0 { total += pw[i]; vx += pw[i] * pvx[i]; vy += pw[i] * pvy[i] }
        guard total > 0 else { return }
        vx /= total; vy /= total
        let speed = (vx * vx + vy * vy).squareRoot()
        guard speed > settings.facingSpeed else { return }
        hasMoved = true
        let ux = vx / speed, uy = vy / speed   // along v̄; (−uy, ux) across it
        for i in 0..<n where pw[i] > 0 {
            let across = (pvy[i] - vy) * ux - (pvx[i] - vx) * uy
            let ax = vx - across * uy, ay = vy + across * ux
            let inverse = 1 / (ax * ax + ay * ay).squareRoot()   // ≥ speed > 0: the across part is orthogonal to v̄
            fx[i] = ax * inverse; fy[i] = ay * inverse
        }
    }

    /// Moves every particle by the phone's steps since the last scan: each step's length with its stated σ and a
    /// scale error, its heading with its stated σ less the particle's compass bias; no step means standing (a
    /// small random walk). The velocity becomes the displacement over dt. A move through a wall or off the floor
    /// drops the particle.
    private func predict(steps: [StepReading], dt: Double) {
        let m = settings.motion
        let still = m.standingSigma * dt.squareRoot()
        let biasDrift = m.stepBiasDrift * .pi / 180 * dt.squareRoot()
        let drift = m.processNoise(dt: dt).offset.squareRoot()
        if !steps.isEmpty { facingKnown = true }
        var rng = self.rng   // a local copy: no exclusivity check per draw
        defer { self.rng = rng }
        if !biasDrawn {
            for i in 0..<n { pb[i] = m.stepBiasSigma * .pi / 180 * rng.gaussian() }
            biasDrawn = true
        }
        // Each step's length σ (its own and the scale error), heading σ (radians) and heading's sine and cosine, once
        // for every particle.
        let count = steps.count
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 4 * max(count, 1)) { buffer in
            let lengthSigma = buffer.baseAddress!, headingSigma = lengthSigma + count, stepSine = lengthSigma + 2 * count, stepCosine = lengthSigma + 3 * count
            for (k, st) in steps.enumerated() {
                lengthSigma[k] = (st.lengthAccuracy * st.lengthAccuracy + m.stepScaleError * m.stepScaleError * st.length * st.length).squareRoot()
                headingSigma[k] = max(st.headingAccuracy, 1) * .pi / 180
                stepSine[k] = sin(st.heading * .pi / 180); stepCosine[k] = cos(st.heading * .pi / 180)
            }
            floorplan.withWalkable { walkable in
            for i in 0..<n where pw[i] > 0 {
                var x = px[i], y = py[i]
                for (k, st) in steps.enumerated() {
                    let length = st.length + lengthSigma[k] * rng.gaussian()
                    // The particle's heading is the step's, turned by its draw of the heading error less its compass bias: a
                    // small angle, so its sine and cosine come from their series, and the step's own once for all.
                    let (sine, cosine) = Self.turned(stepSine[k], stepCosine[k], by: headingSigma[k] * rng.gaussian() - pb[i])
                    x += max(length, 0) * sine; y += max(length, 0) * cosine
                    fx[i] = sine; fy[i] = cosine
                }
                x += still * rng.gaussian(); y += still * rng.gaussian()
                if dt > 0 { pvx[i] = (x - px[i]) / dt; pvy[i] = (y - py[i]) / dt }
                pb[i] += biasDrift * rng.gaussian()
                pd[i] += drift * rng.gaussian()
                if !walkable.contains(x, y) || floorplan.crosses(px[i], py[i], x, y) { pw[i] = 0 }
                px[i] = x; py[i] = y
            }
            }
        }
    }

    /// (sin, cos) of θ + ε from θ's (sin, cos): ε's by their series to ε⁷ and ε⁸ when |ε| ≤ 0.5 (error under 10⁻⁷),
    /// by `sin` and `cos` otherwise.
    @inline(__always) static func turned(_ sine: Double, _ cosine: Double, by e: Double) -> (Double, Double) {
        let se: Double, ce: Double
        if abs(e) <= 0.5 {
            let e2 = e * e
            se = e * (1 - e2 / 6 * (1 - e2 / 20 * (1 - e2 / 42)))
            ce = 1 - e2 / 2 * (1 - e2 / 12 * (1 - e2 / 30 * (1 - e2 / 56)))
        } else {
            se = sin(e); ce = cos(e)
        }
        return (sine * ce + cosine * se, cosine * ce - sine * se)
    }

    /// Multiplies each weight by the scan's likelihood at the particle: per heard beacon, its mean reading and that it
    /// was heard; per beacon in the venue not heard, that it was missed.
    ///
    /// - The mean of a heard beacon's readings: a reading counts only when it clears the sensitivity S, so against
    ///   the particle's mean μ the heard readings average μ + σ·λ((S − μ)/σ) (``TruncatedNormal``). With
    ///   S² = s² + s_o², the heavy-tailed mixture's log density ln((1 − ε)/s·e^(−r²/2s²) + ε/S·e^(−r²/2S²)) is
    ///   ln((1 − ε)/s) − r²/2s² + ln(1 + eˣ), x = r²·(1/2s² − 1/2S²) + ln(ε·s/((1 − ε)·S)), from a table (``Softplus``),
    ///   whose logistic(x) is the share of the reading that the mixture calls an outlier.
    /// - Heard or missed, once per scan window: a beacon is heard when its strongest reading clears S. The strongest
    ///   of K′ = K·(1 − loss) readings lies about e·σ above their mean (``TruncatedNormal/expectedMaximum(of:)``)
    ///   with a spread of about σ/2 (σ under correlated shadowing, where a window's readings move together), to
    ///   which the model error and the beacon's learned error add: P(heard) = 1 − Φ((S − μ − e·σ)/σ_e), and a whole
    ///   window goes unreported with at least ``Settings/missFloor`` (m): P(missed) = m + (1 − m)·Φ(·) (the constant
    ///   1 − m of P(heard) is left out). A missed beacon the particle would surely hear weighs it down — what keeps a
    ///   weak phone that hears two beacons from being placed far from the rest — by at most ln m. Beacons too far
    ///   from every particle to matter are skipped.
    private func weigh(_ o: Observation) {
        let k = 5 * venue.radio.exponent / log(10.0)   // μ = P0 + δ − k·ln d² − walls
        let sigma = venue.radio.sigma, sigma2 = sigma * sigma, inverseSigma = 1 / sigma
        let correlated = venue.radio.correlationDistance != nil
        let sensitivity = venue.radio.sensitivity
        // The body: when the phone has a step detector and has reported a step in this track, each particle's walker
        // faces along the particle's own last step (its heading as drawn in ``predict(steps:dt:)``, less the
        // particle's compass bias; a walker standing still faces where it last went), and the body's sector behind
        // it is known (``BodyShadowing``); its unknown-heading share of the model error goes. A phone without a step
        // detector: each particle's walker faces along the cloud's velocity turned by its own (``faceAlongVelocity()``).
        // Otherwise the heading is unknown and the body stays in the model error (its mean in δ).
        let body = venue.body
        let facing = knowsFacing(o)
        let field = settings.fieldModel
        // The beacons' P0 errors, when learned, leave the model error too: their variance is in `spreadVariance`.
        let spread = spreadMean != nil ? venue.beaconSpread * venue.beaconSpread : 0
        let modelVariance = venue.radio.modelError * venue.radio.modelError - (facing ? body.unknownHeadingVariance : 0) - spread
        let floor = modelErrorFloor, eps = settings.outlierRate, model2 = max(floor * floor, modelVariance)
        // Nearly sharp (the least blur, ±2°): each particle's heading is its own draw of the step's, so the step's σ is
        // in the draws, not in the edge.
        let sector = body.sector(headingSigma: 0)
        let outer2 = sector.outer * sector.outer
        let wide2 = settings.outlierScale * settings.outlierScale
        // Detection: the strongest reading's lift above the mean and its spread.
        let lift = detectionLift, maximum2 = strongestSpread * sigma2
        let tables = TruncatedNormal.lookup, softplus = Softplus.shared, fastLog = FastLog.shared
        let missed = missedTerm
        let m = o.beacons.count
        // Missed beacons tell something only against a known sensitivity (the library may not be given one).
        var u = 0
        if field && sensitivity.isFinite {
            heardFlags.update(repeating: false, count: beacons)
            for b in o.beacons { heardFlags[b.beacon] = true }
            for beacon in 0..<beacons where !heardFlags[beacon] { u += 1 }
        }
        var deltaMax = -Double.infinity   // for the missed beacons' far limit
        if u > 0 { for i in 0..<n where pw[i] > 0 { deltaMax = max(deltaMax, pd[i]) } }
        var best = -Double.infinity
        let grid = floorplan.cells
        floorplan.withGrids { losses, attenuations in
        withUnsafeTemporaryAllocation(of: Int.self, capacity: max(m + u, 1)) { indices in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: 15 * max(m + u, 1)) { buffer in
                let t = buffer.baseAddress!, index = indices.baseAddress!
                // Per beacon, heard ones first (m), then missed ones (u): position, height², its index; heard: the reading
                // minus P0, 1/(2s²), 1/(2s²) − 1/(2S²), ln((1 − ε)/s), ln(ε·s/((1 − ε)·S)), where s² is the reading's variance and, when the beacon's
                // P0 error is learned, that error's variance v; the Kalman gain v/s² of that error; the reading's own
                // variance s² − v; the sensitivity less the reading. Both: 1/σ_e for detection; missed: S − P0 − lift and
                // the squared distance beyond which no particle would hear it.
                let all = m + u
                let bx = t, by = t + all, bz2 = t + 2 * all, invDetect = t + 3 * all
                let z = t + 4 * all, ha = t + 5 * all, hb = t + 6 * all, ca = t + 7 * all, cb = t + 8 * all
                let gain = t + 9 * all, own = t + 10 * all, gap = t + 11 * all, residual = t + 12 * all
                let sumR = t + 13 * all, sumR2 = t + 14 * all
                var alive = 0.0
                for j in 0..<m { sumR[j] = 0; sumR2[j] = 0 }
                // For missed beacons z holds S − P0 − lift and gap the far limit (their heard-only slots are unused).
                for (j, b) in o.beacons.enumerated() {
                    index[j] = b.beacon
                    let c = venue.beaconPositions[b.beacon], dz = venue.beaconHeightOffset[b.beacon]
                    bx[j] = c.x; by[j] = c.y; bz2[j] = dz * dz
                    z[j] = b.rssi - venue.beaconP0[b.beacon]
                    gap[j] = sensitivity - b.rssi
                    own[j] = sigma2 / (correlated ? 1 : Double(max(b.count, 1))) + model2
                    let v = spreadVariance?[b.beacon] ?? 0
                    let s2 = own[j] + v, w2 = s2 + wide2
                    gain[j] = v / s2
                    ha[j] = 0.5 / s2; hb[j] = 0.5 / s2 - 0.5 / w2
                    ca[j] = log((1 - eps) / s2.squareRoot()); cb[j] = log(eps / w2.squareRoot()) - ca[j]   // −∞ when ε = 0
                    invDetect[j] = 1 / (maximum2 + model2 + v).squareRoot()
                }
                var j = m
                for beacon in 0..<beacons where u > 0 && !heardFlags[beacon] {
                    defer { j += 1 }
                    index[j] = beacon
                    let c = venue.beaconPositions[beacon], dz = venue.beaconHeightOffset[beacon]
                    bx[j] = c.x; by[j] = c.y; bz2[j] = dz * dz
                    let v = spreadVariance?[beacon] ?? 0, spreadOfMean = (maximum2 + model2 + v).squareRoot()
                    invDetect[j] = 1 / spreadOfMean
                    z[j] = sensitivity - venue.beaconP0[beacon] - lift
                    // Beyond this distance even the strongest δ, with the beacon's error 3σ and the detection spread 2.5σ_e
                    // in its favour, leaves P(missed) above 0.994: the term (ln P, under 0.006) is skipped.
                    gap[j] = exp((2.5 * spreadOfMean + 3 * v.squareRoot() + deltaMax - z[j]) / k)
                }
                for i in 0..<n {
                    guard pw[i] > 0 else { scratch[i] = -.infinity; continue }
                    let row = grid.cell(px[i], py[i]) * beacons   // the particle's cell's row in the grids
                    let x = px[i], y = py[i], delta = pd[i]
                    let hx = fx[i], hy = fy[i]
                    var learned: UnsafeMutablePointer<Double>?
                    if let spreadMean { learned = spreadMean + i * beacons }
                    /// The body's loss on beacon offset (dx, dy) from the particle, horizontal distance² h2.
                    @inline(__always) func bodyLoss(_ dx: Double, _ dy: Double, _ h2: Double) -> Double {
                        // c = (particle − beacon)·heading / distance, the cosine of the beacon's angle from the walker's
                        // back; beyond the sector's outer edge (c ≤ outer > 0, tested without the square root) q = 0.
                        let along = dx * hx + dy * hy
                        var q = 0.0
                        if sector.outer <= 0 || (along > 0 && along * along > outer2 * h2) {
                            q = sector.probability(cosineFromBack: h2 > 1e-18 ? along / h2.squareRoot() : 0)
                        }
                        return body.extraLoss(probability: q)
                    }
                    var ll = 0.0
                    // Two passes over the heard beacons, the residuals and then the tables, so that the tables' chains of
                    // dependent loads overlap from beacon to beacon (+12% when ln was still libm's call between them).
                    for j in 0..<m {
                        let dx = x - bx[j], dy = y - by[j]
                        let h2 = dx * dx + dy * dy
                        let d2 = max(h2 + bz2[j], 1e-4)
                        // r = reading − μ, μ = P0 + δ − k·ln d² − walls − body + the beacon's learned error
                        var r = z[j] - delta + k * fastLog(d2) + (losses.map { Double($0[row + index[j]]) } ?? 0)
                        if facing { r += bodyLoss(dx, dy, h2) }
                        if let learned { r -= learned[index[j]] }
                        residual[j] = r
                    }
                    for j in 0..<m {
                        var r = residual[j]
                        if field {
                            ll += tables.logSurvival((gap[j] + r - lift) * invDetect[j])   // heard
                            let alpha = (gap[j] + r) * inverseSigma
                            if alpha > -6 { r -= sigma * tables.hazard(alpha) }
                        }
                        sumR[j] += pw[i] * r; sumR2[j] += pw[i] * r * r
                        let r2 = r * r
                        let (tail, outlier) = softplus(r2 * hb[j] + cb[j])
                        ll += ca[j] - r2 * ha[j] + tail
                        // The beacon's error learns from the reading as far as the reading is not an outlier.
                        if let learned { learned[index[j]] += gain[j] * r * (1 - outlier) }
                    }
                    for j in m..<all {
                        let dx = x - bx[j], dy = y - by[j]
                        let h2 = dx * dx + dy * dy
                        let d2 = max(h2 + bz2[j], 1e-4)
                        guard d2 < gap[j] else { continue }
                        // g = S − lift − μ, P(missed) = m + (1 − m)·Φ(g/σ_e); the path loss from the particle's cell's centre.
                        var g = z[j] - delta + Double(attenuations![row + index[j]])   // made: fieldModel
                        if facing { g += bodyLoss(dx, dy, h2) }
                        if let learned { g -= learned[index[j]] }
                        ll += missed(-g * invDetect[j])
                    }
                    scratch[i] = ll
                    alive += pw[i]
                    best = max(best, ll)
                }
                // The scan's normalised innovation squared, each heard beacon's capped (``noteInnovation(_:beacons:)``).
                var innovation = 0.0
                if settings.resetsLostCloud && alive > 0 {
                    let inflation = shadowing?.inflation ?? 1   // the cloud's spread as the report states it
                    for j in 0..<m {
                        let mean = sumR[j] / alive, variance = inflation * max(sumR2[j] / alive - mean * mean, 0)
                        let e = mean * mean / (own[j] + (spreadVariance?[index[j]] ?? 0) + variance)
                        innovation += min(e, ParticleTracker.innovationCap)
                    }
                    noteInnovation(innovation, beacons: m)
                }
                if let spreadVariance {
                    for j in 0..<m { spreadVariance[index[j]] *= own[j] / (own[j] + spreadVariance[index[j]]) }
                }
            }
        }
        }
        guard best.isFinite else { return }
        for i in 0..<n where pw[i] > 0 { pw[i] *= exp(scratch[i] - best) }
    }

    /// Whether the particles know where the walker faces for scan `o` (``weigh(_:)``): never without a body to weigh; a
    /// phone with a step detector once it reported a step in this track (with the field's likelihood; without it, only
    /// in a scan that brings steps); a phone without one once the cloud has moved (``faceAlongVelocity()``).
    private func knowsFacing(_ o: Observation) -> Bool {
        if venue.body.isNone { return false }
        guard let steps = o.steps else { return facesAlongVelocity && hasMoved }
        return settings.fieldModel ? facingKnown : !steps.isEmpty
    }

    /// Multiplies each weight by scan `o`'s likelihood: its RSSI (heard and missed beacons), its ranges, and its headings
    /// toward friezes.
    private func weighScan(_ o: Observation, ranges: [MeasuredRange]) {
        if !o.beacons.isEmpty { weigh(o) }
        if !ranges.isEmpty { weigh(ranges) }
        if settings.weighsHeadings && !venue.friezes.isEmpty && !o.headings.isEmpty { weigh(headings: o.headings) }
    }

    /// Multiplies each weight by the headings' likelihood at the particle: each heading against the bearing from the
    /// particle to its frieze (the one identified, or the visible one whose bearing agrees best from the particle, as the
    /// snapshot fit matches it from its start), Gaussian with the heading's stated σ (at least 0.5°, as in the fit).
    private func weigh(headings: [HeadingReading]) {
        var best = -Double.infinity
        for i in 0..<n {
            guard pw[i] > 0 else { scratch[i] = -.infinity; continue }
            let p = Point(px[i], py[i])
            var ll = 0.0
            for h in headings {
                guard let f = h.frieze ?? FriezeMatcher.bestFrieze(for: h.heading, from: p, venue: venue) else { continue }
                let e = Bearing.difference(h.heading, Bearing.degrees(from: p, to: venue.landmarks[f].position)) / max(h.accuracy, 0.5)
                ll -= 0.5 * e * e
            }
            scratch[i] = ll
            best = max(best, ll)
        }
        guard best.isFinite else { return }
        for i in 0..<n where pw[i] > 0 { pw[i] *= exp(scratch[i] - best) }
    }

    /// Multiplies each weight by the measured ranges' likelihood at the particle: each range r with its σ against the
    /// particle's 3-D distance d to the beacon, N(r − d; 0, σ²), σ at least 1 mm (as in the fit).
    private func weigh(_ ranges: [MeasuredRange]) {
        var best = -Double.infinity
        for i in 0..<n {
            guard pw[i] > 0 else { scratch[i] = -.infinity; continue }
            var ll = 0.0
            for r in ranges {
                let c = venue.beaconPositions[r.beacon], dz = venue.beaconHeightOffset[r.beacon]
                let dx = px[i] - c.x, dy = py[i] - c.y
                let e = ((dx * dx + dy * dy + dz * dz).squareRoot() - r.distance) / max(r.sigma, 1e-3)   // as the fit's
                ll -= 0.5 * e * e
            }
            scratch[i] = ll
            best = max(best, ll)
        }
        guard best.isFinite else { return }
        for i in 0..<n where pw[i] > 0 { pw[i] *= exp(scratch[i] - best) }
    }

    /// Adds a scan's normalised innovation squared `innovation` (over `beacons` heard beacons: each beacon's mean
    /// residual against the cloud, squared, over its predicted variance — the reading's own plus the spread of the
    /// particles' means, times the correlated shadowing's allowance — capped at ``innovationCap``) to
    /// ``lostEvidence``, less one per beacon: the filter consistency test of Bar-Shalom, Li & Kirubarajan (2001,
    /// §5.4), accumulated by Page's CUSUM. One per beacon is what a consistent filter's terms average; the filter's
    /// measure about half that on walks it tracks (the likelihood's model error is generous), so the sum stays near
    /// 0 there. Past ``Settings/lostThreshold`` the cloud counts as lost: particles are drawn afresh after the scan's
    /// report, and the sum starts again once they are (a scan that gives no fit leaves it, and the next scan tries).
    private func noteInnovation(_ innovation: Double, beacons: Int) {
        lostEvidence = max(0, lostEvidence + innovation - Double(beacons))
        if lostEvidence > settings.lostThreshold { injectionDue = true }
    }

    /// Where scan `o`'s own fit would put fresh particles when the cloud is lost (``inject(_:)``): the scan fitted on its
    /// own, with no prior on δ from the cloud (which may have gone wrong with it) and where the walker faced forgotten
    /// (the scan's own steps tell it again). Nil when the scan has fewer than ``Settings/resetReadings`` readings and ranges
    /// or gives no fit.
    private func freshParticles(_ o: Observation, ranges: [MeasuredRange], dt: Double) -> NewParticles? {
        guard o.beacons.count + ranges.count >= settings.resetReadings else { return nil }
        fit.startDevice()   // the scan on its own: nothing from the lost cloud, nor where the walker faced
        guard case .fix(let f) = fit.locate(o, ranges: ranges), let c = fit.linearCovariance else { return nil }
        return newParticles(f, linear: c, dt: dt)
    }

    /// Sensor resetting (``Settings/resetsLostCloud``): in the resampled cloud, all weighing the same, every k-th
    /// particle (k = 1/``Settings/injectedShare``, rounded) is drawn afresh from `around` as a track's first cloud is
    /// (a position on walkable floor, a velocity, δ), keeping its compass bias, facing and learned beacon errors; the
    /// next scans weigh the new particles against the rest. ``lostEvidence`` starts again. Returns the particles drawn
    /// (a particle whose 20 tries all miss the floor keeps its place).
    private func inject(_ around: NewParticles) -> [Int] {
        let every = max(Int((1 / settings.injectedShare).rounded()), 1)
        var drawn: [Int] = []
        resets += 1
        lostEvidence = 0
        for i in stride(from: 0, to: n, by: every) {
            let delta = around.offset + around.offsetSigma * rng.gaussian()
            guard let q = walkablePoint(around, offset: delta) else { continue }
            px[i] = q.x; py[i] = q.y
            pvx[i] = settings.motion.startSpeedSigma * rng.gaussian(); pvy[i] = settings.motion.startSpeedSigma * rng.gaussian()
            pd[i] = delta
            drawn.append(i)
        }
        return drawn
    }

    /// Gives each particle `drawn` afresh at recorded step `v` an ancestor in that step's cloud, for the smoother: the
    /// particle j maximising w_j·exp(−|x_i − x_j|²/(2s²)), s = ``graftSpread`` — the lost cloud's particles nearest the
    /// fresh one, weighed by their weights. Both stand at the same scan (the fresh particles are drawn after its report,
    /// before the next prediction), so this is a proximity kernel in the spirit of forward-filtering backward-simulation's
    /// backward kernel (Godsill, Doucet & West 2004), taken at its mode. Those particles then carry the later scans'
    /// weight back to the steps before the reset; with no ancestor (−1, as a new track's particles have), those steps
    /// were smoothed by the lost lineages alone. (Every weight is finite and they sum to 1 here: a reset follows a
    /// normalised step, so some j always qualifies.)
    private func graft(_ drawn: [Int], onto v: Int) {
        guard let snapshot = history?[v], var parents = snapshot.parents else { return }
        let cloud = snapshot.particles
        let scale = 1 / (2 * ParticleTracker.graftSpread * ParticleTracker.graftSpread)
        let logWeights = (0..<n).map { j in cloud[5 * n + j] > 0 ? log(cloud[5 * n + j]) : -Double.infinity }
        for i in drawn {
            var best = -1, bestScore = Double.infinity
            for j in 0..<n where logWeights[j] > -.infinity {
                let dx = px[i] - cloud[j], dy = py[i] - cloud[n + j]
                let score = (dx * dx + dy * dy) * scale - logWeights[j]
                if score < bestScore { bestScore = score; best = j }
            }
            parents[i] = Int32(best)
        }
        history![v]!.parents = parents
    }
    /// The proximity kernel's spread in ``graft(_:onto:)``, metres: about a walker's move in one scan. The smoother's
    /// Daniş figures were the same within 0.03 m at 0.5, 2 and 4 m (docs/tracking.md, "The smoother through a reset").
    static let graftSpread = 1.0

    /// Scales the weights to sum to 1; false when every particle was dropped.
    private func normalise() -> Bool {
        var total = 0.0
        for i in 0..<n { total += pw[i] }
        guard total > 0, total.isFinite else { return false }
        for i in 0..<n { pw[i] /= total }
        return true
    }

    /// The report: the particles' weighted mean and covariance, unless a wall stands between the mean and the
    /// previous report (the mean of two groups of particles on either side of a wall, or a group that went
    /// through a door the straight line misses). Then it is the particle nearest the mean among those in sight
    /// of the previous report — the blue dot goes round by the door instead of through the wall — and the
    /// covariance grows by the shift (the mean squared error about the reported point). When the particles in
    /// sight carry less than ``inSightShare`` of the weight (or none is in sight), the mean stands.
    private func estimate(_ o: Observation, ranges: [MeasuredRange], inflation: Double) -> EstimateOutcome {
        let summary = report(Cloud(px, n: n, weights: pw), previous: reported, inflation: inflation)   // normalised: the weights sum to 1
        let p = summary.position, c = summary.covariance
        reported = p
        let inView = venue.friezes.isEmpty ? nil : o.headings.last.flatMap { $0.frieze ?? FriezeMatcher.bestFrieze(for: $0.heading, from: p, venue: venue) }
        var used = BeaconSet(o.beacons.lazy.map(\.beacon))
        for r in ranges { used.insert(r.beacon) }
        return .fix(Fix(position: p, uncertainty: c.drms, beaconsUsed: used, frieze: inView,
                        offset: summary.offset, covariance: c, velocity: summary.velocity))
    }

    /// A cloud of `n` weighted particles: the filter's own, or a recorded step's with smoothed weights.
    struct Cloud {
        let x, y, vx, vy, d, w: UnsafePointer<Double>
        /// The particles laid out as the filter keeps them (x, y, vx, vy, δ, `n` each), with their own `weights`.
        init(_ block: UnsafePointer<Double>, n: Int, weights: UnsafePointer<Double>) {
            x = block; y = block + n; vx = block + 2 * n; vy = block + 3 * n; d = block + 4 * n; w = weights
        }
    }

    /// A cloud's report (``estimate(_:ranges:inflation:)``'s rule, in sight of `previous`); its weights sum to 1. The particles'
    /// covariance is multiplied by `inflation` (``ShadowingMemory/inflation``) before a shift adds to it.
    private func report(_ cloud: Cloud, previous: Point?, inflation: Double = 1) -> (position: Point, covariance: Covariance2, velocity: Point, offset: Double) {
        var mx = 0.0, my = 0.0, mvx = 0.0, mvy = 0.0, md = 0.0
        for i in 0..<n {
            let w = cloud.w[i]
            mx += w * cloud.x[i]; my += w * cloud.y[i]; mvx += w * cloud.vx[i]; mvy += w * cloud.vy[i]; md += w * cloud.d[i]
        }
        var cxx = 0.0, cxy = 0.0, cyy = 0.0
        for i in 0..<n {
            let w = cloud.w[i], ex = cloud.x[i] - mx, ey = cloud.y[i] - my
            cxx += w * ex * ex; cxy += w * ex * ey; cyy += w * ey * ey
        }
        var c = Covariance2(xx: cxx, xy: cxy, yy: cyy).scaled(by: inflation)
        var p = Point(mx, my)
        if let r = previous, floorplan.crosses(r.x, r.y, mx, my), let (near, share) = nearestInSight(of: r, to: p, in: cloud),
           share >= Self.inSightShare {
            c = c.adding(outer: near - p)
            p = near
        }
        return (p, c, Point(mvx, mvy), md)
    }

    /// The least share of the weight the particles in sight of the previous report must carry for the report to
    /// stay in sight: a stray particle on the old side (under one of a thousand) does not hold it back when the
    /// cloud has gone on. (At 10%, museum-gallery's field walks crossed walls on 1.0% of consecutive fixes, against
    /// 0.8% at 1%, with the same P75. With the body in the likelihood the weights are sharper: 0.9% at 1%, 0.7% at
    /// 0.1%, ten seeds, the same P75.)
    static let inSightShare = 0.001

    /// The weighted particle of `cloud` nearest `target` with no wall between it and `origin`, and the weight of
    /// all the particles in sight of `origin`; nil when none is.
    private func nearestInSight(of origin: Point, to target: Point, in cloud: Cloud) -> (Point, share: Double)? {
        var best: Point?, bestDistance = Double.infinity, share = 0.0
        for i in 0..<n where cloud.w[i] > 0 && !floorplan.crosses(origin.x, origin.y, cloud.x[i], cloud.y[i]) {
            share += cloud.w[i]
            let dx = cloud.x[i] - target.x, dy = cloud.y[i] - target.y, d = dx * dx + dy * dy
            if d < bestDistance { best = Point(cloud.x[i], cloud.y[i]); bestDistance = d }
        }
        return best.map { ($0, share) }
    }

    /// The kernel's bandwidth for `particles` equally weighted particles: Silverman's rule for a Gaussian kernel in the
    /// d = 4 dimensions jittered (x, y, δ, compass bias), h = (4 / (N·(d + 2)))^(1/(d + 4)); 0.443 for 1,000. A phone
    /// without steps has no bias to jitter (d = 3 would give 0.36); the one h was measured for both (docs/tracking.md).
    package static func bandwidth(particles: Int) -> Double {
        let d = 4.0
        return pow(4 / (Double(max(particles, 1)) * (d + 2)), 1 / (d + 4))
    }

    /// Jitters the resampled cloud (equal weights) by h² times its own covariance: positions jointly (a move off the
    /// floor or through a wall is not made), δ and, once drawn, the compass bias each by its own spread (δ apart from
    /// the position, and without shrinking the cloud toward its mean, so each resampling widens it by about 1 + h²).
    /// A cloud collapsed onto one point has no spread to jitter by.
    private func regularise(bandwidth h: Double) {
        var mx = 0.0, my = 0.0, md = 0.0, mb = 0.0
        for i in 0..<n { mx += px[i]; my += py[i]; md += pd[i]; mb += pb[i] }
        let k = 1 / Double(n)
        mx *= k; my *= k; md *= k; mb *= k
        var cxx = 0.0, cxy = 0.0, cyy = 0.0, vd = 0.0, vb = 0.0
        for i in 0..<n {
            let dx = px[i] - mx, dy = py[i] - my, dd = pd[i] - md, db = pb[i] - mb
            cxx += dx * dx; cxy += dx * dy; cyy += dy * dy; vd += dd * dd; vb += db * db
        }
        let (l00, l10, l11) = Covariance2(xx: cxx * k, xy: cxy * k, yy: cyy * k).choleskyFactor()
        let sd = h * (vd * k).squareRoot(), sb = h * (vb * k).squareRoot()
        var rng = self.rng
        defer { self.rng = rng }
        for i in 0..<n {
            let z0 = rng.gaussian(), z1 = rng.gaussian()
            let x = px[i] + h * l00 * z0, y = py[i] + h * (l10 * z0 + l11 * z1)
            if floorplan.isWalkable(x, y) && !floorplan.crosses(px[i], py[i], x, y) { px[i] = x; py[i] = y }
            pd[i] += sd * rng.gaussian()
            if biasDrawn { pb[i] += sb * rng.gaussian() }
        }
    }

    /// Systematic resampling when the effective sample size is below half the particles; whether it resampled.
    @discardableResult
    private func resampleIfNeeded(always: Bool = false) -> Bool {
        var sumSquares = 0.0
        for i in 0..<n { sumSquares += pw[i] * pw[i] }
        guard sumSquares > 0, always || 1 / sumSquares < Double(n) / 2 else { return false }
        // Copy the chosen particles into scratch rows, one field at a time.
        let step = 1 / Double(n)
        var u = rng.uniform() * step, cumulative = pw[0], j = 0
        for i in 0..<n {
            while u > cumulative && j < n - 1 { j += 1; cumulative += pw[j] }
            chosen[i] = j
            u += step
        }
        for field in [px, py, pvx, pvy, pd, pb, fx, fy] {
            for i in 0..<n { scratch[i] = field[chosen[i]] }
            field.update(from: scratch, count: n)
        }
        if let spreadMean, let spreadScratch {
            for i in 0..<n { (spreadScratch + i * beacons).update(from: spreadMean + chosen[i] * beacons, count: beacons) }
            spreadMean.update(from: spreadScratch, count: n * beacons)
        }
        for i in 0..<n { pw[i] = step }
        return true
    }
}
