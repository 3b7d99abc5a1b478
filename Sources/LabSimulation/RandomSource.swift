@preconcurrency internal import CGSL

/// A seeded stream of random numbers: GSL's Mersenne Twister with the ziggurat Gaussian sampler.
///
/// One instance per task (it is not thread-safe); streams for different walks or test points are
/// derived from the user's seed and a stream number, so results do not depend on scheduling.
public final class RandomSource {
    private let rng: UnsafeMutablePointer<gsl_rng>

    /// - Parameters:
    ///   - seed: the user's seed.
    ///   - stream: which independent stream (walk number, test point number, …).
    public init(seed: UInt64, stream: UInt64 = 0) {
        rng = gsl_rng_alloc(gsl_rng_mt19937)!
        let mixed = RandomSource.mix(seed &* 0x9E37_79B9_7F4A_7C15 &+ RandomSource.mix(stream &+ 0x632B_E59B_D9B4_E019))
        gsl_rng_set(rng, UInt(truncatingIfNeeded: mixed))
    }

    deinit { gsl_rng_free(rng) }

    /// N(0, σ²).
    @inline(__always) public func gaussian(sigma: Double) -> Double {
        gsl_ran_gaussian_ziggurat(rng, sigma)
    }

    /// Uniform on [0, 1).
    @inline(__always) public func uniform() -> Double { gsl_rng_uniform(rng) }

    /// Stream number for a named thing (a walk, a scenario), stable across runs and platforms (FNV-1a).
    public static func stream(_ name: String, _ index: Int = 0) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in name.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return mix(h ^ UInt64(truncatingIfNeeded: index))
    }

    /// SplitMix64 finaliser: spreads nearby seeds far apart.
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
