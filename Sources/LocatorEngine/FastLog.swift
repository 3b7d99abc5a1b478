import Foundation

/// ln x for the particle filter's inner loop (every particle × every beacon heard, every scan, where libm's `log`, a
/// call through its error-handling wrapper, is a sizeable share of the filter's time: docs/tracking.md, "The field's
/// likelihood"), inlined and table-driven as libm's own:
/// x = 2ᵉ·m, m in [1, 2); the top seven bits of m pick c near m from a table of 1/c and ln c, and
/// ln x = e·ln 2 + ln c + ln(1 + r), r = m/c − 1 (|r| < 1/256), by its series to r⁵. Error under 2·10⁻¹⁴ + 4·10⁻¹⁶·|ln x|
/// for x in [10⁻³⁰⁰, 10³⁰⁰] (`fastLogMatchesFoundation`); 0, negatives, subnormals, ∞ and NaN go to Foundation's `log`.
package struct FastLog: @unchecked Sendable {
    /// (ln c, 1/c) for c = 1 + (i + ½)/128, i = 0..<128, interleaved; ln c is −ln of the stored 1/c, so that
    /// m·(1/c) − 1 is the r the series takes.
    private let table: UnsafeMutablePointer<Double>

    private init() {
        table = .allocate(capacity: 256)
        for i in 0..<128 {
            let inverse = 1 / (1 + (Double(i) + 0.5) / 128)
            table[2 * i] = -Foundation.log(inverse)
            table[2 * i + 1] = inverse
        }
    }

    package static let shared = FastLog()
    private static let ln2 = 0.693_147_180_559_945_3

    @inline(__always) package func callAsFunction(_ x: Double) -> Double {
        guard x >= Double.leastNormalMagnitude, x < .infinity else { return Foundation.log(x) }
        let bits = x.bitPattern
        let e = Double(Int(bits >> 52) - 1023)
        let i = Int((bits >> 45) & 0x7F)
        let m = Double(bitPattern: (bits & 0x000F_FFFF_FFFF_FFFF) | 0x3FF0_0000_0000_0000)
        let p = table + 2 * i
        let r = m * p[1] - 1
        let series = r - r * r * (0.5 - r * (1.0 / 3 - r * (0.25 - r * 0.2)))
        return e * Self.ln2 + (p[0] + series)
    }
}

extension FastLog {
    /// ln of two positive normal numbers at once, in vector registers (the solvers' and the stated region's inner loops
    /// take two terms at a time): x = 2ᵉ·m with m in [√½, √2), ln m = 2·atanh(s), s = (m − 1)/(m + 1) (|s| < 0.172), by
    /// its series to s²³. Within 3·10⁻¹⁶·max(1, |ln x|) of Foundation's `log` (`pairLogMatchesFoundation`). The caller
    /// guarantees positive normal finite lanes (squared distances, floored at 10⁻¹²).
    @inline(__always) package static func pair(_ x: SIMD2<Double>) -> SIMD2<Double> {
        let bits = unsafeBitCast(x, to: SIMD2<UInt64>.self)
        var m = unsafeBitCast((bits & 0x000F_FFFF_FFFF_FFFF) | 0x3FF0_0000_0000_0000, to: SIMD2<Double>.self)
        // The biased exponent as a double, exactly: placed in the mantissa of 2⁵², less 2⁵² and the bias.
        var e = unsafeBitCast((bits &>> 52) | 0x4330_0000_0000_0000, to: SIMD2<Double>.self) - (4_503_599_627_370_496.0 + 1023)
        let big = m .> 1.414_213_562_373_095_1
        m.replace(with: m * 0.5, where: big)
        e.replace(with: e + 1, where: big)
        let s = (m - 1) / (m + 1), z = s * s
        var p = SIMD2<Double>(repeating: 1.0 / 23)
        p = p * z + 1.0 / 21; p = p * z + 1.0 / 19; p = p * z + 1.0 / 17; p = p * z + 1.0 / 15; p = p * z + 1.0 / 13
        p = p * z + 1.0 / 11; p = p * z + 1.0 / 9; p = p * z + 1.0 / 7; p = p * z + 1.0 / 5; p = p * z + 1.0 / 3
        p = p * z + 1
        return e * ln2 + 2 * s * p
    }
}

extension FastLog {
    /// ln of four positive normal floats at once, in single precision (the stated region's search, ``ProfiledCost``, which
    /// compares costs with a threshold): x = 2ᵉ·m with m in [√½, √2), ln m = 2·atanh(s), s = (m − 1)/(m + 1), by its series
    /// to s⁷ (the next term is under 3·10⁻⁸). Within 2·10⁻⁷·max(1, |ln x|) of Foundation's `log` (`quadLogMatchesFoundation`).
    /// The caller guarantees positive normal finite lanes.
    @inline(__always) package static func quad(_ x: SIMD4<Float>) -> SIMD4<Float> {
        let bits = unsafeBitCast(x, to: SIMD4<UInt32>.self)
        var m = unsafeBitCast((bits & 0x007F_FFFF) | 0x3F80_0000, to: SIMD4<Float>.self)
        // The biased exponent as a float, exactly: placed in the mantissa of 2²³, less 2²³ and the bias.
        var e = unsafeBitCast((bits &>> 23) | 0x4B00_0000, to: SIMD4<Float>.self) - (8_388_608 + 127)
        let big = m .> 1.414_213_6
        m.replace(with: m * 0.5, where: big)
        e.replace(with: e + 1, where: big)
        let s = (m - 1) / (m + 1), z = s * s
        var p = SIMD4<Float>(repeating: 1.0 / 7)
        p = p * z + 1.0 / 5; p = p * z + 1.0 / 3; p = p * z + 1
        return e * 0.693_147_18 + 2 * s * p
    }
}
