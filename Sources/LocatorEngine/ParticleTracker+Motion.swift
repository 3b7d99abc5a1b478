import Foundation
import LabCore

extension ParticleTracker {
    /// Moves every particle by the motion model; a step through a wall or off the floor drops it.
    func predict(dt: Double) {
        // Q's Cholesky factor per axis, so that (Δposition, Δvelocity) = L·(z₁, z₂) has covariance Q.
        let (pp, pv, vv, dd) = settings.motion.processNoise(dt: dt)
        let (l11, l21, l22) = Covariance2(xx: pp, xy: pv, yy: vv).choleskyFactor()
        let drift = dd.squareRoot()
        let px = cloud.x, py = cloud.y, pvx = cloud.vx, pvy = cloud.vy, pd = cloud.offset, pw = cloud.weight
        let ps = cloud.still, rx = cloud.resumeX, ry = cloud.resumeY, pt = cloud.stood
        let modes = modesInUse, stop = settings.motion.stops(dt: dt)
        let standing = settings.motion.standingSigma * dt.squareRoot()
        var rng = self.rng, modeRng = self.modeRng   // local copies: no exclusivity check per draw
        defer { self.rng = rng; self.modeRng = modeRng }
        for i in 0..<cloud.count where pw[i] > 0 {
            if modes {
                // The mode's switch over dt (``Settings/stillMode``): a walker who stops keeps its velocity to walk on at.
                let u = modeRng.uniform()
                if ps[i] != 0 {
                    if u < settings.motion.walksOn(stood: pt[i], dt: dt) { ps[i] = 0; pvx[i] = rx[i]; pvy[i] = ry[i] } else { pt[i] += dt }
                } else if u < stop {
                    ps[i] = 1; pt[i] = 0; rx[i] = pvx[i]; ry[i] = pvy[i]; pvx[i] = 0; pvy[i] = 0
                }
                if ps[i] != 0 {
                    let x = px[i] + standing * rng.gaussian(), y = py[i] + standing * rng.gaussian()
                    pd[i] += drift * rng.gaussian()
                    if !floorplan.isWalkable(x, y) || floorplan.crosses(px[i], py[i], x, y) { pw[i] = 0 }
                    px[i] = x; py[i] = y
                    continue
                }
            }
            let zx = rng.gaussian(), zy = rng.gaussian()
            let x = px[i] + pvx[i] * dt + l11 * zx, y = py[i] + pvy[i] * dt + l11 * zy
            pvx[i] += l21 * zx + l22 * rng.gaussian(); pvy[i] += l21 * zy + l22 * rng.gaussian()
            pd[i] += drift * rng.gaussian()
            if !floorplan.isWalkable(x, y) || floorplan.crosses(px[i], py[i], x, y) { pw[i] = 0 }
            px[i] = x; py[i] = y
        }
        if facesAlongVelocity { faceAlongVelocity() }
    }

    /// Whether each particle walks or stands (``Settings/stillMode``): not under correlated shadowing
    /// (``RadioModel/correlationDistance``), where a walker standing hears the same shadowing scan after scan, so its
    /// stand adds nothing the first scan did not tell, and the standing particles would only narrow the cloud onto that
    /// scan's error (``ShadowingMemory`` reads a cloud as one linear filter, not a mixture of two).
    var standsAndWalks: Bool { settings.stillMode && venue.radio.correlationDistance == nil }

    /// Whether particles face along their velocity (``Settings/facingFromVelocity``): the field's likelihood, a body
    /// to weigh, and no steps in this track.
    var facesAlongVelocity: Bool { settings.fieldModel && settings.facingFromVelocity && !venue.body.isNone && !facingKnown }

