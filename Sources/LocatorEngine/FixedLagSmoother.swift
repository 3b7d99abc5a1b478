import Foundation
import LabCore

/// Kitagawa's fixed-lag smoother over a particle filter's genealogy, for offline replay where the future is known.
///
/// The filter records each step (``record(_:)``): its particles as reported, and, when they were resampled after it,
/// which particle of that step each particle of the next step copies (``noteResampled(chosen:)``). Smoothing then
/// makes each step's report from its own particles, each weighed by the weight its descendants carry `lag` steps later
/// (or at the track's last step, if sooner). A particle whose line died out (dropped at a wall, or not drawn at a
/// resampling) gets no weight, so the smoothed cloud is the part of the filter's cloud that the later scans confirm.
///
/// Memory: six numbers per particle per step (48 KB per scan with 1,000 particles).
struct FixedLagSmoother {
    /// One recorded step of the filter.
    struct Step {
        /// The particles as reported.
        let particles: ParticleCloud.Snapshot
        /// When the particles were resampled after this step: the particle of this step each particle of the next
        /// step copies (−1: none, for a particle drawn afresh).
        var parents: [Int32]?
        /// Drawn afresh at this step: no lineage to the step before.
        let fresh: Bool
        /// The filter kept this step's report in sight of an earlier one (false when the track is new).
        let hadReport: Bool
    }

    /// Particles per step.
    let count: Int
    /// One entry per filter step; nil for a step without a fix.
    private(set) var steps: [Step?] = []

    init(count: Int, capacity: Int) {
        self.count = count
        steps.reserveCapacity(capacity)
    }

    mutating func record(_ step: Step?) { steps.append(step) }

    /// The last recorded step's particles were resampled into the next step's by `chosen`.
    mutating func noteResampled(chosen: UnsafePointer<Int>) {
        steps[steps.count - 1]!.parents = (0..<count).map { Int32(chosen[$0]) }
    }

    /// Gives each particle `drawn` afresh after the last recorded step an ancestor in that step's cloud: the particle j
    /// maximising w_j·exp(−|x_i − x_j|²/(2s²)), s = ``graftSpread`` — the lost cloud's particles nearest the fresh one,
    /// weighed by their weights. Both stand at the same scan (the fresh particles are drawn after its report, before the
    /// next prediction), so this is a proximity kernel in the spirit of forward-filtering backward-simulation's
    /// backward kernel (Godsill, Doucet & West 2004), taken at its mode. Those particles then carry the later scans'
    /// weight back to the steps before the reset; with no ancestor (−1, as a new track's particles have), those steps
    /// were smoothed by the lost lineages alone. (Every weight is finite and they sum to 1 here: a reset follows a
    /// normalised step, so some j always qualifies.)
    mutating func graft(_ drawn: [Int], from cloud: ParticleCloud) {
        let v = steps.count - 1
        guard v >= 0, let snapshot = steps[v], var parents = snapshot.parents else { return }
        let n = count
        let recorded = snapshot.particles
        let scale = 1 / (2 * Self.graftSpread * Self.graftSpread)
        let logWeights = (0..<n).map { j in recorded.weight(j) > 0 ? log(recorded.weight(j)) : -Double.infinity }
        for i in drawn {
            var best = -1, bestScore = Double.infinity
            for j in 0..<n where logWeights[j] > -.infinity {
                let dx = cloud.x[i] - recorded.x(j), dy = cloud.y[i] - recorded.y(j)
                let score = (dx * dx + dy * dy) * scale - logWeights[j]
                if score < bestScore { bestScore = score; best = j }
            }
            parents[i] = Int32(best)
        }
        steps[v]!.parents = parents
    }

    /// The proximity kernel's spread in ``graft(_:from:)``, metres: about a walker's move in one scan.
    static let graftSpread = 1.0

    /// The smoothed outcomes, given the filter's `outcomes` (one per recorded step): each step's position, velocity and
    /// offset from its particles weighed by their descendants `lag` steps on, reported by `report` (the filter's rule,
    /// in sight of the previous smoothed report wherever the filter kept its own in sight of its previous one). A step
    /// without a fix (an invalid scan, which leaves the particles as they were) is stepped over; a track drawn afresh
    /// ends the lineages. Steps without a fix stay without one, and a track's last step keeps the filter's fix.
    ///
    /// The smoothed fix states the filter's covariance at that step, not the smoothed cloud's: within a lag of ten
    /// scans the lineages coalesce onto a few ancestors (path degeneracy), so the weighted cloud is far narrower than
    /// the smoothed estimate's error, while the filter's covariance, which uses fewer scans and carries the allowance
    /// for correlated shadowing (``ShadowingMemory``), is on the safe side of it (docs/tracking.md, "The smoother's
    /// ellipse").
    func smoothed(_ outcomes: [EstimateOutcome], lag: Int,
                  report: (ParticleCloud.View, Point?) -> (position: Point, velocity: Point, offset: Double)) -> [EstimateOutcome] {
        guard steps.count == outcomes.count else { return outcomes }
        let n = count
        var out = outcomes
        var weights = [Double](repeating: 0, count: n), line = [Int](repeating: 0, count: n)
        var previous: Point?
        for t in steps.indices {
            guard let here = steps[t], var f = outcomes[t].fix else { continue }
            if !here.hadReport { previous = nil }
            // The last step within the lag that the same lineages reach (over steps without a fix, not past a
            // fresh draw).
            var last = t, u = t
            while u < steps.count - 1, u - t < lag {
                u += 1
                guard let next = steps[u] else { continue }
                if next.fresh { break }
                last = u
            }
            guard last > t else { previous = f.position; continue }   // nothing later weighs it: the filter's fix
            for i in 0..<n { line[i] = i; weights[i] = 0 }
            for v in stride(from: last - 1, through: t, by: -1) {
                guard let parents = steps[v]?.parents else { continue }
                for i in 0..<n where line[i] >= 0 { line[i] = Int(parents[line[i]]) }   // −1: no ancestor there
            }
            guard let future = steps[last]?.particles else { previous = f.position; continue }
            var total = 0.0
            for i in 0..<n where line[i] >= 0 { weights[line[i]] += future.weight(i); total += future.weight(i) }
            guard total > 0 else { previous = f.position; continue }
            for i in 0..<n { weights[i] /= total }
            let summary = weights.withUnsafeBufferPointer { w in
                here.particles.withView(weights: w.baseAddress!) { report($0, previous) }
            }
            previous = summary.position
            f.position = summary.position   // the covariance stays the filter's (see above)
            f.velocity = summary.velocity; f.offset = summary.offset
            out[t] = .fix(f)
        }
        return out
    }
}
