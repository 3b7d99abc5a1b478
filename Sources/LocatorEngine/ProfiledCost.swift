import LabCore

/// −2 log-likelihood at a point with δ profiled out, for the stated region's search (``FixProblem/likelihoodRegion(_:covariance:threshold:within:)``),
/// which only compares it with a threshold some units above the fix's cost. Profiled by one Gauss–Newton step from `delta`:
/// Σr² − (Σr·g)²/Σg², g = r(δ + 1) − r(δ), exact where the residuals are linear in δ (every RSSI term not truncated, where
/// g = −wᵢ). With two unknowns (no δ), Σr².
///
/// The RSSI terms — all but a few evaluations' work — are taken **four at a time in single precision**: their beacons
/// are copied once per region, relative to `origin` (the region's centre, so that the coordinates stay small), and
/// the distance's log is ``FastLog/quad(_:)``'s. A cost near 10 then carries an error of about 10⁻⁵, a millionth of
/// the χ² threshold the search compares it with; a truncated heard mean is computed in double precision from
/// ``TruncatedNormal/lookup``'s table (within 2·10⁻⁵ σ of the exact mean), and wall losses as the solver's. The other
/// terms (ranges, censored terms, bearings, priors) are the model's own, in double precision.
/// `profiledCostMatchesItsDefinition` holds it to the residuals' definition.
package struct ProfiledCost {
    package typealias Quad = SIMD4<Float>
    private let model: FixModel
    private let delta: Double
    private let origin: Point
    /// Groups of four RSSI terms; each is six quads in `terms`: the beacon's x and y less the origin's, its height offset
    /// squared, P0 + δ, the reading and its weight (a lane past the last term weighs nothing).
    private let groups: Int
    private let terms: UnsafeMutablePointer<Quad>
    /// 5n/ln 10 and the mean from which heard means are not truncated (``FixModel``'s), in single precision.
    private let k: Float, untruncated: Float
    private let profiles: Bool, truncated: Bool, hasWalls: Bool
    /// The sums that do not change with the point: the offset prior's, and Σg² = Σw² over the RSSI terms (all taken as
    /// not truncated; a truncated group puts its own in place of its lanes').
    private let fixed: (rr: Double, rg: Double, gg: Double)
    /// Whether the model has terms besides the RSSI domain's RSSI terms and the offset prior (``FixModel/addOtherProfiledTerms(x:y:delta:to:)``).
    private let hasOtherTerms: Bool

    /// Quads a problem of `capacity` terms needs for ``init(_:delta:origin:storage:)``'s `storage`.
    package static func storage(forTerms capacity: Int) -> Int { 6 * ((capacity + 3) / 4) }

    /// `model`'s profiled cost around `delta`, its RSSI terms copied to `storage` (``storage(forTerms:)`` quads), which
    /// it uses until the model changes.
    package init(_ model: FixModel, delta: Double, origin: Point, storage: UnsafeMutablePointer<Quad>) {
        self.model = model; self.delta = delta; self.origin = origin; terms = storage
        k = Float(model.halfTenNOverLn10); untruncated = Float(model.untruncatedFrom)
        profiles = model.unknowns == 3; truncated = model.truncated; hasWalls = model.hasWalls
        let n = model.domain == .rssi ? model.rssiCount : 0
        groups = (n + 3) / 4
        hasOtherTerms = model.domain == .range || model.rangeCount + model.censoredCount + model.bearingCount > 0 || model.statePrior != nil
        var ww = Quad()
        for g in 0..<groups {
            var ex = Quad(), ey = Quad(), dz2 = Quad(repeating: 1), mean = Quad(), rssi = Quad(), w = Quad()
            for l in 0..<4 where 4 * g + l < n {
                let i = 4 * g + l
                let heard = model.heard
                ex[l] = Float(heard.x[i] - origin.x); ey[l] = Float(heard.y[i] - origin.y); dz2[l] = Float(heard.heightOffset[i] * heard.heightOffset[i])
                mean[l] = Float(heard.p0[i] + delta); rssi[l] = Float(heard.rssi[i]); w[l] = Float(heard.weight[i] * heard.robustWeight[i])
            }
            let t = storage + 6 * g
            t[0] = ex; t[1] = ey; t[2] = dz2; t[3] = mean; t[4] = rssi; t[5] = w
            ww += w * w
        }
        var fixed = (rr: 0.0, rg: 0.0, gg: profiles ? Double(ww.sum()) : 0)
        if let prior = model.prior {
            let r0 = (delta - prior.mean) / prior.sigma
            fixed.rr += r0 * r0
            if profiles { let g = 1 / prior.sigma; fixed.rg += r0 * g; fixed.gg += g * g }
        }
        self.fixed = fixed
    }

    /// The profiled cost at `p`.
    package func callAsFunction(_ p: Point) -> Double {
        let px = Quad(repeating: Float(p.x - origin.x)), py = Quad(repeating: Float(p.y - origin.y))
        var rr = Quad(), rg = Quad()
        var sums = fixed
        for g in 0..<groups {
            let t = terms + 6 * g
            let dx = px - t[0], dy = py - t[1]
            var d2 = dx * dx + dy * dy + t[2]
            d2.replace(with: 1e-12, where: d2 .< 1e-12)
            var mean = t[3] - k * FastLog.quad(d2)
            if hasWalls { mean -= wallLosses(group: g, at: p) }
            let w = t[5]
            if truncated, any(mean .< untruncated) {
                addTruncated(group: g, mean: mean, to: &sums)
                continue
            }
            let r0 = (t[4] - mean) * w
            rr += r0 * r0
            rg -= r0 * w   // g = r(δ + 1) − r(δ) = −w
        }
        sums.rr += Double(rr.sum())
        if profiles { sums.rg += Double(rg.sum()) }
        if hasOtherTerms { model.addOtherProfiledTerms(x: p.x, y: p.y, delta: delta, to: &sums) }
        return profiles && sums.gg > 0 ? sums.rr - sums.rg * sums.rg / sums.gg : sums.rr
    }

    /// The walls' losses between group g's beacons and `p`, as the solver's.
    private func wallLosses(group g: Int, at p: Point) -> Quad {
        var loss = Quad()
        for l in 0..<4 where 4 * g + l < model.rssiCount {
            let i = 4 * g + l
            loss[l] = Float(model.wallLoss(from: Point(model.heard.x[i], model.heard.y[i]), to: p, fan: model.heard.fan[i], beacon: model.heard.beacon[i]))
        }
        return loss
    }

    /// Group g's terms with the truncated heard mean (in double precision from the table), in place of the Σg² the fixed
    /// sums counted for them.
    private func addTruncated(group g: Int, mean: Quad, to sums: inout (rr: Double, rg: Double, gg: Double)) {
        let t = terms + 6 * g
        for l in 0..<4 where 4 * g + l < model.rssiCount {
            let w = Double(t[5][l]), reading = Double(t[4][l]), m0 = Double(mean[l])
            let r0 = (reading - model.tabulatedHeardMean(m0)) * w
            sums.rr += r0 * r0
            guard profiles else { continue }
            let d = (reading - model.tabulatedHeardMean(m0 + 1)) * w - r0
            sums.rg += r0 * d; sums.gg += d * d - w * w
        }
    }
}

