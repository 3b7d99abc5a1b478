import Foundation
import LabCore

/// One scan's per-beacon terms of the particle filter's likelihood (``ParticleTracker/weigh(_:)``), one column per
/// quantity: the heard beacons first, then the missed ones. Allocated once per tracker for every beacon of the venue
/// (a scan hears each beacon at most once, so heard and missed together never exceed them).
struct ScanTerms {
    let capacity: Int
    /// The beacon's index in the venue.
    let beacon: UnsafeMutablePointer<Int>
    /// The beacon's position and its height above the phone, squared.
    let x, y, height2: UnsafeMutablePointer<Double>
    /// Heard: the mean reading less the beacon's P0. Missed: the sensitivity less P0 and the strongest reading's lift.
    let level: UnsafeMutablePointer<Double>
    /// 1/σ_e: the spread of the strongest reading's mean about where detection puts it (both kinds).
    let inverseDetectionSpread: UnsafeMutablePointer<Double>
    /// Heard: 1/(2s²), s² the mean reading's variance (its own and, when learned, the beacon's error's v).
    let halfPrecision: UnsafeMutablePointer<Double>
    /// Heard: 1/(2s²) − 1/(2S²), S² = s² + s_o² the heavy tail's variance.
    let tailPrecisionGap: UnsafeMutablePointer<Double>
    /// Heard: ln((1 − ε)/s), the core's log scale.
    let logCoreScale: UnsafeMutablePointer<Double>
    /// Heard: ln(ε·s/((1 − ε)·S)), the tail's log weight against the core's (−∞ when ε = 0).
    let logTailRatio: UnsafeMutablePointer<Double>
    /// Heard: the Kalman gain v/s² of the beacon's learned error.
    let gain: UnsafeMutablePointer<Double>
    /// Heard: the reading's own variance s² − v.
    let ownVariance: UnsafeMutablePointer<Double>
    /// Heard: the sensitivity less the mean reading.
    let headroom: UnsafeMutablePointer<Double>
    /// Missed: the squared distance beyond which no particle would hear the beacon.
    let farDistance2: UnsafeMutablePointer<Double>
    /// Heard: the particle's residual, and its weighted sums over the particles for the innovation.
    let residual, residualSum, residualSquareSum: UnsafeMutablePointer<Double>

    init(capacity requested: Int) {
        capacity = max(requested, 1)
        beacon = .allocate(capacity: capacity)
        beacon.initialize(repeating: 0, count: capacity)
        let columns = 16
        let block = UnsafeMutablePointer<Double>.allocate(capacity: columns * capacity)
        block.initialize(repeating: 0, count: columns * capacity)
        let c = capacity
        x = block; y = block + c; height2 = block + 2 * c; level = block + 3 * c; inverseDetectionSpread = block + 4 * c
        halfPrecision = block + 5 * c; tailPrecisionGap = block + 6 * c; logCoreScale = block + 7 * c
        logTailRatio = block + 8 * c; gain = block + 9 * c; ownVariance = block + 10 * c; headroom = block + 11 * c
        farDistance2 = block + 12 * c; residual = block + 13 * c; residualSum = block + 14 * c; residualSquareSum = block + 15 * c
    }

    func deallocate() { beacon.deallocate(); x.deallocate() }
}

extension ParticleTracker {
    /// Multiplies each weight by scan `o`'s likelihood: its RSSI (heard and missed beacons), its ranges, and its headings
    /// toward friezes.
    func weighScan(_ o: Observation, ranges: [MeasuredRange]) {
        if !o.beacons.isEmpty { weigh(o) }
        if !ranges.isEmpty { weigh(ranges) }
        if settings.weighsHeadings && !venue.friezes.isEmpty && !o.headings.isEmpty { weigh(headings: o.headings) }
    }

    /// Whether the particles know where the walker faces for scan `o` (``weigh(_:)``): never without a body to weigh; a
    /// phone with a step detector once it reported a step in this track (with the field's likelihood; without it, only
    /// in a scan that brings steps); a phone without one once the cloud has moved (``faceAlongVelocity()``).
    func knowsFacing(_ o: Observation) -> Bool {
        if venue.body.isNone { return false }
        guard let steps = o.steps else { return facesAlongVelocity && hasMoved }
        return settings.fieldModel ? facingKnown : !steps.isEmpty
    }

