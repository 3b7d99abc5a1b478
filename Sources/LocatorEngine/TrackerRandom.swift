import Foundation

/// The trackers' own random stream: xoshiro256** (Blackman & Vigna 2018) for the bits, Gaussians by the ziggurat
/// (Marsaglia & Tsang 2000, 256 layers, the tail by Marsaglia 1964). Pure Swift, so the shipped library can carry
/// it, and seeded, so that fixes repeat. A particle filter draws five or more Gaussians per particle and scan; the
/// ziggurat takes one 64-bit draw, a multiply and a compare for 98.5% of them (Box–Muller took a log, a sine and a
/// cosine per pair).
package struct TrackerRandom: Sendable {
    private var s0, s1, s2, s3: UInt64

    package init(seed: UInt64) {
        // SplitMix64 spreads the seed over the state (never all zero).
        var z = seed
        func next() -> UInt64 {
            z &+= 0x9E37_79B9_7F4A_7C15
            var x = z
            x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
            x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
            return x ^ (x >> 31)
        }
        s0 = next(); s1 = next(); s2 = next(); s3 = next()
    }

    @inline(__always) package mutating func nextUInt64() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// Uniform on [0, 1).
    @inline(__always) package mutating func uniform() -> Double { Double(nextUInt64() >> 11) * 0x1.0p-53 }

    /// N(0, 1). One 64-bit draw gives the layer (its low 8 bits), the sign (bit 8) and the abscissa (its top 53
    /// bits): inside the layer's rectangle under the density it is accepted at once; in the wedge it is tested
    /// against the density; in the base layer beyond R it goes to the tail.
    @inline(__always) package mutating func gaussian() -> Double {
        let bits = nextUInt64()
        let layer = Int(bits & 0xFF)
        let u = Double(bits >> 11) * 0x1.0p-53
        let z = Ziggurat.shared
        let x = u * z.width(layer)
        if u < z.inner(layer) { return bits & 0x100 == 0 ? x : -x }
        return gaussianSlow(bits: bits, layer: layer, x: x)
    }

    /// The draws the rectangle did not accept: the tail (base layer) or the wedge. A rejected wedge draw starts over
    /// with a fresh 64-bit draw, exactly as a loop would (the same stream, draw for draw).
    private mutating func gaussianSlow(bits: UInt64, layer: Int, x: Double) -> Double {
        let negative = bits & 0x100 != 0
        if layer == 0 {
            // The tail beyond R: x = R + e₁/R with e₁, e₂ exponential, kept when 2·e₂ > (e₁/R)².
            while true {
                let a = -log(1 - uniform()) / Ziggurat.r, b = -log(1 - uniform())
                if 2 * b > a * a { return negative ? -(Ziggurat.r + a) : Ziggurat.r + a }
            }
        }
        // The wedge: a height uniform between the layer's bottom and top, kept under the density.
        let z = Ziggurat.shared
        if z.density(layer) + uniform() * (z.density(layer + 1) - z.density(layer)) < exp(-0.5 * x * x) {
            return negative ? -x : x
        }
        return gaussian()
    }
}

/// The ziggurat's 256 layers of equal area V under the half-normal's unnormalised density f(x) = exp(−x²/2): layer i
/// spans heights f(xᵢ) to f(xᵢ₊₁) and widths 0 to xᵢ, with x₁ = R, xᵢ₊₁ = √(−2 ln(V/xᵢ + f(xᵢ))), x₂₅₆ = 0; the base
/// layer (0) is the rectangle of height f(R) and width x₀ = V/f(R), whose part beyond R stands for the tail.
private struct Ziggurat: @unchecked Sendable {
    static let r = 3.6541528853610088
    /// xᵢ, then xᵢ₊₁ / xᵢ (below it, the draw lies in the rectangle under the density), then f(xᵢ) (f(x₀) unused),
    /// i = 0...256 each; written once here, only read after.
    private let table: UnsafeMutablePointer<Double>

    @inline(__always) func width(_ i: Int) -> Double { table[i] }
    @inline(__always) func inner(_ i: Int) -> Double { table[257 + i] }
    @inline(__always) func density(_ i: Int) -> Double { table[514 + i] }

    static let shared = Ziggurat()

    private init() {
        let r = Self.r
        func f(_ x: Double) -> Double { exp(-0.5 * x * x) }
        let v = r * f(r) + (Double.pi / 2).squareRoot() * erfc(r / 2.0.squareRoot())
        var x = [Double](repeating: 0, count: 257)
        x[0] = v / f(r); x[1] = r
        for i in 1..<255 { x[i + 1] = (-2 * log(v / x[i] + f(x[i]))).squareRoot() }
        x[256] = 0
        table = .allocate(capacity: 3 * 257)
        for i in 0...256 {
            table[i] = x[i]
            table[257 + i] = i < 256 ? x[i + 1] / x[i] : 0
            table[514 + i] = f(x[i])
        }
    }
}
