import Foundation
import LabCore

/// The particle filter's particles: `count` states (x, y, vx, vy, δ) with their weights, each particle's compass
/// bias and where its walker faces, and, when the venue has a beacon spread, each particle's learned beacon errors
/// (``BeaconErrors``). Stored as a structure of arrays in one block the cloud owns; the tracker moves, weighs and
/// reports them (``ParticleTracker``).
///
/// Layout: x, y, vx, vy, δ and weight lie one after another (`count` each), so that a ``Snapshot`` of what a
/// smoother needs is one copy, and ``View`` reads a snapshot with the same layout.
final class ParticleCloud {
    let count: Int
    /// Position (m), velocity (m/s) and the phone's RSSI offset δ (dB) of each particle.
    let x, y, vx, vy, offset: UnsafeMutablePointer<Double>
    /// Each particle's weight: they sum to 1 after ``normalise()``; 0 for a dropped particle.
    let weight: UnsafeMutablePointer<Double>
    /// Each particle's compass bias (radians), drawn at a track's first steps.
    let compassBias: UnsafeMutablePointer<Double>
    /// Where each particle's walker faces (unit vector: sin, cos of the heading), for the body.
    let faceX, faceY: UnsafeMutablePointer<Double>
    /// Each particle's motion mode: 1 when its walker stands still, 0 when it walks (``MotionModel/standScale``); and how
    /// long it has stood, s.
    let still, stood: UnsafeMutablePointer<Double>
    /// A standing particle's velocity when it walks on (m/s): the one it stopped at (its velocity is 0 while it stands).
    let resumeX, resumeY: UnsafeMutablePointer<Double>
    /// One number per particle of working space (log-likelihoods, resampling's copies).
    let scratch: UnsafeMutablePointer<Double>
    /// The particles resampling keeps, reused every time.
    let chosen: UnsafeMutablePointer<Int>
    /// The beacons' P0 errors as each particle has learned them (nil when the venue has no beacon spread).
    let beaconErrors: BeaconErrors?

    /// Each beacon's P0 error as each particle has learned it (``Venue/beaconSpread``): the mean of a Gaussian whose
    /// variance is the same for every particle (it depends on how often the beacon was heard, not where) and kept once.
    /// The errors are linear in the readings given a particle's track, so each particle updates its own by a Kalman
    /// step (Rao–Blackwellisation: the particles carry the track, the Gaussians the beacons).
    struct BeaconErrors {
        let beacons: Int
        /// `beacons` means per particle, one particle after another.
        let mean: UnsafeMutablePointer<Double>
        /// The same size as `mean`: resampling's copy.
        let scratch: UnsafeMutablePointer<Double>
        /// One variance per beacon, shared by every particle.
        let variance: UnsafeMutablePointer<Double>

        /// Particle `i`'s learned errors, one per beacon.
        @inline(__always) func of(particle i: Int) -> UnsafeMutablePointer<Double> { mean + i * beacons }
    }

    /// A cloud of `count` particles (at least 1), all zero; with `learnedBeacons`, room for each particle's learned
    /// error of that many beacons.
    init(count: Int, learnedBeacons: Int?) {
        self.count = max(count, 1)
        let n = self.count
        let block = UnsafeMutablePointer<Double>.allocate(capacity: 14 * n)
        block.initialize(repeating: 0, count: 14 * n)
        x = block; y = block + n; vx = block + 2 * n; vy = block + 3 * n; offset = block + 4 * n; weight = block + 5 * n
        scratch = block + 6 * n; compassBias = block + 7 * n; faceX = block + 8 * n; faceY = block + 9 * n
        still = block + 10 * n; resumeX = block + 11 * n; resumeY = block + 12 * n; stood = block + 13 * n
        chosen = .allocate(capacity: n)
        chosen.initialize(repeating: 0, count: n)
        if let beacons = learnedBeacons {
            let errors = UnsafeMutablePointer<Double>.allocate(capacity: (2 * n + 1) * beacons)
            errors.initialize(repeating: 0, count: (2 * n + 1) * beacons)
            beaconErrors = BeaconErrors(beacons: beacons, mean: errors, scratch: errors + n * beacons, variance: errors + 2 * n * beacons)
        } else {
            beaconErrors = nil
        }
    }

    deinit { x.deallocate(); chosen.deallocate(); beaconErrors?.mean.deallocate() }

    /// Scales the weights to sum to 1; false when every particle was dropped.
    func normalise() -> Bool {
        var total = 0.0
        for i in 0..<count { total += weight[i] }
        guard total > 0, total.isFinite else { return false }
        for i in 0..<count { weight[i] /= total }
        return true
    }

