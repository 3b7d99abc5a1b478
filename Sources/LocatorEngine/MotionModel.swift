import Foundation
import LabCore

/// The trackers' motion model, one home for it: the ekf, the particle filter and the posterior bound all move the
/// walker by it. Constant velocity with white-noise acceleration of spectral density q per axis, exactly
/// discretised over the time dt between scans,
///
///     Q = q·[[dt³/3, dt²/2], [dt²/2, dt]]   (position, velocity; each axis),
///
/// and the phone's offset δ a random walk of ``offsetDrift`` dB²/s.
public struct MotionModel: Sendable, Hashable {
    /// q, m²/s³: over one second a speed changes by about √q m/s (a walker stops, starts and turns).
    public var acceleration = 0.5
    /// δ's random walk, dB²/s (the phone turns in the hand).
    public var offsetDrift = 0.01
    /// σ of each velocity component when a track starts, m/s.
    public var startSpeedSigma = 0.7
    /// σ of δ when a phone's first track starts from one scan's fit, dB (one scan tells δ to about 2–3 dB).
    public var startOffsetSigma = 3.0
    /// The longest gap between scans a prediction bridges, s; a longer one (or a clock going back) starts a new
    /// track.
    public var longestGap = 30.0

    // Steps (pedestrian dead reckoning), for trackers that take them: each step's length error is its stated
    // accuracy and a scale error; its heading error its stated accuracy and a bias the tracker estimates.
    /// σ of a step length's scale error (a fraction of the length): phones' step-length models are off by 5–10%.
    public var stepScaleError = 0.1
    /// σ of the compass bias when a track starts, degrees (indoor magnetic disturbance: 10–20°).
    public var stepBiasSigma = 20.0
    /// The compass bias's random walk, degrees per √s.
    public var stepBiasDrift = 0.5
    /// σ of the position's random walk while the step detector reports no step, m per √s (the phone in a hand
    /// sways; a missed step).
    public var standingSigma = 0.1

    // Stopping, for a phone without a step detector (the particle filter's modes): the walker either walks (constant
    // velocity, as above) or stands (the standing random walk). It stops at a constant rate, and walks on at a rate
    // that falls the longer it has stood, α/(s₀ + s) after s seconds (a Lomax stand: most stops are short, and a
    // walker who has stood a while, at an exhibit or a reference point, is likely to stand on): a walker who never
    // stops is not held back by particles that stood, and one who stands is found by particles that stand on
    // (docs/tracking.md, "Standing still").
    /// s₀, s: the scale of a stand's duration.
    public var standScale = 3.0
    /// α: the shape of a stand's duration (its hazard α/(s₀ + s)).
    public var standShape = 1.0
    /// The mean time a walker walks before stopping, s: long, so that few particles stop while the walker walks (each
    /// one that does falls behind); when it stops, the few that stopped near it weigh most and resampling multiplies them.
    public var walkDwell = 300.0
    /// The share of a new track's walkers that stand.
    public var startStandingShare = 0.2

    public init() {}

    /// The model with q = `acceleration`, m²/s³, the rest as default.
    public init(acceleration: Double) { self.acceleration = acceleration }

    /// What a phone's earlier tracks tell a new track about δ, `dt` seconds of drift later: (mean, σ), or nil when
    /// nothing was learned. The trackers' snapshot fit that starts a track takes it as its prior.
    public func carriedOffset(_ device: (mean: Double, variance: Double)?, dt: Double) -> (mean: Double, sigma: Double)? {
        device.map { ($0.mean, ($0.variance + offsetDrift * dt).squareRoot()) }
    }

    /// δ's prior for a track started without a fit (from too few readings): what the phone's earlier tracks carried
    /// (``carriedOffset(_:dt:)``), and for a new phone N(0, ``startOffsetSigma``²), the calibration's own phone.
    public func startOffset(_ device: (mean: Double, variance: Double)?, dt: Double) -> (mean: Double, sigma: Double) {
        carriedOffset(device, dt: dt) ?? (0, startOffsetSigma)
    }

    /// δ's variance when a track starts: what the phone's earlier tracks carried, drifted over `dt`, at most
    /// ``startOffsetSigma``² (one scan's fit tells δ to about that).
    public func startOffsetVariance(_ device: (mean: Double, variance: Double)?, dt: Double) -> Double {
        let widest = startOffsetSigma * startOffsetSigma
        return device.map { min($0.variance + offsetDrift * dt, widest) } ?? widest
    }

    /// The probability that a walker who has stood `stood` seconds walks on within the next `dt`:
    /// 1 − ((s₀ + s) / (s₀ + s + dt))^α.
    @inline(__always) public func walksOn(stood: Double, dt: Double) -> Double {
        1 - pow((standScale + stood) / (standScale + stood + dt), standShape)
    }

    /// The probability that a walker stops within `dt` seconds.
    @inline(__always) public func stops(dt: Double) -> Double { -expm1(-dt / walkDwell) }

    /// Q over `dt` seconds, per axis: position (m²), position–velocity (m²/s), velocity (m²/s²); and δ's (dB²).
    @inline(__always) public func processNoise(dt: Double) -> (pp: Double, pv: Double, vv: Double, offset: Double) {
        let q = acceleration
        return (q * dt * dt * dt / 3, q * dt * dt / 2, q * dt, offsetDrift * dt)
    }
}

extension MotionModel {
    /// The number of states the model moves: (x, y, vx, vy, δ).
    public static let stateCount = 5

