import Foundation
import LabCore

/// What a tracking filter's own covariance leaves out under correlated shadowing (``RadioModel/correlationDistance``):
/// its likelihood weighs each scan as news, but a walker carries its shadowing for metres (the correlation
/// exp(−Δ/d) between scans Δ apart; 1 while it stands), so the filter's variance shrinks faster than its error. The
/// particle filter (``ParticleTracker``, on its cloud) and the extended Kalman filter (``KalmanTracker``, on its
/// position covariance) state their covariance times ``inflation``.
///
/// The filter is read as a scalar linear estimator (on its position variance per axis, the half trace): after each
/// scan its error is ε_t = λ·(ε_{t−1} + w) + (1 − λ)·e_t, with λ = P_t / P⁻ the share of the variance the scan kept (P⁻
/// after the prediction, P_t after the update; w the motion's noise, which the filter models) and e_t the scan's own error,
/// of variance R = P_t / (1 − λ). What is modelled as independent is not: a share ς = σ² / (σ² + σ_m²) of e_t
/// is the shadowing, an AR(1) process along the walk. Then, with g = Cov(ε, u) (u the shadowing's part of e in
/// units of √R) and a = √((1 − λ)·P_t):
///
///     V_t = λ²·(V_{t−1} + P⁻ − P_{t−1}) + (1 − λ)·P_t + 2·λ·ρ·a·g_{t−1}
///     g_t = λ·ρ·g_{t−1} + ς·a
///
/// and the filter states its covariance times V_t / P_t (at least 1). Without correlation (ρ = 0) V_t = P_t: the filter's
/// variance is the error's (a little more where walls cut a particle cloud as it moved, P⁻ < P_{t−1}: the motion's noise
/// is then taken as 0, on the safe side); standing still with all of it shadowing (ρ = ς = 1) V_t stays where the
/// first scan left it, as it should — the same readings again say nothing new. The estimate itself is the
/// filter's; only what it states about its error changes (docs/tracking.md, "Correlated shadowing"). The offline
/// smoothers carry it too: the particle smoother states the filter's covariance with it, the EKF's smoother its
/// smoothed covariance times the filter's inflation at the same step.
package struct ShadowingMemory: Sendable {
    /// P_{t−1}: the filter's variance per axis after the last scan, m².
    package var nominal: Double
    /// V_{t−1}: the estimate's error variance per axis when consecutive scans share their shadowing, m².
    package var actual: Double
    /// g_{t−1}: the estimate's error's covariance with the shadowing's part of the last scan's, m.
    package var carried: Double
    /// The estimate after the last scan: how far the walker went is how far the shadowing decorrelated.
    package var mean: Point
    /// ς: the shadowing's share of one scan's modelled variance.
    package let share: Double
    /// V / P: what multiplies the filter's covariance in what it states.
    package var inflation: Double { nominal > 0 ? max(actual / nominal, 1) : 1 }

    /// A track's first estimate: its error is the first scan's.
    package init(start: (mean: Point, variance: Double), share: Double) {
        nominal = start.variance; actual = start.variance; mean = start.mean; self.share = share
        carried = share * start.variance.squareRoot()
    }

    /// ς = σ² / (σ² + σ_m²): the shadowing's share of what a filter takes one beacon's scan to vary by, one reading
    /// per window (what correlated shadowing leaves of averaging), with σ_m the model error it adds.
    package static func share(sigma: Double, modelError: Double) -> Double {
        let sigma2 = sigma * sigma
        return sigma2 / (sigma2 + modelError * modelError)
    }

    /// One scan later: the filter `prior` after the prediction, `posterior` after the update; ρ between the two scans.
    package mutating func update(prior: (mean: Point, variance: Double), posterior: (mean: Point, variance: Double), rho: Double) {
        let lambda = prior.variance > 0 ? min(max(posterior.variance / prior.variance, 0), 1) : 1
        let a = ((1 - lambda) * posterior.variance).squareRoot()
        actual = lambda * lambda * (actual + max(prior.variance - nominal, 0)) + (1 - lambda) * posterior.variance
            + 2 * lambda * rho * a * carried
        carried = lambda * rho * carried + share * a
        nominal = posterior.variance
        mean = posterior.mean
    }

    /// One scan later, ρ = exp(−Δ/d) from how far the estimate moved since the last (Δ) and the correlation distance d.
    package mutating func update(prior: (mean: Point, variance: Double), posterior: (mean: Point, variance: Double), correlationDistance d: Double) {
        update(prior: prior, posterior: posterior, rho: exp(-prior.mean.distance(to: mean) / d))
    }
}