    /// δ's weighted mean and variance over the particles, the weights taken as they are (they need not sum to 1);
    /// nil when no particle has weight left.
    func offsetMoments() -> (mean: Double, variance: Double)? {
        var total = 0.0, mean = 0.0, square = 0.0
        for i in 0..<count { total += weight[i]; mean += weight[i] * offset[i]; square += weight[i] * offset[i] * offset[i] }
        guard total > 0, total.isFinite else { return nil }
        mean /= total; square /= total
        return (mean, square - mean * mean)
    }

    /// The cloud's weighted mean position and its variance per axis (the covariance's half trace); weights need not
    /// sum to 1.
    func spread() -> (mean: Point, variance: Double) {
        var total = 0.0, mx = 0.0, my = 0.0
        for i in 0..<count where weight[i] > 0 { total += weight[i]; mx += weight[i] * x[i]; my += weight[i] * y[i] }
        guard total > 0 else { return (Point(0, 0), 0) }
        mx /= total; my /= total
        var square = 0.0
        for i in 0..<count where weight[i] > 0 {
            let ex = x[i] - mx, ey = y[i] - my
            square += weight[i] * (ex * ex + ey * ey)
        }
        return (Point(mx, my), square / (2 * total))
    }

    /// The weighted mean velocity of the walking particles (weights need not sum to 1: a standing particle's is 0, and
    /// it does not count); nil when no walking particle has weight left.
    func meanVelocity() -> Point? {
        var total = 0.0, mvx = 0.0, mvy = 0.0
        for i in 0..<count where weight[i] > 0 && still[i] == 0 { total += weight[i]; mvx += weight[i] * vx[i]; mvy += weight[i] * vy[i] }
        guard total > 0 else { return nil }
        return Point(mvx / total, mvy / total)
    }

    /// Systematic resampling (one uniform draw `u0` in [0, 1), N evenly spaced pointers) when the effective sample size
    /// 1/Σw² is below half the particles, or `always`; whether it resampled. The kept particles are in ``chosen``. The
    /// motion modes (``still``, ``stood``, ``resumeX``, ``resumeY``) are copied only with `modes` (a track that has them).
    func resampleIfNeeded(always: Bool, modes: Bool, draw: () -> Double) -> Bool {
        let n = count
        var sumSquares = 0.0
        for i in 0..<n { sumSquares += weight[i] * weight[i] }
        guard sumSquares > 0, always || 1 / sumSquares < Double(n) / 2 else { return false }
        let step = 1 / Double(n)
        var u = draw() * step, cumulative = weight[0], j = 0
        for i in 0..<n {
            while u > cumulative && j < n - 1 { j += 1; cumulative += weight[j] }
            chosen[i] = j
            u += step
        }
        // Copy the chosen particles into the scratch row, one field at a time.
        for field in modes ? [x, y, vx, vy, offset, compassBias, faceX, faceY, still, resumeX, resumeY, stood]
                           : [x, y, vx, vy, offset, compassBias, faceX, faceY] {
            for i in 0..<n { scratch[i] = field[chosen[i]] }
            field.update(from: scratch, count: n)
        }
        if let errors = beaconErrors {
            let b = errors.beacons
            for i in 0..<n { (errors.scratch + i * b).update(from: errors.mean + chosen[i] * b, count: b) }
            errors.mean.update(from: errors.scratch, count: n * b)
        }
        for i in 0..<n { weight[i] = step }
        return true
    }

    /// What an offline smoother keeps of one step (``FixedLagSmoother``).
    func snapshot() -> Snapshot { Snapshot(values: Array(UnsafeBufferPointer(start: x, count: 6 * count)), count: count) }

    /// A copy of the particles' x, y, vx, vy, δ and weight, `count` of each, one after another (as the cloud keeps them).
    struct Snapshot {
        let values: [Double]
        let count: Int
        @inline(__always) func x(_ i: Int) -> Double { values[i] }
        @inline(__always) func y(_ i: Int) -> Double { values[count + i] }
        @inline(__always) func weight(_ i: Int) -> Double { values[5 * count + i] }
        /// The snapshot's particles with other `weights`, to report.
        func withView<R>(weights: UnsafePointer<Double>, _ body: (View) -> R) -> R {
            values.withUnsafeBufferPointer { body(View(snapshot: $0.baseAddress!, count: count, weights: weights)) }
        }
    }

    /// A cloud of weighted particles to report: the filter's own, or a recorded ``Snapshot`` with other weights.
    struct View {
        let count: Int
        let x, y, vx, vy, offset, weight: UnsafePointer<Double>
        /// The particles laid out as the cloud keeps them (x, y, vx, vy, δ, `n` each), with their own `weights`.
        fileprivate init(snapshot block: UnsafePointer<Double>, count n: Int, weights: UnsafePointer<Double>) {
            count = n
            x = block; y = block + n; vx = block + 2 * n; vy = block + 3 * n; offset = block + 4 * n; weight = weights
        }
    }

    /// The live particles with their weights.
    var view: View { View(snapshot: x, count: count, weights: weight) }
}
