import Foundation

/// The normal distribution cut at a threshold, as a receiver's sensitivity cuts RSSI: one home for its maths.
///
/// A reading of mean μ and σ is heard only when it clears the sensitivity S, so the mean of the heard readings is
/// μ + σ·λ(α), α = (S − μ)/σ, with λ the normal hazard φ(α)/(1 − Φ(α)) (the inverse Mills ratio): a weak phone
/// hears a far beacon only when the noise lifts it, so the heard mean sits above the law's.
package enum TruncatedNormal {
    @inline(__always) package static func cdf(_ z: Double) -> Double { 0.5 * erfc(-z / 2.0.squareRoot()) }
    @inline(__always) package static func pdf(_ z: Double) -> Double { exp(-0.5 * z * z) / (2 * Double.pi).squareRoot() }

    /// How many σ above the sensitivity a mean must lie for its heard readings to be taken as untruncated (λ(−6) is
    /// 6·10⁻⁹: the heard mean moves by less than 10⁻⁸ σ).
    package static let untruncatedBeyond = 6.0

    /// α = (S − μ)/σ, at most 30, for a mean the sensitivity truncates; nil beyond ``untruncatedBeyond`` σ above it.
    @inline(__always) static func truncation(_ mu: Double, sensitivity: Double, sigma: Double) -> Double? {
        let a = min((sensitivity - mu) / sigma, 30)
        return a > -untruncatedBeyond ? a : nil
    }

    /// λ(α) = φ(α)/(1 − Φ(α)), exactly (one erfc and one exp); α at most 30.
    @inline(__always) package static func hazard(_ a: Double) -> Double {
        let a = min(a, 30)
        return pdf(a) / max(0.5 * erfc(a / 2.0.squareRoot()), 1e-300)
    }

    /// The mean of the readings that clear `sensitivity` when their law's mean is `mu`, and its derivative in μ:
    /// m = μ + σ·λ(α), dm/dμ = 1 − λ(λ − α). Beyond ``untruncatedBeyond`` σ above the sensitivity, (μ, 1).
    @inline(__always) package static func heardMean(_ mu: Double, sensitivity: Double, sigma: Double) -> (m: Double, slope: Double) {
        guard let a = truncation(mu, sensitivity: sensitivity, sigma: sigma) else { return (mu, 1) }
        let lambda = hazard(a)
        return (mu + sigma * lambda, min(max(1 - lambda * (lambda - a), 0), 1))
    }

    /// λ(α) and ln(1 − Φ(α)) from tables, for inner loops that evaluate them per particle and beacon: λ linear
    /// between points 1/64 apart on [−6, 8] (its asymptotic series beyond, 0 below), within 2·10⁻⁵·max(1, α) of
    /// ``hazard(_:)``; ln(1 − Φ) on [−8, 8] (ln φ − ln λ beyond, 0 below), within 10⁻⁴. Made once for the
    /// process (``lookup``); ln Φ(α) is `logSurvival(−α)`. A class, so that a model holding it copies no tables' references.
    package final class Lookup: Sendable {
        private let hazards = InterpolatedTable(from: -6, points: 14 * 64 + 1, perUnit: 64) { TruncatedNormal.hazard($0) }
        /// ln(1 − Φ): the floored table with no floor.
        private let survival = FlooredLogSurvival(floor: 0)

        fileprivate init() {}

        /// λ's asymptotic series, α + 1/α − 2/α³ + 10/α⁵ − 74/α⁷ (relative error under 10⁻⁶ from α = 8).
        @inline(__always) static func hazardBeyond(_ a: Double) -> Double {
            let i = 1 / a, i2 = i * i
            return a + i * (1 - i2 * (2 - i2 * (10 - 74 * i2)))
        }

        @inline(__always) package func hazard(_ a: Double) -> Double { hazards.value(a, below: 0, beyond: Self.hazardBeyond) }

        /// ``TruncatedNormal/heardMean(_:sensitivity:sigma:)``'s mean with λ from the table (within 2·10⁻⁵·σ·max(1, α)
        /// of it), for loops that only compare costs.
        @inline(__always) package func heardMean(_ mu: Double, sensitivity: Double, sigma: Double) -> Double {
            guard let a = TruncatedNormal.truncation(mu, sensitivity: sensitivity, sigma: sigma) else { return mu }
            return mu + sigma * hazard(a)
        }

        @inline(__always) package func logSurvival(_ a: Double) -> Double { survival(a) }
    }

    /// The tables, made on first use and kept for the process.
    package static let lookup = Lookup()

    /// ln(m + (1 − m)·(1 − Φ(α))) for a fixed floor m: the chance of something that also happens anyway with
    /// probability m (a beacon missed by a scan window however strong it reads). Tabulated like
    /// ``Lookup/logSurvival(_:)``, which is this table with m = 0: linear between points 1/64 apart on [−8, 8], 0
    /// below, ln m beyond (where 1 − Φ is under 10⁻¹⁵), or when m is 0 ln φ − ln λ (λ's asymptotic series).
    package struct FlooredLogSurvival: Sendable {
        private let values: InterpolatedTable
        private let floor: Double, logFloor: Double

        package init(floor m: Double) {
            values = InterpolatedTable(from: -8, points: 16 * 64 + 1, perUnit: 64) { Foundation.log(m + (1 - m) * 0.5 * erfc($0 / 2.0.squareRoot())) }
            floor = m
            logFloor = m > 0 ? Foundation.log(m) : 0
        }

        @inline(__always) package func callAsFunction(_ a: Double) -> Double {
            values.value(a, below: 0) { a in
                floor > 0 ? logFloor : -0.5 * a * a - 0.918_938_533_204_672_7 - Foundation.log(Lookup.hazardBeyond(a))
            }
        }
    }

    /// Φ⁻¹(p) for 0 < p < 1, by bisection (for set-up, not inner loops).
    package static func quantile(_ p: Double) -> Double {
        var lo = -40.0, hi = 40.0
        for _ in 0..<80 { let mid = 0.5 * (lo + hi); if cdf(mid) < p { lo = mid } else { hi = mid } }
        return 0.5 * (lo + hi)
    }

    /// Where the strongest of `count` independent standard normal readings lies on average (Blom's approximation
    /// Φ⁻¹((K − 0.375)/(K + 0.25))); 0 for one reading or fewer.
    package static func expectedMaximum(of count: Double) -> Double {
        count > 1 ? quantile((count - 0.375) / (count + 0.25)) : 0
    }
}