    /// Where each particle's walker faces, once the cloud moves faster than ``Settings/facingSpeed`` (its weighted mean
    /// velocity v̄; below it every particle keeps its last facing): along v̄, turned by the particle's own velocity
    /// across v̄ — the direction of v̄ + ((vᵢ − v̄)·u⊥)·u⊥, u⊥ the unit vector across v̄. The particle's speed along
    /// v̄ does not turn it: facing along each particle's own velocity instead made the body's pattern, which tells
    /// direction, pick fast particles (under the motion model's isotropic velocity noise, a particle's velocity points
    /// the right way more often the faster it is along the track), and the cloud ran ahead of the walker
    /// (docs/tracking.md). Notes when the cloud first moves (``hasMoved``).
    func faceAlongVelocity() {
        guard let v = cloud.meanVelocity() else { return }
        let vx = v.x, vy = v.y
        let speed = (vx * vx + vy * vy).squareRoot()
        guard speed > settings.facingSpeed else { return }
        hasMoved = true
        let ux = vx / speed, uy = vy / speed   // along v̄; (−uy, ux) across it
        let pvx = cloud.vx, pvy = cloud.vy, pw = cloud.weight, fx = cloud.faceX, fy = cloud.faceY, ps = cloud.still
        for i in 0..<cloud.count where pw[i] > 0 && ps[i] == 0 {   // a standing walker faces where it last went
            let across = (pvy[i] - vy) * ux - (pvx[i] - vx) * uy
            let ax = vx - across * uy, ay = vy + across * ux
            let inverse = 1 / (ax * ax + ay * ay).squareRoot()   // ≥ speed > 0: the across part is orthogonal to v̄
            fx[i] = ax * inverse; fy[i] = ay * inverse
        }
    }

    /// Moves every particle by the phone's steps since the last scan: each step's length with its stated σ and a
    /// scale error, its heading with its stated σ less the particle's compass bias; no step means standing (a
    /// small random walk). The velocity becomes the displacement over dt. A move through a wall or off the floor
    /// drops the particle.
    func predict(steps: [StepReading], dt: Double) {
        let m = settings.motion
        let still = m.standingSigma * dt.squareRoot()
        let biasDrift = m.stepBiasDrift * .pi / 180 * dt.squareRoot()
        let drift = m.processNoise(dt: dt).offset.squareRoot()
        if !steps.isEmpty { facingKnown = true }
        let n = cloud.count
        let px = cloud.x, py = cloud.y, pvx = cloud.vx, pvy = cloud.vy, pd = cloud.offset, pw = cloud.weight
        let pb = cloud.compassBias, fx = cloud.faceX, fy = cloud.faceY
        var rng = self.rng   // a local copy: no exclusivity check per draw
        defer { self.rng = rng }
        if !biasDrawn {
            for i in 0..<n { pb[i] = m.stepBiasSigma * .pi / 180 * rng.gaussian() }
            biasDrawn = true
        }
        // Each step's length σ (its own and the scale error), heading σ (radians) and heading's sine and cosine, once
        // for every particle.
        let count = steps.count
        withUnsafeTemporaryAllocation(of: StepTerms.self, capacity: max(count, 1)) { buffer in
            let terms = buffer.baseAddress!
            for (k, st) in steps.enumerated() {
                terms[k] = StepTerms(
                    lengthSigma: (st.lengthAccuracy * st.lengthAccuracy + m.stepScaleError * m.stepScaleError * st.length * st.length).squareRoot(),
                    headingSigma: max(st.headingAccuracy, 1) * .pi / 180,
                    sine: sin(st.heading * .pi / 180), cosine: cos(st.heading * .pi / 180))
            }
            floorplan.withWalkable { walkable in
            for i in 0..<n where pw[i] > 0 {
                var x = px[i], y = py[i]
                for (k, st) in steps.enumerated() {
                    let length = st.length + terms[k].lengthSigma * rng.gaussian()
                    // The particle's heading is the step's, turned by its draw of the heading error less its compass bias: a
                    // small angle, so its sine and cosine come from their series, and the step's own once for all.
                    let (sine, cosine) = Self.turned(terms[k].sine, terms[k].cosine, by: terms[k].headingSigma * rng.gaussian() - pb[i])
                    x += max(length, 0) * sine; y += max(length, 0) * cosine
                    fx[i] = sine; fy[i] = cosine
                }
                x += still * rng.gaussian(); y += still * rng.gaussian()
                if dt > 0 { pvx[i] = (x - px[i]) / dt; pvy[i] = (y - py[i]) / dt }
                pb[i] += biasDrift * rng.gaussian()
                pd[i] += drift * rng.gaussian()
                if !walkable.contains(x, y) || floorplan.crosses(px[i], py[i], x, y) { pw[i] = 0 }
                px[i] = x; py[i] = y
            }
            }
        }
    }

