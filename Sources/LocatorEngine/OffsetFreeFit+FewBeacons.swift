import Foundation
import LabCore

/// A scan too thin for the general fit — one or two beacons heard or ranged, or beacons in a line — answered where its
/// readings and the venue determine one position, and refused, naming the ambiguity, where they do not
/// (docs/library.md, "Fewer than three beacons").
///
/// Each reading is a circle around its beacon: the RSSI's distance at the phone's offset as learned so far (or 0 dB,
/// σ ``fallbackPriorSigma``, for a phone not yet learned), or the ranged distance.
/// - **One beacon position** (one beacon, or several at one spot): the phone is at that spot when its circle's 95% radius
///   is within ``ambiguitySpan`` (a range of zero, or a reading as strong as standing under the beacon); otherwise every
///   point of the circle fits and the scan is refused.
/// - **Beacons in a line** (two beacons always are): the circles of the two strongest cross at two mirror points (or touch
///   at one, or miss each other, leaving the point between them). The fit, with walls, from each: minima outside the
///   venue are dropped (a beacon on the venue's edge), and one fitting worse than the best by more than the 95% χ² (a
///   crossing behind a wall, whose loss the readings do not show) too. What is left is one answer when it lies within
///   ``ambiguitySpan`` of the best; the stated region then holds all of it. Otherwise the scan is refused.
/// - **The offset.** With RSSI, the answer is solved again with δ held at ±2σ of what is known of it; one that moves
///   farther than ``ambiguitySpan`` is refused (a new phone's two beacons always are).
extension OffsetFreeFit {
    /// Two answers that fit equally well and lie farther apart than this are an ambiguity; nearer ones are one answer with
    /// a wider region, m.
    package static let ambiguitySpan = 2.0