extension FixModel {
    /// The profiled cost's sums (Σr², Σr·g, Σg², ``ProfiledCost``) over every term but the RSSI domain's RSSI terms and the
    /// offset prior: the range domain's terms, measured ranges, censored terms, bearings and the state prior, at (x, y)
    /// and δ (and δ + 1).
    func addOtherProfiledTerms(x: Double, y: Double, delta: Double, to sums: inout (rr: Double, rg: Double, gg: Double)) {
        let profiles = unknowns == 3
        @inline(__always) func add(_ r0: Double, _ r1: Double) {
            sums.rr += r0 * r0
            let d = r1 - r0
            sums.rg += r0 * d; sums.gg += d * d
        }
        let raised = delta + 1
        if domain == .range {
            for i in 0..<rssiCount {
                let dx = x - heard.x[i], dy = y - heard.y[i]
                let d2 = max(dx * dx + dy * dy + heard.heightOffset[i] * heard.heightOffset[i], 1e-12)
                let r = rangeDomainResidual(i, d2: d2)
                add(r, r)
            }
        }
        for m in 0..<rangeCount {
            let r = measuredRangeResidual(m, x: x, y: y)
            add(r, r)
        }
        for c in 0..<censoredCount {
            let r0 = censoredTerm(c, x: x, y: y, delta: delta).r
            add(r0, profiles ? censoredTerm(c, x: x, y: y, delta: raised).r : r0)
        }
        for b in 0..<bearingCount {
            let r = bearingResidual(b, x: x, y: y)
            add(r, r)
        }
        if let statePrior {
            let r0 = statePrior.residuals(x: x, y: y, delta: delta), r1 = statePrior.residuals(x: x, y: y, delta: raised)
            add(r0.0, r1.0); add(r0.1, r1.1)
            if profiles { add(r0.2, r1.2) }
        }
    }
}
