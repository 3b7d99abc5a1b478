import Foundation

/// ln(1 + eˣ) and its slope, the logistic 1/(1 + e⁻ˣ), from one table, for the particle filter's heavy-tailed
/// mixture (a thousand particles × every beacon heard, every scan, where libm's `exp` is a sizeable share of the
/// filter's time: docs/tracking.md, "The field's likelihood"):
/// ln((1 − ε)/s·e^(−r²/2s²) + ε/S·e^(−r²/2S²)) = ln((1 − ε)/s) − r²/2s² + softplus(r²·(1/2s² − 1/2S²) + ln(ε·s/((1 − ε)·S))),
/// and the reading's inlier share is 1 − logistic(the same argument). Linear between points 1/32 apart on [−40, 40]:
/// within 3.1·10⁻⁵ of ln(1 + eˣ) (h²/8 · max ln(1 + eˣ)″ = h²/32) and 1.2·10⁻⁵ of the logistic (h²/8 · 0.0962); beyond, x and 1
/// above, 0 and 0 below (e⁻⁴⁰ < 5·10⁻¹⁸). Made once for the process (``shared``).
package struct Softplus: Sendable {
    /// (ln(1 + eˣ), logistic(x)) at each point.
    private let table = InterpolatedTable(from: -40, points: 80 * 32 + 1, perUnit: 32, width: 2) { [Softplus.exact($0), 1 / (1 + exp(-$0))] }

    private init() {}

    /// ln(1 + eˣ) without overflow.
    package static func exact(_ x: Double) -> Double { x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)) }

    package static let shared = Softplus()

    /// (ln(1 + eˣ), 1/(1 + e⁻ˣ)); x may be −∞.
    @inline(__always) package func callAsFunction(_ x: Double) -> (value: Double, logistic: Double) {
        table.pair(x, below: (0, 0)) { ($0, 1) }
    }
}
