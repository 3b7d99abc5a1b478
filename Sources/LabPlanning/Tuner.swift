import Foundation
import LabCore
import LabEstimators

/// Moves a scenario's beacons along their mounts to lower the predicted error, then checks by simulation.
///
/// A beacon within 1 m of a wall or room edge slides along that segment, keeping its side and stand-off;
/// any other beacon may move within 4 m on the walkable area. Coordinate descent, in 0.5 m steps until no
/// move helps, on the figure the result is judged by: the predicted area P90 (the coverage quantile of the
/// per-point P90 = 1.517·sqrt(CRLB)), ties broken by the mean log of the per-point P90. The tuned layout is
/// then simulated with the library's one-scan fix; if its simulated area P90 is worse than the original's,
/// the original layout is kept and the result says so: tuning never makes the simulated P90 worse.
public struct Tuner: Sendable {
    public struct Options: Sendable {
        /// Move at most this many beacons (the ones whose moves gain most); nil = any.
        public var maxMoved: Int?
        public var step: Double = 0.5
        public var freeRadius: Double = 4
        public var pointSpacing: Double = 1.5
        public var draws: Int = 20
        public var seed: UInt64 = 1
        public var estimator: EstimatorKind = .fusion
        /// The share of the area whose P90 is reported (area P90 = this quantile of per-point P90s).
        public var coverage: Double = 0.9
        public init() {}
    }

    public struct Figures: Sendable, Codable {
        public var predicted: CoverageFigures
        public var simulated: CoverageFigures
    }

    public struct Move: Sendable, Codable {
        public var beacon: String
        public var from: Point
        public var to: Point
    }

    public struct Result: Sendable, Codable {
        public var before: Figures
        public var after: Figures
        public var moves: [Move]
        /// True when the tuned layout simulated worse and the original was kept.
        public var reverted: Bool
        /// When reverted: the figures and moves of the layout that was tried and rejected.
        public var rejected: Figures?
        public var rejectedMoves: [Move]
        public var beacons: [Beacon]
    }

    public let scenario: Scenario
    public let options: Options

    public init(scenario: Scenario, options: Options = Options()) { self.scenario = scenario; self.options = options }

    /// Positions beacon `b` may take, its current position first.
    func positions(for b: Beacon, segments: [Segment]) -> [Point] {
        var out = [b.position]
        let nearest = segments.min { $0.distance(to: b.position) < $1.distance(to: b.position) }
        if let seg = nearest, seg.distance(to: b.position) <= 1.0, seg.length > 1e-9 {
            let len = seg.length, u = (seg.b - seg.a) / len
            let normal = Point(-u.y, u.x)
            let offset = (b.position - seg.a).dot(normal)
            var t = 0.25
            while t < len {
                let p = seg.a + u * t + normal * offset
                if scenario.bounds.contains(p, tolerance: 0) && p.distance(to: b.position) > 1e-9 { out.append(p) }
                t += options.step
            }
        } else {
            let r = options.freeRadius
            var dy = -r
            while dy <= r {
                var dx = -r
                while dx <= r {
                    let p = b.position + Point(dx, dy)
                    if (dx != 0 || dy != 0) && dx * dx + dy * dy <= r * r && PlanningGeometry.isWalkable(p, scenario) { out.append(p) }
                    dx += options.step
                }
                dy += options.step
            }
        }
        return out
    }

    /// Why the search would need more than the planner's budget (``Planner/workProblem(_:pointSpacing:candidateSpacing:mount:draws:)``:
    /// test points, simulated scans per point, and pairs of test point and candidate position), or nil.
    public func workProblem() -> String? {
        if let problem = Planner.workProblem(scenario, pointSpacing: options.pointSpacing, draws: options.draws) { return problem }
        let points = PlanningGeometry.walkablePoints(scenario, spacing: options.pointSpacing).count
        let candidates = positionsPerBeacon(segments: PlanningGeometry.mountSegments(scenario)).reduce(0) { $0 + $1.count }
        if Double(points) * Double(candidates) > Double(Planner.maximumPairs) {
            return "\(points) test points × \(candidates) positions the beacons may move to is more than the budget of \(Planner.maximumPairs) pairs (a smaller venue, or fewer beacons to move)"
        }
        return nil
    }