    func locateFew(_ obs: [BeaconObservation], ranges: [MeasuredRange], headings: [HeadingReading]) -> EstimateOutcome {
        let prior = learned.map { (mean: $0.mean, sigma: ($0.variance + drift).squareRoot()) }
            ?? (mean: 0, sigma: OffsetFreeFit.fallbackPriorSigma)
        // Each reading's circle: its beacon, its horizontal radius, and the radius it stays within with 95% confidence.
        var circles: [(centre: Point, radius: Double, outer: Double)] = []
        let radio = venue.radio
        for o in obs {
            let sigma = (radio.sigma * radio.sigma / Double(max(o.count, 1)) + radio.modelError * radio.modelError + prior.sigma * prior.sigma).squareRoot()
            circles.append((venue.beaconPositions[o.beacon], venue.horizontalRange(beacon: o.beacon, rssi: o.rssi - prior.mean),
                            venue.horizontalRange(beacon: o.beacon, rssi: o.rssi - prior.mean - 2 * sigma)))
        }
        for r in ranges {
            let dz = venue.beaconHeightOffset[r.beacon]
            func horizontal(_ d: Double) -> Double { max(d * d - dz * dz, 0).squareRoot() }
            circles.append((venue.beaconPositions[r.beacon], horizontal(r.distance), horizontal(r.distance + 2 * r.sigma)))
        }
        guard let first = circles.first else { return .noFix(.tooFewBeacons(heard: 0, needed: 1)) }
        var used = BeaconSet(obs.lazy.map(\.beacon))
        for r in ranges { used.insert(r.beacon) }
        let offset = obs.isEmpty ? nil as Double? : prior.mean

        // One beacon position: the phone is there, or anywhere on a circle.
        guard let other = circles.first(where: { $0.centre.distance(to: first.centre) > 0.1 }) else {
            let outer = circles.map(\.outer).min() ?? first.outer
            guard outer <= OffsetFreeFit.ambiguitySpan else {
                let which = circles.count == 1 ? "one beacon heard" : "\(circles.count) beacons heard, all at one spot"
                return .noFix(.ambiguous("\(which), about \(metres(first.radius)) away: every point of that circle fits equally well"))
            }
            // The 95% disc of radius `outer` around the beacon as an isotropic Gaussian's 95% ellipse.
            let v = outer * outer / OffsetFreeFit.chiSquare95
            let c = Covariance2(xx: v, xy: 0, yy: v)
            return .fix(Fix(position: venue.bounds.clamp(first.centre), uncertainty: c.drms, beaconsUsed: used, offset: offset, covariance: c))
        }

        // Beacons in a line: the fit from both sides of it.
        let d = other.centre.distance(to: first.centre)
        let u = (other.centre - first.centre) / d, normal = Point(-u.y, u.x)
        let along = (d * d + first.radius * first.radius - other.radius * other.radius) / (2 * d)
        let across = first.radius * first.radius - along * along
        let foot: Point, height: Double
        if across > 0 {
            foot = first.centre + u * along; height = across.squareRoot()
        } else {
            // The circles miss (or one holds the other): the point that splits the gap in the ratio of the radii.
            let gap = d - first.radius - other.radius
            let t = gap > 0 ? first.radius + gap * first.radius / (first.radius + other.radius) : min(max(along, 0), d)
            foot = first.centre + u * t; height = 0.5
        }
        let line = circles.count == 2 ? "two beacons heard" : "the \(circles.count) beacons heard lie in a line"
        loadTerms(obs, ranges: ranges, headings: headings, matchingFrom: foot)
        problem.offsetPrior = obs.isEmpty ? (0, OffsetFreeFit.fallbackPriorSigma) : prior
        var minima: [FixProblem.Solution] = []
        for side in [1.0, -1.0] {
            guard case .success(let s) = problem.solve(from: foot + normal * (side * height), offset: prior.mean) else { continue }
            if venue.bounds.contains(s.position, tolerance: 0.05) { minima.append(s) }
        }
        guard let best = minima.min(by: { $0.cost < $1.cost }) else {
            return .noFix(.degenerateGeometry("\(line): neither side of their line fits inside the venue"))
        }
        let threshold = OffsetFreeFit.chiSquare95 * residualScale
        let rivals = minima.filter { $0.cost - best.cost < threshold && $0.position.distance(to: best.position) > 1e-6 }
        if let far = rivals.first(where: { $0.position.distance(to: best.position) > OffsetFreeFit.ambiguitySpan }) {
            let (a, b) = (best.position, far.position)
            return .noFix(.ambiguous("\(line): the points either side of their line, \(place(a)) and "
                + "\(place(b)), \(metres(a.distance(to: b))) apart, fit equally well"))
        }
        // An offset not yet known moves the answer with it (every radius scales by 10^(Δδ / 10n)): an ambiguity when δ at
        // ±2σ puts it farther than the span away.
        if !obs.isEmpty {
            for k in [-2.0, 2.0] {
                problem.offsetPrior = (prior.mean + k * prior.sigma, 0.1)
                guard case .success(let s) = problem.solve(from: best.position, offset: prior.mean + k * prior.sigma) else { continue }
                let moved = venue.bounds.clamp(s.position)
                if moved.distance(to: best.position) > OffsetFreeFit.ambiguitySpan {
                    return .noFix(.ambiguous("\(line): the phone's offset is known to ±\(String(format: "%.1f", 2 * prior.sigma)) dB, and within that the "
                        + "answer moves from \(place(best.position)) to \(place(moved))"))
                }
            }
            problem.offsetPrior = prior
        }
        var c: Covariance2
        if let linear = best.covariance, linear.isCovarianceMatrix, linear.xx > 0, linear.yy > 0 {
            state.pointee.rivals.removeAll(keepingCapacity: true)
            for r in rivals { state.pointee.rivals.append((r.position, r.cost)) }
            c = options.statesRegion ? statedCovariance(best, linear: linear) : linear
        } else {
            // Circles that touch: the linearised covariance is singular across the line. The 95% disc of the span.
            let v = OffsetFreeFit.ambiguitySpan * OffsetFreeFit.ambiguitySpan / OffsetFreeFit.chiSquare95
            c = Covariance2(xx: v, xy: 0, yy: v)
            for r in rivals { c = c.adding(outer: r.position - best.position, over: OffsetFreeFit.chiSquare95) }
        }
        linearCovariance = best.covariance; linearFull = best.full
        let p = venue.bounds.clamp(best.position)
        return .fix(Fix(position: p, uncertainty: c.drms, beaconsUsed: used, offset: obs.isEmpty ? nil : best.offset, covariance: c))
    }

    private func metres(_ x: Double) -> String { String(format: "%.1f m", x) }
    private func place(_ p: Point) -> String { String(format: "(%.1f, %.1f)", p.x, p.y) }
}
