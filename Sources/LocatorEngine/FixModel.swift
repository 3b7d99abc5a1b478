import Foundation
import LabCore

/// A ``FixProblem`` frozen for one solve: its terms and settings as values and pointers, so that evaluating the
/// residuals and the Jacobian — the solvers' inner loop — touches no class state (no exclusivity checks, no
/// reference counting; a copy is a copy of numbers and pointers). Valid while its problem lives and is not changed.
package struct FixModel {
    package let unknowns: Int
    let domain: FixProblem.Domain
    /// Unmanaged: the problem holds the walls, and a model copied per residual evaluation then retains nothing; each
    /// query borrows it without a retain and release (an `unowned(unsafe)` reference took both per call).
    let walls: Unmanaged<WallIndex>?
    /// The venue's radio map, borrowed like the walls.
    let radioMap: Unmanaged<RadioMapBox>?
    /// Whether a term's mean has more than the law in it — a wall to cross, or a radio map: a venue without either skips
    /// the call (and the reference it would take) per term.
    let hasWalls: Bool
    let exponent: Double, sigma: Double, sensitivity: Double, packetLoss: Double, dropout: Double
    let truncated: Bool
    /// The mean RSSI from which heard readings count as untruncated (``TruncatedNormal/untruncatedBeyond`` σ above the
    /// sensitivity), dBm.
    let untruncatedFrom: Double
    /// 5n/ln 10: the model's mean is P0 + δ − (5n/ln 10)·ln d² − walls.
    let halfTenNOverLn10: Double
    /// λ's table, for the stated region's cost (``ProfiledCost``).
    let lookup = Unmanaged.passUnretained(TruncatedNormal.lookup)   // a static: it lives as long as the process
    /// ``FixProblem``'s term columns, and how many terms of each kind they hold.
    let heard: FixProblem.HeardTerms
    let rssiCount: Int
    let ranged: FixProblem.RangedTerms
    let rangeCount: Int
    let censored: FixProblem.CensoredTerms
    let censoredCount: Int
    let bearings: FixProblem.BearingTerms
    let bearingCount: Int
    let prior: (mean: Double, sigma: Double)?
    let statePrior: StatePrior?
    package let residualCount: Int
    /// ``FixProblem``'s slope cache: the point (x, y, δ, valid) at which ``FixProblem/HeardTerms/meanSlope`` holds dm/dμ.
    let slopePoint: Buffer

    package typealias Buffer = UnsafeMutablePointer<Double>

    /// The solvers' third unknown is δ + 10 dB, not δ: their step test is relative to the unknown
    /// (|step| < 10⁻¹⁰ + 10⁻⁵·|u|), and a δ near 0 dB would be iterated to 10⁻¹⁰ dB, at a linear rate on noisy
    /// data, for nothing. Shifted, δ stops at 10⁻⁴ dB. (Positions are not shifted: the fixes' equivariance under
    /// moving the venue's frame, which a test holds to 1 mm, depends on the frame-relative stopping rule.)
    package static let offsetShift = 10.0

    /// The solvers' unknowns for a position and δ.
    package func unknowns(x: Double, y: Double, delta: Double) -> (Double, Double, Double) {
        (x, y, unknowns == 3 ? delta + FixModel.offsetShift : 0)
    }

    /// The position and δ for the solvers' unknowns.
    package func solution(_ u: (Double, Double, Double)) -> (x: Double, y: Double, delta: Double) {
        (u.0, u.1, unknowns == 3 ? u.2 - FixModel.offsetShift : 0)
    }

    init(unknowns: Int, domain: FixProblem.Domain, walls: WallIndex?, radioMap: RadioMapBox? = nil, exponent: Double, sigma: Double, sensitivity: Double,
         packetLoss: Double, dropout: Double, truncated: Bool,
         heard: FixProblem.HeardTerms, rssiCount: Int, ranged: FixProblem.RangedTerms, rangeCount: Int,
         censored: FixProblem.CensoredTerms, censoredCount: Int, bearings: FixProblem.BearingTerms, bearingCount: Int,
         prior: (mean: Double, sigma: Double)?, statePrior: StatePrior?, slopePoint: Buffer) {
        self.unknowns = unknowns; self.domain = domain; self.walls = walls.map { Unmanaged.passUnretained($0) }; self.exponent = exponent; self.sigma = sigma
        self.radioMap = radioMap.map { Unmanaged.passUnretained($0) }
        hasWalls = (walls.map { !$0.isEmpty } ?? false) || radioMap != nil
        self.sensitivity = sensitivity; self.packetLoss = packetLoss; self.dropout = dropout; self.truncated = truncated
        untruncatedFrom = sensitivity + TruncatedNormal.untruncatedBeyond * sigma
        halfTenNOverLn10 = 5 * exponent / 2.302585092994046
        self.heard = heard; self.rssiCount = rssiCount
        self.ranged = ranged; self.rangeCount = rangeCount
        self.censored = censored; self.censoredCount = censoredCount
        self.bearings = bearings; self.bearingCount = bearingCount
        self.prior = prior
        self.statePrior = statePrior
        self.slopePoint = slopePoint
        slopePoint[3] = 0   // the terms may have changed since the last model
        residualCount = rssiCount + rangeCount + censoredCount + bearingCount + (prior != nil ? 1 : 0) + (statePrior != nil ? unknowns : 0)
    }

    /// True when the cost is smooth in the position (no wall steps it): Newton's steps may finish a solve.
    package var isSmooth: Bool { !hasWalls }

    /// RSSI term i's residual in units of one reading's σ (before robust weighting) at a solution: what an
    /// IRLS step weighs.
    package func standardisedRSSIResidual(_ i: Int, at s: FixProblem.Solution) -> Double {
        let dx = s.position.x - heard.x[i], dy = s.position.y - heard.y[i]
        let d2 = max(dx * dx + dy * dy + heard.heightOffset[i] * heard.heightOffset[i], 1e-12)
        let wallLoss = wallLoss(from: Point(heard.x[i], heard.y[i]), to: s.position, fan: heard.fan[i], beacon: heard.beacon[i])
        return (heard.rssi[i] - heardMean(heard.p0[i] + s.offset - halfTenNOverLn10 * log(d2) - wallLoss).m) / sigma
    }

    /// The residuals at the solvers' unknowns.
    @inline(__always) package func residuals(unknowns u0: Double, _ u1: Double, _ u2: Double, into out: UnsafeMutablePointer<Double>) {
        residuals(x: u0, y: u1, delta: unknowns == 3 ? u2 - FixModel.offsetShift : 0, into: out)
    }

    /// The Jacobian at the solvers' unknowns (the shift does not change it).
    @inline(__always) package func jacobian(unknowns u0: Double, _ u1: Double, _ u2: Double, into out: UnsafeMutablePointer<Double>) {
        jacobian(x: u0, y: u1, delta: unknowns == 3 ? u2 - FixModel.offsetShift : 0, into: out)
    }

    /// The loss of the walls between a beacon at `p` and the phone at `q`, dB (0 without walls): through the beacon's
    /// fan when it has one (`fan` ≥ 0; the same value); less the radio map's residual of the venue's beacon `beacon`
    /// at `q` (≥ 0: a term whose beacon has a map), which the model treats like the walls (piecewise smooth, no gradient).
    @inline(__always) func wallLoss(from p: Point, to q: Point, fan: Double, beacon: Double = -1) -> Double {
        guard hasWalls else { return 0 }
        var loss = walls?._withUnsafeGuaranteedRef { fan >= 0 ? $0.loss(fromOrigin: Int(fan), to: q) : $0.loss(from: p, to: q) } ?? 0
        if beacon >= 0, let radioMap { loss -= radioMap._withUnsafeGuaranteedRef { $0.map.residual(beacon: Int(beacon), at: q) } }
        return loss
    }

    /// The mean of readings with model mean μ that cleared the sensitivity, and its derivative in μ
    /// (``TruncatedNormal/heardMean(_:sensitivity:sigma:)``); (μ, 1) unless the heard means are truncated.
    @inline(__always) func heardMean(_ mu: Double) -> (m: Double, slope: Double) {
        // Most terms of a scan are far above the sensitivity: they skip the division.
        guard truncated, mu < untruncatedFrom else { return (mu, 1) }
        return TruncatedNormal.heardMean(mu, sensitivity: sensitivity, sigma: sigma)
    }

    /// The censored term c at (x, y, δ): its residual and dr/dμ (μ the beacon's mean RSSI).
    @inline(__always) func censoredTerm(_ c: Int, x: Double, y: Double, delta: Double) -> (r: Double, dr: Double, dx: Double, dy: Double, d2: Double) {
        let dx = x - censored.x[c], dy = y - censored.y[c]
        let d2 = max(dx * dx + dy * dy + censored.heightOffset[c] * censored.heightOffset[c], 1e-12)
        let wallLoss = wallLoss(from: Point(censored.x[c], censored.y[c]), to: Point(x, y), fan: censored.fan[c])
        let mu = censored.p0[c] + delta - halfTenNOverLn10 * log(d2) - wallLoss
        let z = (sensitivity - mu) / sigma
        let miss = max(packetLoss + (1 - packetLoss) * TruncatedNormal.cdf(z), 1e-300)
        // Unheard: every one of the k readings below the sensitivity or lost (m each), or the whole window dropped (d):
        // P = d + (1 − d)·m^k, r² = −2 ln P  ⇒  dr/dμ = share·k·(1 − loss)·φ(z)/(σ·m·r), share = (1 − d)·m^k / P the part
        // of P the readings make (1 without a dropout, when P = m^k exactly).
        let logReadings = censored.missedAdvertisements[c] * log(miss)
        var logP = logReadings, share = 1.0
        if dropout > 0 {
            let all = exp(logReadings), p = dropout + (1 - dropout) * all
            logP = log(p); share = (1 - dropout) * all / p
        }
        let r = (-2 * logP).squareRoot()
        let dr = r > 1e-9 ? share * censored.missedAdvertisements[c] * (1 - packetLoss) * TruncatedNormal.pdf(z) / (r * miss * sigma) : 0
        return (r, dr, dx, dy, d2)
    }

    /// Writes the `residualCount` residuals at (x, y, δ) to `out`.
    package func residuals(x: Double, y: Double, delta: Double, into out: UnsafeMutablePointer<Double>) {
        let k = halfTenNOverLn10
        for i in 0..<rssiCount {
            let dx = x - heard.x[i], dy = y - heard.y[i]
            let d2 = max(dx * dx + dy * dy + heard.heightOffset[i] * heard.heightOffset[i], 1e-12)
            switch domain {
            case .rssi:
                // Wall losses are piecewise constant in p: they shift the model, not its derivative.
                let wallLoss = wallLoss(from: Point(heard.x[i], heard.y[i]), to: Point(x, y), fan: heard.fan[i], beacon: heard.beacon[i])
                let term = rssiTerm(i, mean: heard.p0[i] + delta - k * log(d2) - wallLoss)
                heard.meanSlope[i] = term.slope
                out[i] = term.r
            case .range: out[i] = rangeDomainResidual(i, d2: d2)
            }
        }
        if domain == .rssi { slopePoint[0] = x; slopePoint[1] = y; slopePoint[2] = delta; slopePoint[3] = 1 }
        otherResiduals(x: x, y: y, delta: delta, into: out)
    }

    /// The residuals after the RSSI terms' (ranges, censored terms, bearings, priors), from row ``rssiCount`` of `out`.
    @inline(__always) func otherResiduals(x: Double, y: Double, delta: Double, into out: UnsafeMutablePointer<Double>) {
        var row = rssiCount
        for m in 0..<rangeCount {
            out[row] = measuredRangeResidual(m, x: x, y: y)
            row += 1
        }
        for c in 0..<censoredCount {
            out[row] = censoredTerm(c, x: x, y: y, delta: delta).r
            row += 1
        }
        for b in 0..<bearingCount {
            out[row] = bearingResidual(b, x: x, y: y)
            row += 1
        }
        if let prior { out[row] = (delta - prior.mean) / prior.sigma; row += 1 }
        if let statePrior {
            let r = statePrior.residuals(x: x, y: y, delta: delta)
            out[row] = r.0; out[row + 1] = r.1
            if unknowns == 3 { out[row + 2] = r.2 }
        }
    }

    /// RSSI term i's residual when the model's mean is `mu` (before truncation), and dm/dμ of the heard mean.
    @inline(__always) func rssiTerm(_ i: Int, mean mu: Double) -> (r: Double, slope: Double) {
        let h = heardMean(mu)
        return ((heard.rssi[i] - h.m) * heard.weight[i] * heard.robustWeight[i], h.slope)
    }

    /// ``heardMean(_:)``'s mean with λ from the table (``ProfiledCost``, which only compares costs).
    @inline(__always) func tabulatedHeardMean(_ mu: Double) -> Double {
        truncated && mu < untruncatedFrom ? lookup._withUnsafeGuaranteedRef { $0.heardMean(mu, sensitivity: sensitivity, sigma: sigma) } : mu
    }

    /// The range domain's term i's residual at squared distance `d2` from its beacon: the distance minus the one its RSSI
    /// says, over that distance's σ.
    @inline(__always) func rangeDomainResidual(_ i: Int, d2: Double) -> Double { (d2.squareRoot() - heard.rssiDistance[i]) * heard.weight[i] }

    /// Measured-range term m's residual at (x, y): the 3-D distance minus the ranged one, over its σ.
    @inline(__always) func measuredRangeResidual(_ m: Int, x: Double, y: Double) -> Double {
        let dx = x - ranged.x[m], dy = y - ranged.y[m]
        return ((dx * dx + dy * dy + ranged.heightOffset[m] * ranged.heightOffset[m]).squareRoot() - ranged.distance[m]) * ranged.weight[m]
    }

    /// Bearing term b's residual: the heading's difference from the bearing to its landmark, wrapped to (−π, π].
    @inline(__always) func bearingResidual(_ b: Int, x: Double, y: Double) -> Double {
        let a = bearings.x[b] - x, c = bearings.y[b] - y
        let bearing = atan2(a, c)
        var diff = (bearings.heading[b] - bearing).truncatingRemainder(dividingBy: 2 * .pi)
        if diff > .pi { diff -= 2 * .pi } else if diff <= -.pi { diff += 2 * .pi }
        return diff * bearings.weight[b]
    }

    /// Writes the Jacobian at (x, y, δ) to `out`, row-major, `unknowns` columns.
    package func jacobian(x: Double, y: Double, delta: Double, into out: UnsafeMutablePointer<Double>) {
        let c = 2 * halfTenNOverLn10   // 10n/ln 10
        let p = unknowns
        let third = p == 3
        let cached = slopePoint[3] == 1 && slopePoint[0] == x && slopePoint[1] == y && slopePoint[2] == delta
        for i in 0..<rssiCount {
            let dx = x - heard.x[i], dy = y - heard.y[i]
            let d2 = max(dx * dx + dy * dy + heard.heightOffset[i] * heard.heightOffset[i], 1e-12)
            let row = out + i * p
            switch domain {
            case .rssi:
                // ∂/∂x of (rssi − P0 − δ + 10 n log10 d) = 10n/ln10 · dx/d²; ∂/∂δ = −1 (times dm/dμ when truncated)
                var w = heard.weight[i] * heard.robustWeight[i]
                if truncated && cached {
                    w *= heard.meanSlope[i]
                } else if truncated {
                    let wallLoss = wallLoss(from: Point(heard.x[i], heard.y[i]), to: Point(x, y), fan: heard.fan[i], beacon: heard.beacon[i])
                    w *= heardMean(heard.p0[i] + delta - halfTenNOverLn10 * log(d2) - wallLoss).slope
                }
                row[0] = c * dx / d2 * w
                row[1] = c * dy / d2 * w
                if third { row[2] = -w }
            case .range:
                let d = d2.squareRoot()
                row[0] = dx / d * heard.weight[i]
                row[1] = dy / d * heard.weight[i]
            }
        }
        otherJacobian(x: x, y: y, delta: delta, into: out)
    }

    /// The Jacobian's rows after the RSSI terms' (ranges, censored terms, bearings, priors), from row ``rssiCount`` of `out`.
    @inline(__always) func otherJacobian(x: Double, y: Double, delta: Double, into out: UnsafeMutablePointer<Double>) {
        let c = 2 * halfTenNOverLn10   // 10n/ln 10
        let p = unknowns
        let third = p == 3
        var r = rssiCount
        for m in 0..<rangeCount {
            let dx = x - ranged.x[m], dy = y - ranged.y[m]
            let d = max((dx * dx + dy * dy + ranged.heightOffset[m] * ranged.heightOffset[m]).squareRoot(), 1e-6)
            let row = out + r * p
            row[0] = dx / d * ranged.weight[m]
            row[1] = dy / d * ranged.weight[m]
            if third { row[2] = 0 }
            r += 1
        }
        for k in 0..<censoredCount {
            let t = censoredTerm(k, x: x, y: y, delta: delta)
            // μ = P0 + δ − 10 n log10 d − walls: ∂μ/∂x = −c·dx/d², ∂μ/∂δ = 1
            let row = out + r * p
            row[0] = -t.dr * c * t.dx / t.d2
            row[1] = -t.dr * c * t.dy / t.d2
            if third { row[2] = t.dr }
            r += 1
        }
        for b in 0..<bearingCount {
            let a = bearings.x[b] - x, e = bearings.y[b] - y
            let r2 = max(a * a + e * e, 1e-12)
            // residual = heading − atan2(a, e); ∂atan2/∂x = −e/r², ∂atan2/∂y = a/r²
            let row = out + r * p
            row[0] = e / r2 * bearings.weight[b]
            row[1] = -a / r2 * bearings.weight[b]
            if third { row[2] = 0 }
            r += 1
        }
        if third, let prior {
            let row = out + r * p
            row[0] = 0; row[1] = 0; row[2] = 1 / prior.sigma
            r += 1
        }
        if let s = statePrior {
            let row = out + r * p
            row[0] = s.w00; row[1] = 0
            row[p] = s.w10; row[p + 1] = s.w11
            if third {
                row[2] = 0; row[p + 2] = 0
                row[2 * p] = s.w20; row[2 * p + 1] = s.w21; row[2 * p + 2] = s.w22
            }
        }
    }
}