    /// What every particle shares of one step: its length's σ (its own and the scale error, m), its heading's σ
    /// (radians), and the heading's sine and cosine.
    private struct StepTerms {
        let lengthSigma, headingSigma, sine, cosine: Double
    }

    /// (sin, cos) of θ + ε from θ's (sin, cos): ε's by their series to ε⁷ and ε⁸ when |ε| ≤ 0.5 (error under 10⁻⁷),
    /// by `sin` and `cos` otherwise.
    @inline(__always) static func turned(_ sine: Double, _ cosine: Double, by e: Double) -> (Double, Double) {
        let se: Double, ce: Double
        if abs(e) <= 0.5 {
            let e2 = e * e
            se = e * (1 - e2 / 6 * (1 - e2 / 20 * (1 - e2 / 42)))
            ce = 1 - e2 / 2 * (1 - e2 / 12 * (1 - e2 / 30 * (1 - e2 / 56)))
        } else {
            se = sin(e); ce = cos(e)
        }
        return (sine * ce + cosine * se, cosine * ce - sine * se)
    }

    /// Jitters the resampled cloud (equal weights) by h² times its own covariance: positions jointly (a move off the
    /// floor or through a wall is not made), δ and, once drawn, the compass bias each by its own spread (δ apart from
    /// the position, and without shrinking the cloud toward its mean, so each resampling widens it by about 1 + h²).
    /// A cloud collapsed onto one point has no spread to jitter by. The regularised filter of Musso, Oudjane & Le Gland
    /// (2001).
    func regularise(bandwidth h: Double) {
        let n = cloud.count
        let px = cloud.x, py = cloud.y, pd = cloud.offset, pb = cloud.compassBias
        var mx = 0.0, my = 0.0, md = 0.0, mb = 0.0
        for i in 0..<n { mx += px[i]; my += py[i]; md += pd[i]; mb += pb[i] }
        let k = 1 / Double(n)
        mx *= k; my *= k; md *= k; mb *= k
        var cxx = 0.0, cxy = 0.0, cyy = 0.0, vd = 0.0, vb = 0.0
        for i in 0..<n {
            let dx = px[i] - mx, dy = py[i] - my, dd = pd[i] - md, db = pb[i] - mb
            cxx += dx * dx; cxy += dx * dy; cyy += dy * dy; vd += dd * dd; vb += db * db
        }
        let (l00, l10, l11) = Covariance2(xx: cxx * k, xy: cxy * k, yy: cyy * k).choleskyFactor()
        let sd = h * (vd * k).squareRoot(), sb = h * (vb * k).squareRoot()
        var rng = self.rng
        defer { self.rng = rng }
        for i in 0..<n {
            let z0 = rng.gaussian(), z1 = rng.gaussian()
            let x = px[i] + h * l00 * z0, y = py[i] + h * (l10 * z0 + l11 * z1)
            if floorplan.isWalkable(x, y) && !floorplan.crosses(px[i], py[i], x, y) { px[i] = x; py[i] = y }
            pd[i] += sd * rng.gaussian()
            if biasDrawn { pb[i] += sb * rng.gaussian() }
        }
    }

    /// The kernel's bandwidth for `particles` equally weighted particles: Silverman's rule for a Gaussian kernel in the
    /// d = 4 dimensions jittered (x, y, δ, compass bias), h = (4 / (N·(d + 2)))^(1/(d + 4)); 0.443 for 1,000. A phone
    /// without steps has no bias to jitter (d = 3 would give 0.36); the one h serves both (docs/tracking.md).
    package static func bandwidth(particles: Int) -> Double {
        let d = 4.0
        return pow(4 / (Double(max(particles, 1)) * (d + 2)), 1 / (d + 4))
    }
}