    public func run(progress: ((String) -> Void)? = nil) throws -> Result {
        let points = PlanningGeometry.walkablePoints(scenario, spacing: options.pointSpacing)
        let segments = PlanningGeometry.mountSegments(scenario)
        let options = positionsPerBeacon(segments: segments)
        let flat = options.flatMap { $0 }
        let offsets = options.reduce(into: [0]) { $0.append($0.last! + $1.count) }
        progress?("predicting \(flat.count) positions at \(points.count) points")
        // Each beacon keeps its own mounting height and power wherever it moves.
        let owners = options.enumerated().flatMap { i, list in list.map { _ in scenario.beacons[i] } }
        let model = CoverageModel(scenario: scenario, points: points, candidates: flat,
                                  heights: owners.map(\.height), p0s: owners.map(\.p0))
        var layout = scenario.beacons.indices.map { offsets[$0] }  // each beacon at its current position
        let coverage = self.options.coverage
        /// (area P90, mean log P90): lower is better, compared in that order.
        func objective(_ acc: CoverageModel.Accumulator) -> (Double, Double) {
            let p = acc.p90()
            let area = CoverageFigures(perPointP90: p, target: .infinity, coverage: coverage).areaQuantile
            return (min(area, 1e6), p.map { log(min($0, 1e6)) }.reduce(0, +) / Double(max(p.count, 1)))
        }
        /// How much `b` improves on `a`: the area P90 first, the mean log only when that is unchanged.
        /// Positive means better.
        func gain(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
            if abs(a.0 - b.0) > 1e-9 { return (a.0 - b.0) * 1000 }
            return a.1 - b.1
        }
        /// The best position for `slot` with every other beacon where it is now, and its gain.
        func bestMove(_ slot: Int) -> (to: Int, gain: Double) {
            var acc = CoverageModel.Accumulator(count: points.count)
            for (k, c) in layout.enumerated() where k != slot { acc.add(candidate: c, model: model) }
            var here = acc; here.add(candidate: layout[slot], model: model)
            let base = objective(here)
            var best = (layout[slot], 0.0)
            for c in offsets[slot]..<offsets[slot + 1] where c != layout[slot] {
                var trial = acc; trial.add(candidate: c, model: model)
                let g = gain(base, objective(trial))
                if g > best.1 + 1e-9 { best = (c, g) }
            }
            return best
        }
        // Which beacons may move: all, or the `maxMoved` whose best single move gains most.
        var allowed = Array(layout.indices)
        if let limit = self.options.maxMoved, limit < layout.count {
            allowed = layout.indices.map { ($0, bestMove($0).gain) }.filter { $0.1 > 0 }
                .sorted { $0.1 > $1.1 }.prefix(limit).map(\.0).sorted()
        }
        // Coordinate descent (Gauss–Seidel): each move is applied before the next is evaluated, so the
        // predicted figure never gets worse.
        for pass in 0..<6 {
            var movedThisPass = 0
            for slot in allowed {
                let m = bestMove(slot)
                if m.to != layout[slot] { layout[slot] = m.to; movedThisPass += 1 }
            }
            progress?("pass \(pass + 1): moved \(movedThisPass) beacons")
            if movedThisPass == 0 { break }
        }

        var tuned = scenario.beacons
        for (i, c) in layout.enumerated() { tuned[i].position = flat[c] }
        let sim = LayoutSimulation(scenario: scenario, points: points, estimator: self.options.estimator,
                                   draws: self.options.draws, seed: self.options.seed)
        progress?("simulating the original and the tuned layout")
        let target = Double.infinity
        func figures(_ beacons: [Beacon], _ idx: [Int]) throws -> Figures {
            Figures(predicted: CoverageFigures(perPointP90: model.predictedP90(layout: idx), target: target, coverage: self.options.coverage),
                    simulated: CoverageFigures(perPointP90: try sim.perPointP90(beacons: beacons), target: target, coverage: self.options.coverage))
        }
        let before = try figures(scenario.beacons, scenario.beacons.indices.map { offsets[$0] })
        let after = try figures(tuned, layout)
        let moves = scenario.beacons.indices.compactMap { i -> Move? in
            tuned[i].position == scenario.beacons[i].position ? nil : Move(beacon: scenario.beacons[i].id, from: scenario.beacons[i].position, to: tuned[i].position)
        }
        if after.simulated.areaQuantile > before.simulated.areaQuantile {
            return Result(before: before, after: before, moves: [], reverted: true, rejected: after, rejectedMoves: moves,
                          beacons: scenario.beacons)
        }
        return Result(before: before, after: after, moves: moves, reverted: false, rejected: nil, rejectedMoves: [], beacons: tuned)
    }

    private func positionsPerBeacon(segments: [Segment]) -> [[Point]] {
        scenario.beacons.map { positions(for: $0, segments: segments) }
    }
}
