import Foundation
import LabCore

/// Tracks a walker with particles that live on the floorplan (docs/tracking.md): each particle is a
/// state (x, y, vx, vy, δ) — position, velocity and the phone's RSSI offset — and
/// - **moves** by the trackers' ``MotionModel``: each particle's walker walks (constant velocity, white-noise
///   acceleration q, exactly discretised over the time between scans) or stands (a small random walk), switching between
///   the two at random (``Settings/stillMode``), the readings choosing which particles survive; δ a slow random walk. Or, when the phone reports steps
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
///   the cloud (``LostCloudDetector``) finds a cloud in the wrong place, and part of it (a tenth by default)
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
///
/// Its parts, each in a file of its own: the particles (``ParticleCloud``), the scan's likelihood (``ScanTerms``,
/// ParticleTracker+Likelihood), the motion and the regularising kernel (ParticleTracker+Motion), the first-scan start
/// and a lost cloud's fresh particles (ParticleTracker+Start), the lost-cloud test (``LostCloudDetector``) and the
/// offline smoother (``FixedLagSmoother``).
package final class ParticleTracker {
    package let venue: Venue
    package let settings: Settings
    package let floorplan: FloorplanIndex
    let fit: OffsetFreeFit
    /// The particles.
    let cloud: ParticleCloud
    /// The venue's beacon count.
    let beacons: Int
    /// One scan's per-beacon likelihood terms, reused.
    let terms: ScanTerms
    /// Which of the venue's beacons this scan heard (``weigh(_:)``, with the field's likelihood), reused.
    let heardFlags: UnsafeMutablePointer<Bool>
    /// How far above its mean a beacon's strongest reading in a scan window lies, dB (``weigh(_:)``).
    let detectionLift: Double
    /// The strongest reading's variance about that, in units of σ² (``weigh(_:)``).
    let strongestSpread: Double
    /// ln P(missed) against how far the sensitivity lies above the strongest reading's mean (``Settings/missFloor``).
    let missedTerm: TruncatedNormal.FlooredLogSurvival
    var rng = TrackerRandom(seed: 0)
    /// The walking and standing modes' own stream (``Settings/stillMode``): their draws leave ``rng``'s as they were, so a
    /// phone with a step detector (which has no modes) draws what it drew without them.
    var modeRng = TrackerRandom(seed: 0)
    private var devices: UInt64 = 0
    private var time: Double?
    package internal(set) var isTracking = false
    /// What the phone's earlier tracks left of its offset δ (mean, variance), or what the app told.
    var device: (mean: Double, variance: Double)?
    /// Whether this track's particles have their compass bias yet: drawn at the first steps, so that a phone
    /// without a step detector takes the same random draws as one with.
    var biasDrawn = false
    /// Whether this track's particles walk or stand (``Settings/stillMode``): set when the track starts.
    var modesInUse = false
    /// Whether this track's particles know where the walker faces: since the phone reported its first step.
    var facingKnown = false
    /// Whether this track's cloud has moved faster than ``Settings/facingSpeed`` (its weighted mean velocity): from then
    /// on particles of a phone without steps face along it (``faceAlongVelocity()``). A phone that never moved (on a desk, or
    /// held by someone standing) keeps the body in the model error.
    var hasMoved = false
    /// Whether the scans keep disagreeing with the cloud: then particles are drawn afresh after the scan's report
    /// (``inject(_:)``).
    var lostCloud: LostCloudDetector
    /// How many times this tracker found its cloud lost and drew particles afresh (``inject(_:)``), over its life.
    package internal(set) var resets = 0
    /// The correlated shadowing's memory of this track (nil without ``RadioModel/correlationDistance``).
    var shadowing: ShadowingMemory?
    /// The position this track last reported: the next report is kept in sight of it (no wall between).
    private var reported: Point?
    /// While smoothing a whole track offline (``smoothTrack(_:lag:)``), what each step recorded.
    private var smoother: FixedLagSmoother?

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
        beacons = venue.beaconCount
        cloud = ParticleCloud(count: settings.particles, learnedBeacons: settings.fieldModel && venue.beaconSpread > 0 ? beacons : nil)
        terms = ScanTerms(capacity: beacons)
        heardFlags = .allocate(capacity: max(beacons, 1))
        heardFlags.initialize(repeating: false, count: max(beacons, 1))
        let readings = venue.radio.correlationDistance != nil ? 1 : Double(venue.radio.advertisementsPerWindow) * (1 - venue.radio.packetLoss)
        detectionLift = venue.radio.sigma * TruncatedNormal.expectedMaximum(of: readings)
        // The strongest of K′ readings spreads about half a σ; under correlated shadowing (one draw per window), or with
        // at most one reading a window (a phone that reports one reading a scan), a whole σ.
        strongestSpread = venue.radio.correlationDistance != nil || readings < 2 ? 1 : 0.25
        missedTerm = TruncatedNormal.FlooredLogSurvival(floor: 1 - (1 - settings.missFloor) * (1 - venue.radio.dropout))
        lostCloud = LostCloudDetector(threshold: settings.lostThreshold)
        startDevice()
    }

    deinit { terms.deallocate(); heardFlags.deallocate() }

    /// A new phone: its own random stream, no track, nothing known about its offset (or what the app knows about it).
    package func startDevice(knownOffset: (mean: Double, sigma: Double)? = nil) {
        devices += 1
        let seed = venue.seed &* 0x9E37_79B9_7F4A_7C15 &+ devices
        rng = TrackerRandom(seed: seed)
        modeRng = TrackerRandom(seed: seed ^ 0x5851_F42D_4C95_7F2D)
        isTracking = false; time = nil; reported = nil
        device = knownOffset.map { ($0.mean, $0.sigma * $0.sigma) }
    }

    /// δ as the filter knows it now (mean, σ), dB: the particles' weighted mean and spread while tracking, else what
    /// the phone's earlier tracks left.
    package var offset: (mean: Double, sigma: Double)? {
        guard isTracking else { return device.map { ($0.mean, $0.variance.squareRoot()) } }
        var mean = 0.0, square = 0.0
        let pw = cloud.weight, pd = cloud.offset
        for i in 0..<cloud.count { mean += pw[i] * pd[i]; square += pw[i] * pd[i] * pd[i] }   // normalised after every step
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
        guard isTracking, let moments = cloud.offsetMoments() else { return }
        device = (moments.mean, max(moments.variance, 0.01))
    }

    /// The walker's position and velocity after one more scan: its RSSI, its steps when the phone has a step
    /// detector, and in the library the distances ranged to beacons (each a Gaussian with its stated σ).
    package func step(_ o: Observation, ranges: [MeasuredRange] = []) -> EstimateOutcome {
        if let problem = o.problem(beaconCount: venue.beaconCount) { smoother?.record(nil); return .noFix(.invalidInput(problem)) }
        var dt = venue.radio.scanWindow
        if let t = o.t, let last = time { dt = t - last }
        if dt < 0 || dt > settings.motion.longestGap { startTrack(); dt = venue.radio.scanWindow }
        if let t = o.t { time = t }
        if isTracking {
            keepOffset()   // before the particles move: if every one is dropped, δ's estimate survives
            if let steps = o.steps { predict(steps: steps, dt: dt) } else { predict(dt: dt) }
            let prior = shadowing != nil ? cloud.spread() : nil
            weighScan(o, ranges: ranges)
            if !cloud.normalise() { endTrack() } else if let prior { followShadowing(prior: prior) }
        }
        let fresh = !isTracking   // drawn afresh below: no lineage to the step before
        var first: Fix?
        if !isTracking {
            switch start(o, ranges: ranges, dt: dt) {
            case .noFix(let reason): smoother?.record(nil); return .noFix(reason)
            case .fix(let f): first = f
            }
            // The first cloud weighed by its scan: the posterior, whose mean is the first report (and whose spread the
            // correlated shadowing's memory starts from: the first scan's error).
            if settings.posteriorStart {
                weighScan(o, ranges: ranges)
                if cloud.normalise() { first = nil } else { for i in 0..<cloud.count { cloud.weight[i] = 1 / Double(cloud.count) } }
                if shadowing != nil { shadowing = ShadowingMemory(start: cloud.spread(), share: shadowingShare) }
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
        smoother?.record(.init(particles: cloud.snapshot(), fresh: fresh, hadReport: hadReport))
        // A lost cloud: where the scan's own fit would put fresh particles (none when it gives no fit: the evidence stays,
        // and the next scan tries again).
        let redraw = lostCloud.isLost && !fresh ? freshParticles(o, ranges: ranges, dt: dt) : nil
        lostCloud.acknowledge()
        if cloud.resampleIfNeeded(always: redraw != nil, modes: modesInUse, draw: { rng.uniform() }) {
            smoother?.noteResampled(chosen: cloud.chosen)
            if settings.regularised { regularise(bandwidth: ParticleTracker.bandwidth(particles: cloud.count)) }
        }
        if let redraw {
            let drawn = inject(redraw)
            smoother?.graft(drawn, from: cloud)
        }
        return outcome
    }

    /// A whole track for offline replay: the filter over `observations`, recording each step, then the fixed-lag
    /// smoother (``FixedLagSmoother``) over what it recorded.
    package func smoothTrack(_ observations: [Observation], lag: Int) -> [EstimateOutcome] {
        smoother = FixedLagSmoother(count: cloud.count, capacity: observations.count)
        defer { smoother = nil }
        let filtered = observations.map { step($0) }
        return smoother!.smoothed(filtered, lag: lag) { view, previous in
            let summary = report(view, previous: previous)
            return (summary.position, summary.velocity, summary.offset)
        }
    }

    /// The least model error σ_m the likelihood allows for after the parts it weighs itself, dB: ``Settings/modelSigma``
    /// when the venue states a model error, 0 when it states none.
    var modelErrorFloor: Double { venue.radio.modelError > 0 ? settings.modelSigma : 0 }

    /// ς = σ² / (σ² + σ_m²): the shadowing's share of what the likelihood takes one beacon's scan mean to vary by at
    /// a track's start (one reading per window under correlated shadowing). σ_m² is the venue's model error (at least
    /// ``Settings/modelSigma``) whole: ``weigh(_:)`` moves the beacons' spread out of it into their learned errors'
    /// variance, which starts at the same size, and keeps the body's share until the facing is known.
    var shadowingShare: Double {
        ShadowingMemory.share(sigma: venue.radio.sigma, modelError: max(modelErrorFloor, venue.radio.modelError))
    }

    /// The scan just weighed, after `prior` (the cloud as it moved): the shadowing's memory follows.
    private func followShadowing(prior: (mean: Point, variance: Double)) {
        guard var memory = shadowing, let distance = venue.radio.correlationDistance else { return }
        let posterior = cloud.spread()
        memory.update(prior: prior, posterior: posterior, correlationDistance: distance)
        shadowing = memory
    }

    /// The report: the particles' weighted mean and covariance, unless a wall stands between the mean and the
    /// previous report (the mean of two groups of particles on either side of a wall, or a group that went
    /// through a door the straight line misses). Then it is the particle nearest the mean among those in sight
    /// of the previous report — the blue dot goes round by the door instead of through the wall — and the
    /// covariance grows by the shift (the mean squared error about the reported point). When the particles in
    /// sight carry less than ``inSightShare`` of the weight (or none is in sight), the mean stands.
    private func estimate(_ o: Observation, ranges: [MeasuredRange], inflation: Double) -> EstimateOutcome {
        let summary = report(cloud.view, previous: reported, inflation: inflation)   // normalised: the weights sum to 1
        let p = summary.position, c = summary.covariance
        reported = p
        let inView = venue.friezes.isEmpty ? nil : o.headings.last.flatMap { $0.frieze ?? FriezeMatcher.bestFrieze(for: $0.heading, from: p, venue: venue) }
        return .fix(Fix(position: p, uncertainty: c.drms, beaconsUsed: BeaconSet(heard: o, ranges: ranges), frieze: inView,
                        offset: summary.offset, covariance: c, velocity: summary.velocity))
    }

    /// A cloud's report (``estimate(_:ranges:inflation:)``'s rule, in sight of `previous`); its weights sum to 1. The particles'
    /// covariance is multiplied by `inflation` (``ShadowingMemory/inflation``) before a shift adds to it.
    private func report(_ particles: ParticleCloud.View, previous: Point?, inflation: Double = 1) -> (position: Point, covariance: Covariance2, velocity: Point, offset: Double) {
        var mx = 0.0, my = 0.0, mvx = 0.0, mvy = 0.0, md = 0.0
        for i in 0..<particles.count {
            let w = particles.weight[i]
            mx += w * particles.x[i]; my += w * particles.y[i]; mvx += w * particles.vx[i]; mvy += w * particles.vy[i]; md += w * particles.offset[i]
        }
        var cxx = 0.0, cxy = 0.0, cyy = 0.0
        for i in 0..<particles.count {
            let w = particles.weight[i], ex = particles.x[i] - mx, ey = particles.y[i] - my
            cxx += w * ex * ex; cxy += w * ex * ey; cyy += w * ey * ey
        }
        var c = Covariance2(xx: cxx, xy: cxy, yy: cyy).scaled(by: inflation)
        var p = Point(mx, my)
        if let r = previous, floorplan.crosses(r.x, r.y, mx, my), let (near, share) = nearestInSight(of: r, to: p, in: particles),
           share >= Self.inSightShare {
            c = c.adding(outer: near - p)
            p = near
        }
        return (p, c, Point(mvx, mvy), md)
    }

    /// The least share of the weight the particles in sight of the previous report must carry for the report to
    /// stay in sight: a stray particle on the old side (under one of a thousand) does not hold it back when the
    /// cloud has gone on (docs/tracking.md).
    static let inSightShare = 0.001

    /// The weighted particle of `particles` nearest `target` with no wall between it and `origin`, and the weight of
    /// all the particles in sight of `origin`; nil when none is.
    private func nearestInSight(of origin: Point, to target: Point, in particles: ParticleCloud.View) -> (Point, share: Double)? {
        var best: Point?, bestDistance = Double.infinity, share = 0.0
        for i in 0..<particles.count where particles.weight[i] > 0 && !floorplan.crosses(origin.x, origin.y, particles.x[i], particles.y[i]) {
            share += particles.weight[i]
            let dx = particles.x[i] - target.x, dy = particles.y[i] - target.y, d = dx * dx + dy * dy
            if d < bestDistance { best = Point(particles.x[i], particles.y[i]); bestDistance = d }
        }
        return best.map { ($0, share) }
    }
}
