import Foundation
import LabCore

/// The path a walker follows: the walk's waypoints, with the corners where the walker does not stop rounded
/// (``Walk/turnDistance``): the turn starts T = min(turnDistance, half of either leg) before the waypoint and
/// ends T after it, along a quadratic Bézier arc tangent to both legs (it stays inside the triangle the two
/// legs make with the chord, so it cuts the corner by at most T).
public struct WalkPath: Sendable {
    /// The path's vertices; `waypoint` is the index of the walk's waypoint a vertex is, nil for arc points.
    public let points: [Point]
    public let waypoints: [Int?]
    /// Arc length from the start to each vertex, metres.
    public let arc: [Double]

    public init(_ walk: Walk) {
        var points: [Point] = [], waypoints: [Int?] = []
        let w = walk.waypoints
        for (j, b) in w.enumerated() {
            guard walk.turnDistance > 0, j > 0, j + 1 < w.count, !walk.stops(at: j) else {
                points.append(b); waypoints.append(j); continue
            }
            let a = w[j - 1], c = w[j + 1]
            let l1 = a.distance(to: b), l2 = b.distance(to: c)
            let cut = min(walk.turnDistance, l1 / 2, l2 / 2)
            guard cut > 0 else { points.append(b); waypoints.append(j); continue }
            let p1 = b + (a - b) * (cut / l1), p2 = b + (c - b) * (cut / l2)
            // Turn angle between the legs decides how finely the arc is drawn: a chord per 10° at least two.
            let d1 = b - a, d2 = c - b
            let cosTurn = max(-1, min(1, (d1.x * d2.x + d1.y * d2.y) / (l1 * l2)))
            let pieces = max(2, Int((acos(cosTurn) * 180 / .pi / 10).rounded(.up)))
            for k in 0...pieces {
                let u = Double(k) / Double(pieces)
                let q = p1 * ((1 - u) * (1 - u)) + b * (2 * u * (1 - u)) + p2 * (u * u)
                points.append(q); waypoints.append(nil)
            }
        }
        var arc = [0.0]
        for k in points.indices.dropFirst() { arc.append(arc[k - 1] + points[k - 1].distance(to: points[k])) }
        self.points = points; self.waypoints = waypoints; self.arc = arc
    }

    public var length: Double { arc.last ?? 0 }

    /// The point at arc length `s` (clamped to the path), searching from vertex `hint` on (a cursor that
    /// only moves forward makes a whole walk linear).
    public func point(at s: Double, hint: inout Int) -> Point {
        guard points.count > 1 else { return points.first ?? Point(0, 0) }
        if hint < 1 || hint >= points.count || arc[hint - 1] > s { hint = 1 }
        while hint < points.count - 1 && arc[hint] < s { hint += 1 }
        let a = points[hint - 1], b = points[hint]
        let len = arc[hint] - arc[hint - 1]
        guard len > 0 else { return b }
        return a + (b - a) * (max(0, min(len, s - arc[hint - 1])) / len)
    }
}

/// The walker's speed: an Ornstein–Uhlenbeck process about the walk's mean speed (standard deviation
/// ``Walk/speedSigma``, correlation time ``Walk/speedCorrelationTime``), kept within ± ``Walk/speedExcursion``
/// of the mean, sampled once per scan window. Constant when the walk's `speedSigma` is 0 (then it draws nothing).
struct WalkSpeed {
    let mean: Double, sigma: Double, rho: Double, bounds: ClosedRange<Double>
    let rng: RandomSource?
    private(set) var current: Double

    init(walk: Walk, window: Double, seed: UInt64) {
        mean = walk.speed; sigma = walk.speedSigma; bounds = walk.speedBounds
        rho = exp(-window / Walk.speedCorrelationTime)
        if sigma > 0 {
            let rng = RandomSource(seed: seed, stream: RandomSource.stream("motion:" + walk.name))
            self.rng = rng
            current = 0
            current = clamp(mean + rng.gaussian(sigma: sigma))
        } else {
            rng = nil; current = mean
        }
    }

    private func clamp(_ v: Double) -> Double {
        min(bounds.upperBound, max(bounds.lowerBound, v))
    }

    /// The speed for the next window.
    mutating func next() -> Double {
        guard let rng else { return mean }
        current = clamp(mean + rho * (current - mean) + (1 - rho * rho).squareRoot() * rng.gaussian(sigma: sigma))
        return current
    }
}

/// The phone's step detector along a walk (``PDRModel``): a step each time the walker has covered one true
/// step length (speed / cadence at the step's start) of path; each reported with its length and compass heading, errors drawn
/// from a stream of its own ("pdr:WALK"), so the readings of a walk do not change when PDR is switched on.
struct Pedometer {
    let model: PDRModel
    let path: WalkPath
    let rng: RandomSource
    let scale: Double
    var bias: Double
    /// Arc length where the current step began.
    var stepStart: Double = 0
    var cursor = 1
    var lastStepTime: Double
    /// The true length of the step in progress, fixed when it began (nil: none begun yet).
    var stepLength: Double?

    init(model: PDRModel, path: WalkPath, walk: String, seed: UInt64, startTime: Double) {
        self.model = model; self.path = path
        rng = RandomSource(seed: seed, stream: RandomSource.stream("pdr:" + walk))
        scale = model.scaleSigma > 0 ? rng.gaussian(sigma: model.scaleSigma) : 0
        bias = model.biasSigma > 0 ? rng.gaussian(sigma: model.biasSigma) : 0
        lastStepTime = startTime
    }

    /// The walker went from arc length `from` (at time `t0`) to `to` (at `t1`) at `speed`: the steps completed.
    mutating func walk(from: Double, to: Double, t0: Double, t1: Double, speed: Double, into out: inout [StepReading]) {
        guard to > from else { return }
        while stepStart + (stepLength ?? speed / model.cadence) <= to {
            let end = stepStart + (stepLength ?? speed / model.cadence)
            let t = t0 + (t1 - t0) * (end - from) / (to - from)
            var hint = cursor
            let a = path.point(at: stepStart, hint: &hint)
            let b = path.point(at: end, hint: &hint)
            cursor = hint
            if model.biasDrift > 0 { bias += rng.gaussian(sigma: model.biasDrift * max(0, t - lastStepTime).squareRoot()) }
            let trueLength = a.distance(to: b)
            // Within what a step detector reports (WorkBudget keeps true steps well under it).
            let length = min(StepReading.longest, max(0, trueLength * (1 + scale) + (model.lengthSigma > 0 ? rng.gaussian(sigma: model.lengthSigma) : 0)))
            let heading = Bearing.normalise(Bearing.degrees(from: a, to: b) + bias
                                            + (model.headingSigma > 0 ? rng.gaussian(sigma: model.headingSigma) : 0))
            out.append(StepReading(t: t, length: length, heading: heading, lengthAccuracy: model.lengthSigma,
                                   headingAccuracy: model.headingSigma))
            lastStepTime = t
            stepStart = end
            stepLength = speed / model.cadence
        }
        if stepLength == nil { stepLength = speed / model.cadence }
    }

    /// The walker stood still: a step in progress does not carry over the stop.
    mutating func stand(at s: Double) { stepStart = s; stepLength = nil }
}
