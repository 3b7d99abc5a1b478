import Foundation
import LabCore
import LabSimulation
import LabEstimators

/// How often an estimator's stated uncertainty holds the truth: the share of fixes whose 95% ellipse (from the
/// fix's covariance, χ²₂ quantile) contains the true position. An honest ellipse holds it in about 95% of fixes;
/// fewer means the estimator is overconfident, more that it is timid.
///
/// One row per scenario, condition and shadowing correlation; the epochs are the tournament's (walks and the
/// static grid, each walk and grid pass a new phone), driven as the tournament drives them (``Tournament/run(_:pass:observations:)``:
/// a tracker tracks each walk and starts a new track on every static point), so the learned device offset, and a
/// tracker's motion, are part of what is judged.
public struct CoverageRow: Sendable, Codable, Hashable {
    public var scenario: String
    public var condition: SimulationCondition
    /// Gudmundson decorrelation distance of the shadowing, metres; nil = independent draws.
    public var correlationDistance: Double?
    /// Fixes that stated an ellipse.
    public var fixes: Int
    /// Of them, the fixes whose ellipse contains the truth.
    public var inside: Int
    /// Of ``fixes``, those on walks (the rest are static points, each a new track).
    public var walkFixes: Int
    /// Of ``inside``, those on walks.
    public var walkInside: Int
    /// Of the walk fixes outside their ellipse (``walkFixes`` − ``walkInside``), those with a wall between the fix and
    /// the truth: a track on the wrong side of a wall (a wrong mode) rather than a covariance a little too small.
    public var walkMissesAcrossWall: Int
    /// Fixes without a stated ellipse (degenerate geometry).
    public var withoutEllipse: Int
    /// Median semi-major axis of the stated ellipses, metres.
    public var medianSemiMajor: Double
    /// The factor the covariances would need to be multiplied by for exactly 95% coverage: the 95th
    /// percentile of the squared Mahalanobis distances over χ²₂(0.95). Above 1: overconfident.
    public var neededScale: Double

    /// inside / fixes.
    public var coverage: Double { fixes > 0 ? Double(inside) / Double(fixes) : .nan }
    /// walkInside / walkFixes: a tracker's own ellipses (on a static point, a new track, it states its first scan's posterior).
    public var walkCoverage: Double { walkFixes > 0 ? Double(walkInside) / Double(walkFixes) : .nan }
    /// walkMissesAcrossWall / (walkFixes − walkInside).
    public var walkMissesAcrossWallShare: Double {
        walkFixes > walkInside ? Double(walkMissesAcrossWall) / Double(walkFixes - walkInside) : .nan
    }
}

public enum UncertaintyCoverage {
    /// The confidence the ellipses are stated at.
    public static let level = OffsetFreeFit.statedConfidence
    /// χ² with 2 degrees of freedom at ``level``: 5.991.
    public static let chiSquare = OffsetFreeFit.chiSquare95

    /// The correlation distance "with correlation" uses when the scenario sets none, metres: a few metres is what
    /// indoor shadowing measurements report (Gudmundson's model fitted indoors gives 1–5 m).
    public static let defaultCorrelationDistance = 3.0

    /// Coverage of `estimator` on `scenario` in `condition`, with the shadowing correlation replaced by
    /// `correlationDistance` (nil = independent draws), over `seeds`. Seeds run on all cores.
    public static func measure(scenario: Scenario, condition: SimulationCondition, correlationDistance: Double?,
                               seeds: [UInt64], estimator: EstimatorKind = .shipped) throws -> CoverageRow {
        var changed = scenario
        changed.radio.correlationDistance = correlationDistance
        let s = changed
        let tournament = Tournament(scenarios: [s], seeds: seeds, estimators: [estimator], conditions: [condition])
        let slots = ResultSlots<(inside: Int, fixes: Int, walkInside: Int, walkFixes: Int, acrossWall: Int, without: Int, axes: [Double], d2: [Double])>(count: seeds.count)
        DispatchQueue.concurrentPerform(iterations: seeds.count) { j in slots.fill(j) {
            let sim = try Simulator(scenario: s, condition: condition)
            let venue = Tournament.venue(simulator: sim, seed: seeds[j], survey: estimator.inputs.uses.contains(.survey))
            let est = estimator.make(venue: venue)
            let judge = EpochJudge(venue: venue)
            var inside = 0, fixes = 0, walkInside = 0, walkFixes = 0, acrossWall = 0, without = 0
            var axes: [Double] = [], d2s: [Double] = []
            let epochs = tournament.epochs(simulator: sim, seed: seeds[j])
            for range in Tournament.passes(epochs) {
                let pass = epochs[range], onWalk = !Tournament.isStatic(pass)
                let outcomes = Tournament.run(est, pass: pass, observations: pass.map { judge.observation(for: $0) })
                for (outcome, e) in zip(outcomes, pass) {
                    guard case .fix(let fix) = outcome else { continue }
                    guard let c = fix.covariance, let d2 = c.mahalanobisSquared(fix.position - e.truth),
                          let ellipse = c.ellipse(chiSquare: chiSquare) else { without += 1; continue }
                    fixes += 1
                    if d2 <= chiSquare { inside += 1 }
                    if onWalk {
                        walkFixes += 1
                        if d2 <= chiSquare { walkInside += 1 } else if venue.walls.crosses(from: fix.position, to: e.truth) { acrossWall += 1 }
                    }
                    axes.append(ellipse.semiMajor); d2s.append(d2)
                }
            }
            return [(inside, fixes, walkInside, walkFixes, acrossWall, without, axes, d2s)]
        } }
        let all = try slots.values().flatMap { $0 }
        return CoverageRow(scenario: scenario.name, condition: condition, correlationDistance: correlationDistance,
                           fixes: all.reduce(0) { $0 + $1.fixes }, inside: all.reduce(0) { $0 + $1.inside },
                           walkFixes: all.reduce(0) { $0 + $1.walkFixes }, walkInside: all.reduce(0) { $0 + $1.walkInside },
                           walkMissesAcrossWall: all.reduce(0) { $0 + $1.acrossWall },
                           withoutEllipse: all.reduce(0) { $0 + $1.without },
                           medianSemiMajor: SortedSample(all.flatMap(\.axes)).quantile(0.5),
                           neededScale: SortedSample(all.flatMap(\.d2)).quantile(level) / chiSquare)
    }
}