    /// Multiplies each weight by the scan's likelihood at the particle: per heard beacon, its mean reading and that it
    /// was heard; per beacon in the venue not heard, that it was missed.
    ///
    /// - The mean of a heard beacon's readings: a reading counts only when it clears the sensitivity S, so against
    ///   the particle's mean μ the heard readings average μ + σ·λ((S − μ)/σ) (``TruncatedNormal``). With
    ///   S² = s² + s_o², the heavy-tailed mixture's log density ln((1 − ε)/s·e^(−r²/2s²) + ε/S·e^(−r²/2S²)) is
    ///   ln((1 − ε)/s) − r²/2s² + ln(1 + eˣ), x = r²·(1/2s² − 1/2S²) + ln(ε·s/((1 − ε)·S)), from a table (``Softplus``),
    ///   whose logistic(x) is the share of the reading that the mixture calls an outlier.
    /// - Heard or missed, once per scan window: a beacon is heard when its strongest reading clears S. The strongest
    ///   of K′ = K·(1 − loss) readings lies about e·σ above their mean (``TruncatedNormal/expectedMaximum(of:)``)
    ///   with a spread of about σ/2 (σ under correlated shadowing, where a window's readings move together), to
    ///   which the model error and the beacon's learned error add: P(heard) = 1 − Φ((S − μ − e·σ)/σ_e), and a whole
    ///   window goes unreported with at least ``Settings/missFloor`` (m): P(missed) = m + (1 − m)·Φ(·) (the constant
    ///   1 − m of P(heard) is left out). A missed beacon the particle would surely hear weighs it down — what keeps a
    ///   weak phone that hears two beacons from being placed far from the rest — by at most ln m. Beacons too far
    ///   from every particle to matter are skipped.
    func weigh(_ o: Observation) {
        let k = 5 * venue.radio.exponent / log(10.0)   // μ = P0 + δ − k·ln d² − walls
        let sigma = venue.radio.sigma, sigma2 = sigma * sigma, inverseSigma = 1 / sigma
        let correlated = venue.radio.correlationDistance != nil
        let sensitivity = venue.radio.sensitivity
        // The body: when the phone has a step detector and has reported a step in this track, each particle's walker
        // faces along the particle's own last step (its heading as drawn in ``predict(steps:dt:)``, less the
        // particle's compass bias; a walker standing still faces where it last went), and the body's sector behind
        // it is known (``BodyShadowing``); its unknown-heading share of the model error goes. A phone without a step
        // detector: each particle's walker faces along the cloud's velocity turned by its own (``faceAlongVelocity()``).
        // Otherwise the heading is unknown and the body stays in the model error (its mean in δ).
        let body = venue.body
        let facing = knowsFacing(o)
        let field = settings.fieldModel
        let errors = cloud.beaconErrors
        let errorVariance = errors?.variance
        // The beacons' P0 errors, when learned, leave the model error too: their variance is in `errorVariance`.
        let spread = errors != nil ? venue.beaconSpread * venue.beaconSpread : 0
        let modelVariance = venue.radio.modelError * venue.radio.modelError - (facing ? body.unknownHeadingVariance : 0) - spread
        let floor = modelErrorFloor, eps = settings.outlierRate, model2 = max(floor * floor, modelVariance)
        // Nearly sharp (the least blur, ±2°): each particle's heading is its own draw of the step's, so the step's σ is
        // in the draws, not in the edge.
        let sector = body.sector(headingSigma: 0)
        let outer2 = sector.outer * sector.outer
        let wide2 = settings.outlierScale * settings.outlierScale
        // Detection: the strongest reading's lift above the mean and its spread.
        let lift = detectionLift, maximum2 = strongestSpread * sigma2
        let tables = TruncatedNormal.lookup, softplus = Softplus.shared, fastLog = FastLog.shared
        let missed = missedTerm
        let n = cloud.count
        let px = cloud.x, py = cloud.y, pd = cloud.offset, pw = cloud.weight, fx = cloud.faceX, fy = cloud.faceY
        let logLikelihood = cloud.scratch
        let m = o.beacons.count
        // Missed beacons tell something only against a known sensitivity (the library may not be given one).
        var u = 0
        if field && sensitivity.isFinite {
            heardFlags.update(repeating: false, count: beacons)
            for b in o.beacons { heardFlags[b.beacon] = true }
            for beacon in 0..<beacons where !heardFlags[beacon] { u += 1 }
        }
        var deltaMax = -Double.infinity   // for the missed beacons' far limit
        if u > 0 { for i in 0..<n where pw[i] > 0 { deltaMax = max(deltaMax, pd[i]) } }
        var best = -Double.infinity
        let grid = floorplan.cells
        let t = terms
        precondition(m + u <= t.capacity, "a scan of more beacons than the venue has")
        floorplan.withGrids { losses, attenuations, mapVariances in
            let all = m + u
            var alive = 0.0
            for j in 0..<m { t.residualSum[j] = 0; t.residualSquareSum[j] = 0 }
            for (j, b) in o.beacons.enumerated() {
                t.beacon[j] = b.beacon
                let c = venue.beaconPositions[b.beacon], dz = venue.beaconHeightOffset[b.beacon]
                t.x[j] = c.x; t.y[j] = c.y; t.height2[j] = dz * dz
                t.level[j] = b.rssi - venue.beaconP0[b.beacon]
                t.headroom[j] = sensitivity - b.rssi
                t.ownVariance[j] = sigma2 / (correlated ? 1 : Double(max(b.count, 1))) + model2
                let v = errorVariance?[b.beacon] ?? 0
                let s2 = t.ownVariance[j] + v, w2 = s2 + wide2
                t.gain[j] = v / s2
                t.halfPrecision[j] = 0.5 / s2; t.tailPrecisionGap[j] = 0.5 / s2 - 0.5 / w2
                t.logCoreScale[j] = log((1 - eps) / s2.squareRoot())
                t.logTailRatio[j] = log(eps / w2.squareRoot()) - t.logCoreScale[j]   // −∞ when ε = 0
                t.inverseDetectionSpread[j] = 1 / (maximum2 + model2 + v).squareRoot()
            }
            var j = m
            for beacon in 0..<beacons where u > 0 && !heardFlags[beacon] {
                defer { j += 1 }
                t.beacon[j] = beacon
                let c = venue.beaconPositions[beacon], dz = venue.beaconHeightOffset[beacon]
                t.x[j] = c.x; t.y[j] = c.y; t.height2[j] = dz * dz
                let v = errorVariance?[beacon] ?? 0, spreadOfMean = (maximum2 + model2 + v).squareRoot()
                t.inverseDetectionSpread[j] = 1 / spreadOfMean
                t.level[j] = sensitivity - venue.beaconP0[beacon] - lift
                // Beyond this distance even the strongest δ, with the beacon's error 3σ and the detection spread 2.5σ_e
                // in its favour, leaves P(missed) above 0.994: the term (ln P, under 0.006) is skipped.
                t.farDistance2[j] = exp((2.5 * spreadOfMean + 3 * v.squareRoot() + deltaMax - t.level[j]) / k)
            }
            for i in 0..<n {
                guard pw[i] > 0 else { logLikelihood[i] = -.infinity; continue }
                let row = grid.cell(px[i], py[i]) * beacons   // the particle's cell's row in the grids
                let x = px[i], y = py[i], delta = pd[i]
                let hx = fx[i], hy = fy[i]
                let learned = errors?.of(particle: i)
                /// The body's loss on beacon offset (dx, dy) from the particle, horizontal distance² h2.
                @inline(__always) func bodyLoss(_ dx: Double, _ dy: Double, _ h2: Double) -> Double {
                    // c = (particle − beacon)·heading / distance, the cosine of the beacon's angle from the walker's
                    // back; beyond the sector's outer edge (c ≤ outer > 0, tested without the square root) q = 0.
                    let along = dx * hx + dy * hy
                    var q = 0.0
                    if sector.outer <= 0 || (along > 0 && along * along > outer2 * h2) {
                        q = sector.probability(cosineFromBack: h2 > 1e-18 ? along / h2.squareRoot() : 0)
                    }
                    return body.extraLoss(probability: q)
                }
                var ll = 0.0
                // Two passes over the heard beacons, the residuals and then the tables, so that the tables' chains of
                // dependent loads overlap from beacon to beacon.
                for j in 0..<m {
                    let dx = x - t.x[j], dy = y - t.y[j]
                    let h2 = dx * dx + dy * dy
                    let d2 = max(h2 + t.height2[j], 1e-4)
                    // r = reading − μ, μ = P0 + δ − k·ln d² − walls − body + the beacon's learned error
                    var r = t.level[j] - delta + k * fastLog(d2) + (losses.map { Double($0[row + t.beacon[j]]) } ?? 0)
                    if facing { r += bodyLoss(dx, dy, h2) }
                    if let learned { r -= learned[t.beacon[j]] }
                    t.residual[j] = r
                }
                for j in 0..<m {
                    var r = t.residual[j]
                    var half = t.halfPrecision[j], gap = t.tailPrecisionGap[j], core = t.logCoreScale[j], tailRatio = t.logTailRatio[j]
                    var detection = t.inverseDetectionSpread[j]
                    // The radio map's variance at the particle's cell is model error on top of the reading's own.
                    if let mapVariances, case let mv = Double(mapVariances[row + t.beacon[j]]), mv > 0 {
                        let v = errorVariance?[t.beacon[j]] ?? 0, s2 = t.ownVariance[j] + v + mv, w2 = s2 + wide2
                        half = 0.5 / s2; gap = half - 0.5 / w2
                        core = log((1 - eps) / s2.squareRoot()); tailRatio = log(eps / w2.squareRoot()) - core
                        detection = 1 / (maximum2 + model2 + v + mv).squareRoot()
                    }
                    if field {
                        ll += tables.logSurvival((t.headroom[j] + r - lift) * detection)   // heard
                        let alpha = (t.headroom[j] + r) * inverseSigma
                        if alpha > -6 { r -= sigma * tables.hazard(alpha) }
                    }
                    t.residualSum[j] += pw[i] * r; t.residualSquareSum[j] += pw[i] * r * r
                    let r2 = r * r
                    let (tail, outlier) = softplus(r2 * gap + tailRatio)
                    ll += core - r2 * half + tail
                    // The beacon's error learns from the reading as far as the reading is not an outlier.
                    if let learned { learned[t.beacon[j]] += t.gain[j] * r * (1 - outlier) }
                }
                for j in m..<all {
                    let dx = x - t.x[j], dy = y - t.y[j]
                    let h2 = dx * dx + dy * dy
                    let d2 = max(h2 + t.height2[j], 1e-4)
                    guard d2 < t.farDistance2[j] else { continue }
                    // g = S − lift − μ, P(missed) = m + (1 − m)·Φ(g/σ_e); the path loss from the particle's cell's centre.
                    var g = t.level[j] - delta + Double(attenuations![row + t.beacon[j]])   // made: fieldModel
                    if facing { g += bodyLoss(dx, dy, h2) }
                    if let learned { g -= learned[t.beacon[j]] }
                    ll += missed(-g * t.inverseDetectionSpread[j])
                }
                logLikelihood[i] = ll
                alive += pw[i]
                best = max(best, ll)
            }
            // The scan's normalised innovation squared, each heard beacon's capped (``LostCloudDetector``).
            if settings.resetsLostCloud && alive > 0 {
                var innovation = 0.0
                let inflation = shadowing?.inflation ?? 1   // the cloud's spread as the report states it
                for j in 0..<m {
                    let mean = t.residualSum[j] / alive, variance = inflation * max(t.residualSquareSum[j] / alive - mean * mean, 0)
                    let e = mean * mean / (t.ownVariance[j] + (errorVariance?[t.beacon[j]] ?? 0) + variance)
                    innovation += min(e, LostCloudDetector.innovationCap)
                }
                lostCloud.note(innovation: innovation, beacons: m)
            }
            if let errorVariance {
                for j in 0..<m { errorVariance[t.beacon[j]] *= t.ownVariance[j] / (t.ownVariance[j] + errorVariance[t.beacon[j]]) }
            }
        }
        guard best.isFinite else { return }
        for i in 0..<n where pw[i] > 0 { pw[i] *= exp(logLikelihood[i] - best) }
    }