    /// F over `dt`, row-major 5×5: the identity with dt moving each velocity into its position.
    public static func transition(dt: Double) -> [Double] {
        var F = [Double](repeating: 0, count: 25)
        for i in 0..<5 { F[i * 5 + i] = 1 }
        setTransition(&F, dt: dt)
        return F
    }

    /// Sets the dt entries of a transition made by ``transition(dt:)`` (a buffer reused over many epochs).
    @inline(__always) public static func setTransition(_ F: inout [Double], dt: Double) {
        F[0 * 5 + 2] = dt; F[1 * 5 + 3] = dt
    }

    /// s ← F s over `dt`.
    @inline(__always) public func predict(state s: inout [Double], dt: Double) {
        s[0] += dt * s[2]; s[1] += dt * s[3]
    }

    /// P ← F P Fᵀ + Q over `dt`, in place (row-major n×n, n ≥ 5: the model's five states first, any further
    /// states static); δ's variance grows only when `offsetMoves` (a known δ stays as it is).
    public func predict(covariance P: inout [Double], dt: Double, offsetMoves: Bool = true, n: Int = 5) {
        // F = I + dt·E, E moving velocity into position: rows, then columns 0 and 1 gain dt × rows/columns 2 and 3.
        for j in 0..<n { P[0 * n + j] += dt * P[2 * n + j]; P[1 * n + j] += dt * P[3 * n + j] }
        for i in 0..<n { P[i * n + 0] += dt * P[i * n + 2]; P[i * n + 1] += dt * P[i * n + 3] }
        let (pp, pv, vv, dd) = processNoise(dt: dt)
        P[0] += pp; P[n + 1] += pp
        P[2] += pv; P[2 * n] += pv; P[n + 3] += pv; P[3 * n + 1] += pv
        P[2 * n + 2] += vv; P[3 * n + 3] += vv
        if offsetMoves { P[4 * n + 4] += dd }
    }

    /// P ← F P Fᵀ + Q over `dt` when the walker moved by reported steps (the step model, not constant velocity): the
    /// position gains each step's error — σ_L² along the step and (L·σ_θ)² across it, at the steps' stated
    /// accuracies — and the standing random walk; velocity no longer moves it (its own variance grows as in
    /// ``processNoise(dt:)``); δ's as in ``predict(covariance:dt:offsetMoves:n:)``. Row-major n×n (n ≥ 5).
    ///
    /// With `detector`, the step detector's compass bias b (degrees) and step-length scale error s are states at
    /// `detector.index` and the next: the position then moves with them as ``stepSensitivity(_:)`` says (F couples
    /// rows 0 and 1 to b and s), and b drifts by `detector.biasDrift` degrees per √s. Without, they are known.
    public func predict(covariance P: inout [Double], steps: [StepReading], dt: Double, offsetMoves: Bool = true, n: Int = 5,
                        detector: (index: Int, biasDrift: Double)? = nil) {
        if let (i, _) = detector {
            let g = MotionModel.stepSensitivity(steps)
            let s = i + 1
            // Rows 0 and 1 of F·P (rows b and s unchanged), then columns 0 and 1 of (F·P)·Fᵀ.
            for j in 0..<n {
                P[j] += g.bias.x * P[i * n + j] + g.scale.x * P[s * n + j]
                P[n + j] += g.bias.y * P[i * n + j] + g.scale.y * P[s * n + j]
            }
            for r in 0..<n {
                P[r * n] += g.bias.x * P[r * n + i] + g.scale.x * P[r * n + s]
                P[r * n + 1] += g.bias.y * P[r * n + i] + g.scale.y * P[r * n + s]
            }
        }
        let (_, _, vv, dd) = processNoise(dt: dt)
        let still = standingSigma * standingSigma * dt
        var xx = still, xy = 0.0, yy = still
        for st in steps {
            let along = st.lengthAccuracy * st.lengthAccuracy
            let across = st.length * st.length * pow(st.headingAccuracy * .pi / 180, 2)
            let c = Covariance2(along: along, across: across, axis: Bearing.unitVector(st.heading))
            xx += c.xx; xy += c.xy; yy += c.yy
        }
        P[0] += xx; P[1] += xy; P[n] += xy; P[n + 1] += yy
        P[2 * n + 2] += vv; P[3 * n + 3] += vv
        if offsetMoves { P[4 * n + 4] += dd }
        if let (i, drift) = detector { P[i * n + i] += drift * drift * dt }
    }

    /// How the reported steps' displacement Σ ℓⱼ(1 − s)·u(θⱼ − b) moves with the compass bias b (per degree) and the
    /// step-length scale error s (per unit), linearised at b = s = 0 with the reported θⱼ and ℓⱼ: ∂/∂b =
    /// −Σ ℓⱼ·u′(θⱼ)·π/180 and ∂/∂s = −Σ ℓⱼ·u(θⱼ), with u(θ) = (sin θ, cos θ) the compass unit vector and
    /// u′(θ) = u(θ + 90°). (At the truth the Jacobian is turned by the true bias and shrunk by 1 − s: a few
    /// percent for a 10° bias and a 5% scale error.)
    public static func stepSensitivity(_ steps: [StepReading]) -> (bias: Point, scale: Point) {
        var bias = Point.zero, scale = Point.zero
        for st in steps {
            bias = bias - Bearing.unitVector(st.heading + 90) * (st.length * .pi / 180)
            scale = scale - Bearing.unitVector(st.heading) * st.length
        }
        return (bias, scale)
    }
}
