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

    public init() {}

    /// Q over `dt` seconds, per axis: position (m²), position–velocity (m²/s), velocity (m²/s²); and δ's (dB²).
    @inline(__always) public func processNoise(dt: Double) -> (pp: Double, pv: Double, vv: Double, offset: Double) {
        let q = acceleration
        return (q * dt * dt * dt / 3, q * dt * dt / 2, q * dt, offsetDrift * dt)
    }
}