    /// Multiplies each weight by the headings' likelihood at the particle: each heading against the bearing from the
    /// particle to its frieze (the one identified, or the visible one whose bearing agrees best from the particle, as the
    /// snapshot fit matches it from its start), Gaussian with the heading's stated σ (at least 0.5°, as in the fit).
    func weigh(headings: [HeadingReading]) {
        weighEach { i in
            let p = Point(cloud.x[i], cloud.y[i])
            var ll = 0.0
            for h in headings {
                guard let f = h.frieze ?? FriezeMatcher.bestFrieze(for: h.heading, from: p, venue: venue) else { continue }
                let e = Bearing.difference(h.heading, Bearing.degrees(from: p, to: venue.landmarks[f].position)) / max(h.accuracy, 0.5)
                ll -= 0.5 * e * e
            }
            return ll
        }
    }

    /// Multiplies each weight by the measured ranges' likelihood at the particle: each range r with its σ against the
    /// particle's 3-D distance d to the beacon, N(r − d; 0, σ²), σ at least 1 mm (as in the fit).
    func weigh(_ ranges: [MeasuredRange]) {
        weighEach { i in
            var ll = 0.0
            for r in ranges {
                let c = venue.beaconPositions[r.beacon], dz = venue.beaconHeightOffset[r.beacon]
                let dx = cloud.x[i] - c.x, dy = cloud.y[i] - c.y
                let e = ((dx * dx + dy * dy + dz * dz).squareRoot() - r.distance) / max(r.sigma, 1e-3)   // as the fit's
                ll -= 0.5 * e * e
            }
            return ll
        }
    }

    /// Multiplies each live particle's weight by exp(`logLikelihood`(i) − the largest over the live particles).
    private func weighEach(_ logLikelihood: (Int) -> Double) {
        let n = cloud.count, pw = cloud.weight, scratch = cloud.scratch
        var best = -Double.infinity
        for i in 0..<n {
            guard pw[i] > 0 else { scratch[i] = -.infinity; continue }
            let ll = logLikelihood(i)
            scratch[i] = ll
            best = max(best, ll)
        }
        guard best.isFinite else { return }
        for i in 0..<n where pw[i] > 0 { pw[i] *= exp(scratch[i] - best) }
    }
}
