import Foundation
import LabCore

/// A track's first cloud and a lost cloud's fresh part: particles drawn around a scan's own fit.
extension ParticleTracker {
    /// Draws the particles around a snapshot fix, and gives that fix (or why there is none).
    func start(_ o: Observation, ranges: [MeasuredRange], dt: Double) -> EstimateOutcome {
        fit.startDevice(offset: settings.motion.carriedOffset(device, dt: dt))
        let outcome = fit.locate(o, ranges: ranges)
        // Around the fit's linearised covariance (with the model error), widened (``NewParticles``). (The fix a new track
        // reports states the fit's honest region, the likelihood-ratio region scaled by the learned residual scale;
        // drawing from that region instead measured no better: docs/tracking.md.)
        guard case .fix(let f) = outcome, let c = fit.linearCovariance, f.covariance != nil,
              let around = newParticles(f, linear: c, dt: dt) else {
            if case .noFix(.tooFewBeacons) = outcome, settings.startsFromFloor, settings.posteriorStart,
               !o.beacons.isEmpty || !ranges.isEmpty, let fix = startFromFloor(o, ranges: ranges, dt: dt) {
                return .fix(fix)
            }
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
        let n = cloud.count
        let px = cloud.x, py = cloud.y, pd = cloud.offset, pw = cloud.weight
        let logWeight = cloud.scratch
        // A phone with a step detector is told when its walker stands: its particles all walk by the steps.
        let modes = standsAndWalks && o.steps == nil
        modesInUse = modes
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
                logWeight[i] = lw
                most = max(most, lw)
            }
            drawMotion(i, modes: modes)
            pw[i] = 1 / Double(n)
        }
        if posterior && most.isFinite { for i in 0..<n { pw[i] = exp(logWeight[i] - most) } }
        beginTrack()
        return outcome
    }

    /// Particle `i`'s velocity (N(0, ``MotionModel/startSpeedSigma``²) per axis), facing (along that velocity) and mode
    /// (standing with ``MotionModel/startStandingShare`` when `modes`: then no velocity, the drawn one kept to walk on at).
    private func drawMotion(_ i: Int, modes: Bool) {
        let pvx = cloud.vx, pvy = cloud.vy
        pvx[i] = settings.motion.startSpeedSigma * rng.gaussian(); pvy[i] = settings.motion.startSpeedSigma * rng.gaussian()
        let speed = (pvx[i] * pvx[i] + pvy[i] * pvy[i]).squareRoot()   // facing along the drawn velocity until it moves
        if speed > 0 { cloud.faceX[i] = pvx[i] / speed; cloud.faceY[i] = pvy[i] / speed } else { cloud.faceX[i] = 0; cloud.faceY[i] = 1 }
        cloud.still[i] = modes && modeRng.uniform() < settings.motion.startStandingShare ? 1 : 0; cloud.stood[i] = 0
        cloud.resumeX[i] = pvx[i]; cloud.resumeY[i] = pvy[i]
        if cloud.still[i] != 0 { pvx[i] = 0; pvy[i] = 0 }
    }

    /// A track's first cloud from a scan of too few readings for a fit (``Settings/startsFromFloor``): every particle
    /// anywhere on the walkable floor, δ from what the phone's earlier tracks carried (a new phone: N(0,
    /// ``MotionModel/startOffsetSigma``²), the calibration's own phone), all weighing the same; the scan then weighs
    /// them (``step(_:ranges:)``), so the first report is its posterior: near the one beacon heard, between two, as wide
    /// as they leave it. The fix returned is the cloud before the scan weighs it. Nil when the floor has no walkable
    /// cell to draw from.
    private func startFromFloor(_ o: Observation, ranges: [MeasuredRange], dt: Double) -> Fix? {
        guard floorPoint() != nil else { return nil }
        let carried = settings.motion.startOffset(device, dt: dt)
        let modes = standsAndWalks && o.steps == nil
        modesInUse = modes
        let n = cloud.count
        for i in 0..<n {
            let q = floorPoint() ?? Point((venue.bounds.minX + venue.bounds.maxX) / 2, (venue.bounds.minY + venue.bounds.maxY) / 2)
            cloud.x[i] = q.x; cloud.y[i] = q.y
            cloud.offset[i] = carried.mean + carried.sigma * rng.gaussian()
            drawMotion(i, modes: modes)
            cloud.weight[i] = 1 / Double(n)
        }
        beginTrack()
        let spread = cloud.spread()
        return Fix(position: spread.mean, uncertainty: (2 * spread.variance).squareRoot(), beaconsUsed: BeaconSet(heard: o, ranges: ranges), offset: carried.mean,
                   covariance: Covariance2(xx: spread.variance, xy: 0, yy: spread.variance), velocity: Point(0, 0))
    }

    /// The drawn cloud is a track: the lost-cloud test, the facing and the beacons' learned errors start afresh.
    private func beginTrack() {
        let n = cloud.count
        isTracking = true
        lostCloud.reset()
        biasDrawn = false; facingKnown = false; hasMoved = false
        shadowing = venue.radio.correlationDistance != nil ? ShadowingMemory(start: cloud.spread(), share: shadowingShare) : nil
        if let errors = cloud.beaconErrors {   // the beacons' errors are learned afresh on every track
            errors.mean.update(repeating: 0, count: n * beacons)
            errors.variance.update(repeating: venue.beaconSpread * venue.beaconSpread, count: beacons)
        }
    }

    /// Where fix `f` (the fit's last, with its linearised covariance `c`) puts new particles: a track's first cloud
    /// (``start(_:ranges:dt:)``) or a lost cloud's fresh part (``inject(_:)``). δ comes first, from N(the fix's δ,
    /// σ²): σ is what the phone's earlier tracks carried (``MotionModel/startOffsetVariance(_:dt:)``), and for a new
    /// phone at least the fit's own σ of δ, which a scan of few beacons leaves wide. The position then comes from
    /// N(where the scan puts the phone *given that δ*, c widened by 1 m² per axis; the floor may cut part of it away).
    /// For a new phone "given that δ" is the fit's ridge (``OffsetFreeFit/ridge(through:fix:)``, solved at
    /// ``NewParticles/ridgeSteps``): a phone read weaker is nearer the beacons, and far along the ridge every
    /// distance scales by 10^(Δδ / 10n). For a phone already known (its next track, a lost cloud's fresh part) it is
    /// the fix: δ is known there to the σ carried. Drawn independently (position around the fix, δ around its δ), a
    /// first cloud of a phone read much weaker than calibrated lies across the ridge and holds no particle near the
    /// truth's (position, δ) (docs/tracking.md, "A new phone's first cloud").
    func newParticles(_ f: Fix, linear c: Covariance2, dt: Double) -> NewParticles? {
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

    struct NewParticles {
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
    func walkablePoint(_ around: NewParticles, offset: Double) -> Point? {
        let c = around.center(offset: offset)
        for _ in 0..<20 {
            let z0 = rng.gaussian(), z1 = rng.gaussian()
            let x = c.x + around.l00 * z0, y = c.y + around.l10 * z0 + around.l11 * z1
            if floorplan.isWalkable(x, y) { return Point(x, y) }
        }
        return nil
    }

    /// A point drawn uniformly on the walkable floor (up to 50 tries in the bounds; nil when none lands on it).
    func floorPoint() -> Point? {
        let b = venue.bounds
        for _ in 0..<50 {
            let x = b.minX + b.width * rng.uniform(), y = b.minY + b.height * rng.uniform()
            if floorplan.isWalkable(x, y) { return Point(x, y) }
        }
        return nil
    }

    /// Where scan `o`'s own fit would put fresh particles when the cloud is lost (``inject(_:)``): the scan fitted on its
    /// own, with no prior on δ from the cloud (which may have gone wrong with it) and where the walker faced forgotten
    /// (the scan's own steps tell it again). Nil when the scan has fewer than ``Settings/resetReadings`` readings and ranges
    /// or gives no fit.
    func freshParticles(_ o: Observation, ranges: [MeasuredRange], dt: Double) -> NewParticles? {
        guard o.beacons.count + ranges.count >= settings.resetReadings else { return nil }
        fit.startDevice()   // the scan on its own: nothing from the lost cloud, nor where the walker faced
        guard case .fix(let f) = fit.locate(o, ranges: ranges), let c = fit.linearCovariance else { return nil }
        return newParticles(f, linear: c, dt: dt)
    }

    /// Sensor resetting (``Settings/resetsLostCloud``): in the resampled cloud, all weighing the same, every k-th
    /// particle (k = 1/``Settings/injectedShare``, rounded) is drawn afresh from `around` as a track's first cloud is
    /// (a position on walkable floor, a velocity, δ), keeping its compass bias, facing and learned beacon errors; the
    /// next scans weigh the new particles against the rest. The lost-cloud evidence starts again. Returns the particles drawn
    /// (a particle whose 20 tries all miss the floor keeps its place).
    func inject(_ around: NewParticles) -> [Int] {
        let every = max(Int((1 / settings.injectedShare).rounded()), 1)
        var drawn: [Int] = []
        resets += 1
        lostCloud.reset()
        for i in stride(from: 0, to: cloud.count, by: every) {
            let delta = around.offset + around.offsetSigma * rng.gaussian()
            guard let q = walkablePoint(around, offset: delta) else { continue }
            cloud.x[i] = q.x; cloud.y[i] = q.y
            cloud.vx[i] = settings.motion.startSpeedSigma * rng.gaussian(); cloud.vy[i] = settings.motion.startSpeedSigma * rng.gaussian()
            cloud.still[i] = 0
            cloud.offset[i] = delta
            drawn.append(i)
        }
        return drawn
    }
}
