import Foundation
import LabCore

/// Tracks a walker: an iterated extended Kalman filter over the scans' RSSI readings themselves (not over
/// snapshot fixes), with a constant-velocity motion model and the phone's RSSI offset δ as a state
/// (docs/tracking.md).
///
/// State s = (x, y, vx, vy, δ). Between scans dt apart (``MotionModel``: white-noise acceleration of spectral
/// density q; δ a slow random walk):
///
///     s⁻ = F s,   F = [[I₂, dt·I₂, 0], [0, I₂, 0], [0, 0, 1]]
///     P⁻ = F P Fᵀ + Q,   Q_pp = q·dt³/3·I₂,  Q_pv = q·dt²/2·I₂,  Q_vv = q·dt·I₂,  Q_δδ = q_δ·dt
///
/// The readings depend on u = (x, y, δ) only. The update is the scan's own fit (``OffsetFreeFit/update``: walls in
/// the model, truncated heard means, Huber's loss) with the prediction of u as a Gaussian prior: a MAP solve,
/// which is the iterated EKF's update. It gives û and its covariance C; the velocity follows by the Gaussian
/// conditioning the Kalman gain expresses:
///
///     K = P⁻_{s,u} (P⁻_uu)⁻¹,   s = s⁻ + K·(û − u⁻),   P = P⁻ − K·(P⁻_uu − C)·Kᵀ
///
/// A track starts from a snapshot fix of the same fit without a prior (δ from what the phone's earlier tracks
/// learned, when there were any), coasts on its prediction through scans that cannot update it, and starts again
/// from the scan at hand when the position's σ exceeds ``Settings/lostSigma`` or the gap between scans exceeds
/// ``MotionModel/longestGap``.
///
/// In a venue with a body (``Venue/body``) the update corrects each reading by the body's extra loss, the walker
/// facing the way the filter's velocity points (``facing()``): the body's loss lasts as long as the walker keeps a
/// heading, so a filter that took it for noise independent between scans averaged it into its fix and stated an
/// ellipse far too small (docs/tracking.md, "The EKF's ellipse").
///
/// Under correlated shadowing the filter weighs each scan as news, so its covariance shrinks faster than its error:
/// what it states is its covariance times ``ShadowingMemory/inflation`` (the state and P are the filter's own).
package final class KalmanTracker {
    public struct Settings: Sendable {
        /// How the walker and the phone's offset move between scans.
        public var motion = MotionModel()
        /// Position σ (√ of the covariance's larger eigenvalue) beyond which the track is lost, m.
        public var lostSigma = 15.0
        /// A track starts from a scan of one or two beacons too (or ranges), too few for a snapshot fix: from the venue's
        /// floor as a Gaussian prior (its bounds' centre and a uniform's variance over them), updated by the scan, so
        /// every scan window that heard something gets a location. Off: no fix until three beacons start the track.
        public var startsFromFloor = true
        public init() {}
    }

    /// One scan's filter quantities: what the smoother (``KalmanTracker/smooth(_:)``) runs backwards over.
    package struct Step: Sendable {
        /// The prediction s⁻ and P⁻ (for a track's first scan: its start, equal to the filtered state).
        package var predicted: [Double], predictedCovariance: [Double]
        /// The state after the update, s and P.
        package var filtered: [Double], filteredCovariance: [Double]
        /// Seconds since the previous scan.
        package var dt: Double
        /// False for a track's first scan (nothing links it to the scan before).
        package var continues: Bool
        /// The fix as the filter gave it (nil: no fix), kept so the smoother can copy its other fields.
        package var fix: Fix?
        package var reason: NoFixReason?
        /// What the fix's covariance was stated at: P's position block times this (``ShadowingMemory/inflation``).
        package var inflation: Double
    }

    package static let stateCount = MotionModel.stateCount
    package let venue: Venue
    package var settings: Settings
    /// The scans' fit: snapshot fixes that start tracks, and the updates.
    let fit: OffsetFreeFit
    private(set) var s = [Double](repeating: 0, count: 5)
    private(set) var P = [Double](repeating: 0, count: 25)
    private var scratch = [Double](repeating: 0, count: 25)
    private var time: Double?
    package private(set) var isTracking = false
    /// δ as the phone's previous tracks left it (mean, variance): a new track of the same phone starts from it.
    private var device: (mean: Double, variance: Double)?
    /// When set, every step is appended (for the smoother, ``smoothTrack(_:)``).
    private var history: [Step]?
    /// The correlated shadowing's memory of this track (nil without ``RadioModel/correlationDistance``).
    private var shadowing: ShadowingMemory?

    package init(venue: Venue, solver: any LeastSquaresSolver, settings: Settings = Settings()) {
        self.venue = venue
        self.settings = settings
        fit = OffsetFreeFit(venue: venue, options: .init(walls: true, robust: true, censored: false, truncatedMeans: true), solver: solver)
    }

    /// A new phone: forget its offset and any track (or start from what the app knows about its offset).
    package func startDevice(knownOffset: (mean: Double, sigma: Double)? = nil) {
        isTracking = false; time = nil
        device = knownOffset.map { ($0.mean, $0.sigma * $0.sigma) }
    }

    /// δ as the filter knows it now (mean, σ), dB: the track's, else what the phone's earlier tracks left.
    package var offset: (mean: Double, sigma: Double)? {
        isTracking ? (s[4], max(P[24], 0).squareRoot()) : device.map { ($0.mean, $0.variance.squareRoot()) }
    }

    /// The same phone, moved arbitrarily since the last scan (the next static test point): the track ends, what was
    /// learned about δ is kept.
    package func startTrack() {
        if isTracking { device = (s[4], P[24]) }
        isTracking = false; time = nil
    }

    /// The walker's position and velocity after one more scan (its RSSI and headings, and in the library the
    /// distances ranged to beacons).
    package func step(_ o: Observation, ranges: [MeasuredRange] = []) -> EstimateOutcome {
        if let problem = o.problem(beaconCount: venue.beaconCount) { return record(.noFix(.invalidInput(problem)), dt: 0, continues: false) }
        var dt = venue.radio.scanWindow
        if let t = o.t, let last = time { dt = t - last }
        if dt < 0 || dt > settings.motion.longestGap { startTrack(); dt = venue.radio.scanWindow }
        if let t = o.t { time = t }
        guard isTracking else { return start(o, ranges: ranges, dt: dt) }
        let beforeState = s, beforeCovariance = P
        predict(dt: dt)
        let predicted = s, predictedCovariance = P
        let updated = o.beacons.isEmpty && o.headings.isEmpty && ranges.isEmpty ? false : update(o, ranges: ranges)
        if !(positionSigma <= settings.lostSigma) || !s.allSatisfy(\.isFinite) || !P.allSatisfy(\.isFinite) {
            // Lost: what the track knew about δ stays with the phone, and this scan starts a new track.
            s = beforeState; P = beforeCovariance
            startTrack()
            return start(o, ranges: ranges, dt: dt)
        }
        if updated, var memory = shadowing, let distance = venue.radio.correlationDistance {
            memory.update(prior: (Point(predicted[0], predicted[1]), KalmanTracker.perAxis(predictedCovariance)),
                          posterior: (Point(s[0], s[1]), KalmanTracker.perAxis(P)), correlationDistance: distance)
            shadowing = memory
        }
        let used = updated ? BeaconSet(heard: o, ranges: ranges) : BeaconSet()
        return record(.fix(currentFix(used: used, headings: o.headings)), dt: dt, continues: true,
                      predicted: (predicted, predictedCovariance))
    }

    /// The position's variance per axis (half the trace of its block), m².
    private static func perAxis(_ covariance: [Double]) -> Double { (covariance[0] + covariance[6]) / 2 }

    /// √ of the position covariance's larger eigenvalue, m.
    package var positionSigma: Double { KalmanTracker.position(P).principalAxes.major.squareRoot() }

    /// The position block of a 5×5 state covariance.
    private static func position(_ covariance: [Double]) -> Covariance2 { Covariance2(xx: covariance[0], xy: covariance[1], yy: covariance[6]) }

    /// Starts a track from a snapshot fix of `o`.
    private func start(_ o: Observation, ranges: [MeasuredRange], dt: Double) -> EstimateOutcome {
        fit.startDevice(offset: settings.motion.carriedOffset(device, dt: dt))
        let outcome = fit.locate(o, ranges: ranges)
        guard case .fix(let f) = outcome, let c = f.covariance, let delta = f.offset else {
            if case .noFix(.tooFewBeacons) = outcome, settings.startsFromFloor, !o.beacons.isEmpty || !ranges.isEmpty {
                return startFromFloor(o, ranges: ranges, dt: dt, fallback: outcome)
            }
            return record(outcome.fix == nil ? outcome : .noFix(.solverFailed("the first fix has no covariance")), dt: dt, continues: false)
        }
        let v = settings.motion.startSpeedSigma * settings.motion.startSpeedSigma
        let offsetVariance = settings.motion.startOffsetVariance(device, dt: dt)
        s = [f.position.x, f.position.y, 0, 0, delta]
        P = [c.xx, c.xy, 0, 0, 0,
             c.xy, c.yy, 0, 0, 0,
             0, 0, v, 0, 0,
             0, 0, 0, v, 0,
             0, 0, 0, 0, offsetVariance]
        isTracking = true
        shadowing = venue.radio.correlationDistance == nil ? nil
            : ShadowingMemory(start: (f.position, KalmanTracker.perAxis(P)),
                              share: ShadowingMemory.share(sigma: venue.radio.sigma, modelError: venue.radio.modelError))
        return record(.fix(currentFix(used: f.beaconsUsed, headings: o.headings)), dt: dt, continues: false)
    }

    /// A track's start from a scan too few for a fit (``Settings/startsFromFloor``): the prior is the venue's bounds as a
    /// Gaussian (their centre; a uniform's variance, width²/12 and depth²/12), no velocity (σ
    /// ``MotionModel/startSpeedSigma``), δ as the phone's earlier tracks carried it (a new phone: N(0,
    /// ``MotionModel/startOffsetSigma``²)); the scan's update follows. `fallback` when the update fails.
    private func startFromFloor(_ o: Observation, ranges: [MeasuredRange], dt: Double, fallback: EstimateOutcome) -> EstimateOutcome {
        let b = venue.bounds
        let carried = settings.motion.startOffset(device, dt: dt)
        let v = settings.motion.startSpeedSigma * settings.motion.startSpeedSigma
        s = [(b.minX + b.maxX) / 2, (b.minY + b.maxY) / 2, 0, 0, carried.mean]
        P = [b.width * b.width / 12, 0, 0, 0, 0,
             0, b.height * b.height / 12, 0, 0, 0,
             0, 0, v, 0, 0,
             0, 0, 0, v, 0,
             0, 0, 0, 0, carried.sigma * carried.sigma]
        let prior = (s, P)
        guard update(o, ranges: ranges), s.allSatisfy(\.isFinite), P.allSatisfy(\.isFinite) else {
            isTracking = false
            return record(fallback, dt: dt, continues: false)
        }
        isTracking = true
        shadowing = venue.radio.correlationDistance == nil ? nil
            : ShadowingMemory(start: (Point(s[0], s[1]), KalmanTracker.perAxis(P)),
                              share: ShadowingMemory.share(sigma: venue.radio.sigma, modelError: venue.radio.modelError))
        return record(.fix(currentFix(used: BeaconSet(heard: o, ranges: ranges), headings: o.headings)), dt: dt, continues: false, predicted: prior)
    }

    /// s⁻ = F s, P⁻ = F P Fᵀ + Q.
    private func predict(dt: Double) {
        settings.motion.predict(state: &s, dt: dt)
        settings.motion.predict(covariance: &P, dt: dt)
    }

    /// Which way the walker faces, degrees, with its σ, for weighing the body (nil when the venue has none or the
    /// filter has no velocity): the predicted velocity's direction, σ the velocity's spread across that direction over
    /// the speed (up to 90°: a walker standing still, or a velocity not yet found, gets a blurred sector).
    ///
    /// Not the phone's steps, which the EKF does not otherwise use: their heading carries the compass's bias and no
    /// step comes while the walker stands, so they serve the field walks worse than the filter's own velocity; and no
    /// σ limit beyond which the body goes unweighed (docs/tracking.md, "The EKF's ellipse").
    private func facing() -> (heading: Double, sigma: Double)? {
        guard !venue.body.isNone else { return nil }
        let vx = s[2], vy = s[3], speedSquared = vx * vx + vy * vy
        guard speedSquared > 0 else { return nil }
        // The velocity's variance across its direction, (−vy, vx)ᵀ P_vv (−vy, vx) / |v|².
        let across = (vy * vy * P[12] - 2 * vx * vy * P[13] + vx * vx * P[18]) / speedSquared
        let sigma = atan2(max(across, 0).squareRoot(), speedSquared.squareRoot()) * 180 / .pi
        return (atan2(vx, vy) * 180 / .pi, sigma)
    }

    /// The update from one scan; false when the scan's fit failed (the prediction stands).
    private func update(_ o: Observation, ranges: [MeasuredRange]) -> Bool {
        let u = [0, 1, 4]
        let cov = Symmetric3(xx: P[0], xy: P[1], xd: P[4], yy: P[6], yd: P[9], dd: P[24])
        guard let prior = StatePrior(x: s[0], y: s[1], delta: s[4], covariance: cov),
              let sol = fit.update(o, ranges: ranges, prior: prior, facing: facing()), let c = sol.full,
              let puuInverse = SmallMatrix.inverse([cov.xx, cov.xy, cov.xd, cov.xy, cov.yy, cov.yd, cov.xd, cov.yd, cov.dd], n: 3)
        else { return false }
        // K = P_{s,u} P_uu⁻¹ (5×3).
        var K = [Double](repeating: 0, count: 15)
        for i in 0..<5 {
            for j in 0..<3 {
                var sum = 0.0
                for k in 0..<3 { sum += P[i * 5 + u[k]] * puuInverse[k * 3 + j] }
                K[i * 3 + j] = sum
            }
        }
        let innovation = [sol.position.x - s[0], sol.position.y - s[1], sol.offset - s[4]]
        let D = [cov.xx - c.xx, cov.xy - c.xy, cov.xd - c.xd,
                 cov.xy - c.xy, cov.yy - c.yy, cov.yd - c.yd,
                 cov.xd - c.xd, cov.yd - c.yd, cov.dd - c.dd]
        // P −= K D Kᵀ
        for i in 0..<5 {
            var kd = (0.0, 0.0, 0.0)
            kd.0 = K[i * 3] * D[0] + K[i * 3 + 1] * D[3] + K[i * 3 + 2] * D[6]
            kd.1 = K[i * 3] * D[1] + K[i * 3 + 1] * D[4] + K[i * 3 + 2] * D[7]
            kd.2 = K[i * 3] * D[2] + K[i * 3 + 1] * D[5] + K[i * 3 + 2] * D[8]
            for j in 0..<5 { scratch[i * 5 + j] = kd.0 * K[j * 3] + kd.1 * K[j * 3 + 1] + kd.2 * K[j * 3 + 2] }
        }
        var updated = P
        for k in 0..<25 { updated[k] -= scratch[k] }
        SmallMatrix.symmetrise(&updated, n: 5)
        // A covariance that lost positive variances (rounding in a nearly singular update) is not used: the
        // prediction stands.
        for i in 0..<5 where !(updated[i * 5 + i] > 0) || !updated[i * 5 + i].isFinite { return false }
        P = updated
        for i in 0..<5 { for k in 0..<3 { s[i] += K[i * 3 + k] * innovation[k] } }
        // The scan's own fit already holds the position in the venue; keep the state there too.
        let inside = venue.bounds.clamp(Point(s[0], s[1]))
        s[0] = inside.x; s[1] = inside.y
        return true
    }

    private func currentFix(used: BeaconSet, headings: [HeadingReading]) -> Fix {
        let p = Point(s[0], s[1])
        let c = KalmanTracker.position(P).scaled(by: shadowing?.inflation ?? 1)
        let inView = venue.friezes.isEmpty ? nil : headings.last.flatMap { $0.frieze ?? FriezeMatcher.bestFrieze(for: $0.heading, from: p, venue: venue) }
        return Fix(position: p, uncertainty: c.drms, beaconsUsed: used, frieze: inView, offset: s[4], covariance: c,
                   velocity: Point(s[2], s[3]))
    }

    private func record(_ outcome: EstimateOutcome, dt: Double, continues: Bool,
                        predicted: ([Double], [Double])? = nil) -> EstimateOutcome {
        guard history != nil else { return outcome }
        var reason: NoFixReason?
        if case .noFix(let r) = outcome { reason = r }
        let tracked = outcome.fix != nil
        history!.append(Step(predicted: predicted?.0 ?? s, predictedCovariance: predicted?.1 ?? P,
                             filtered: tracked ? s : [], filteredCovariance: tracked ? P : [],
                             dt: dt, continues: continues && tracked, fix: outcome.fix, reason: reason,
                             inflation: shadowing?.inflation ?? 1))
        return outcome
    }

    /// A whole track for offline replay: the filter over `observations`, then ``smooth(_:bounds:)`` over its steps.
    package func smoothTrack(_ observations: [Observation]) -> [EstimateOutcome] {
        history = []
        history!.reserveCapacity(observations.count)
        defer { history = nil }
        for o in observations { _ = step(o) }
        return KalmanTracker.smooth(history!, bounds: venue.bounds)
    }

    /// Rauch–Tung–Striebel smoothing of a run of steps (offline, where the future is known): backwards over each
    /// stretch of linked steps,
    ///
    ///     G_k = P_k Fᵀ (P⁻_{k+1})⁻¹,   s̃_k = s_k + G_k (s̃_{k+1} − s⁻_{k+1}),   P̃_k = P_k + G_k (P̃_{k+1} − P⁻_{k+1}) G_kᵀ
    ///
    /// Steps without a fix stay without one; a fix keeps its other fields with the smoothed position, velocity, δ
    /// and covariance (times the filter's ``Step/inflation`` there: the future's scans share the shadowing too).
    package static func smooth(_ steps: [Step], bounds: Rect) -> [EstimateOutcome] {
        let n = stateCount
        var out: [EstimateOutcome] = steps.map { $0.fix.map(EstimateOutcome.fix) ?? .noFix($0.reason ?? .solverFailed("no fix")) }
        guard steps.count > 1 else { return out }
        var smoothed = steps.last!.filtered, smoothedCovariance = steps.last!.filteredCovariance
        var temp = [Double](repeating: 0, count: n * n), G = temp, diff = temp, temp2 = temp
        var F = MotionModel.transition(dt: 0)
        for k in stride(from: steps.count - 2, through: 0, by: -1) {
            let next = steps[k + 1], here = steps[k]
            guard next.continues, here.fix != nil, !here.filtered.isEmpty, !smoothed.isEmpty,
                  let predictedInverse = SmallMatrix.inverse(next.predictedCovariance, n: n) else {
                smoothed = here.filtered; smoothedCovariance = here.filteredCovariance
                continue
            }
            MotionModel.setTransition(&F, dt: next.dt)
            // G = P_k Fᵀ (P⁻)⁻¹
            SmallMatrix.multiplyTransposed(here.filteredCovariance, F, n: n, into: &temp)
            SmallMatrix.multiply(temp, predictedInverse, n: n, into: &G)
            var state = here.filtered
            for i in 0..<n {
                for j in 0..<n { state[i] += G[i * n + j] * (smoothed[j] - next.predicted[j]) }
            }
            for i in 0..<n * n { diff[i] = smoothedCovariance[i] - next.predictedCovariance[i] }
            SmallMatrix.multiply(G, diff, n: n, into: &temp)
            SmallMatrix.multiplyTransposed(temp, G, n: n, into: &temp2)
            var covariance = here.filteredCovariance
            for i in 0..<n * n { covariance[i] += temp2[i] }
            SmallMatrix.symmetrise(&covariance, n: n)
            let p = bounds.clamp(Point(state[0], state[1]))
            state[0] = p.x; state[1] = p.y
            smoothed = state; smoothedCovariance = covariance
            if var f = here.fix {
                let c = position(covariance).scaled(by: here.inflation)
                f.position = p; f.covariance = c; f.uncertainty = c.drms; f.offset = state[4]; f.velocity = Point(state[2], state[3])
                out[k] = .fix(f)
            }
        }
        return out
    }
}
