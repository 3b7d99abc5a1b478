import Foundation
import LabCore
import LabEstimators

/// "How many beacons, and where, to reach P90 ≤ target on a share of the walkable area?"
///
/// Searches with the bound (fast), confirms with simulation (true):
/// 1. for n = 3, 4, …: grow the layout greedily by the candidate that covers the most points
///    (predicted P90 = 1.517·sqrt(CRLB) ≤ target; ties: lower mean log error), then improve it by
///    single swaps until none helps;
/// 2. from the first n whose prediction meets the target, simulate layouts with the library's one-scan fix
///    (`draws` scan windows per point) at n, n+1, n+2, n+4, … until one meets the target, then bisect
///    between the last count that failed and the first that met it; the answer is a count that meets the
///    target in simulation while the count one lower failed (in simulation, or already by the bound);
/// 3. if no n up to `maxBeacons` (or the candidate count) does, report the best layout found.
///
/// Before any of it, a target that even a beacon at every candidate place cannot meet by the bound is reported at once
/// (``Result/outOfReach``).
public struct Planner: Sendable {
    public struct Options: Sendable {
        public var targetP90: Double
        public var coverage: Double = 0.9
        public var mount: Mount = .walls
        public var pointSpacing: Double = 1.5
        public var candidateSpacing: Double = 2.0
        public var maxBeacons: Int = 40
        public var draws: Int = 20
        public var seed: UInt64 = 1
        public var estimator: EstimatorKind = .fusion
        public var beaconHeight: Double? = nil
        public init(targetP90: Double) { self.targetP90 = targetP90 }
    }

    /// One beacon count tried.
    public struct Step: Sendable, Codable {
        public var count: Int
        public var positions: [Point]
        public var predicted: CoverageFigures
        /// nil when the prediction already failed (no need to simulate).
        public var simulated: CoverageFigures?
        public var meetsTarget: Bool { simulated.map { $0.areaQuantile <= target } ?? false }
        public var target: Double
    }

    public struct Result: Sendable, Codable {
        public var met: Bool
        /// The answer when met; otherwise the best layout found.
        public var chosen: Step
        public var steps: [Step]
        public var points: Int
        public var candidates: Int
        public var walkableArea: Double
        public var chosenPerPointP90: [Double]
        /// Set when the bound rules the target out before any search: the prediction with a beacon at every candidate
        /// place (more beacons only add information, so no layout predicts better). Nothing is searched or simulated then.
        public var outOfReach: CoverageFigures? = nil
    }

    public let scenario: Scenario
    public let options: Options
    public let model: CoverageModel

    /// Test points a plan or a tune may evaluate (each is simulated `draws` times per layout tried).
    public static let maximumPoints = 50_000
    /// Test points × candidate places: the bound's model keeps three numbers per pair (10⁷ pairs is 240 MB).
    public static let maximumPairs = 10_000_000
    /// The most simulated scans per test point (`--draws`): P90 from 20 is already a fair estimate.
    public static let maximumDraws = 1000

    /// Why `pointSpacing` (and `candidateSpacing`, when given) ask for more work than the planner takes, or nil:
    /// checked before anything is allocated (a spacing of 10⁻⁴ m would ask for 10¹⁰ points).
    public static func workProblem(_ scenario: Scenario, pointSpacing: Double, candidateSpacing: Double? = nil, mount: Mount = .walls,
                                   draws: Int = 1) -> String? {
        let w = scenario.bounds.width, d = scenario.bounds.height
        if draws > maximumDraws { return "--draws \(draws) is more than the budget of \(maximumDraws) simulated scans per point" }
        func grid(_ spacing: Double) -> Double { (w / spacing).rounded(.up) * (d / spacing).rounded(.up) }
        for (name, spacing) in [("--point-spacing", pointSpacing), ("--candidate-spacing", candidateSpacing)] {
            if let spacing, !(spacing >= WorkBudget.minimumTestGrid && spacing.isFinite) {
                return "\(name) must be at least \(Format.number(WorkBudget.minimumTestGrid)) m, found \(Format.number(spacing))"
            }
        }
        let points = grid(pointSpacing)
        if points > Double(maximumPoints) {
            return "--point-spacing \(Format.number(pointSpacing)) m over \(Format.number(w)) × \(Format.number(d)) m is up to \(Format.number(points)) test points; the budget is \(maximumPoints) (use a coarser spacing)"
        }
        let walkable = PlanningGeometry.walkablePoints(scenario, spacing: pointSpacing).count
        if walkable == 0 {
            return "no walkable test point at --point-spacing \(Format.number(pointSpacing)) m: the rooms are smaller than the spacing (use a finer spacing)"
        }
        guard let candidateSpacing else { return nil }
        // Candidates along walls are far fewer than the grid's; they are counted exactly where the grid bound allows it.
        guard grid(candidateSpacing) <= Double(maximumPairs) else {
            return "--candidate-spacing \(Format.number(candidateSpacing)) m over \(Format.number(w)) × \(Format.number(d)) m is too fine (use a coarser spacing)"
        }
        let pairs = Double(walkable) * Double(PlanningGeometry.candidates(scenario, mount: mount, spacing: candidateSpacing).count)
        if pairs > Double(maximumPairs) {
            return "\(Format.number(pairs)) pairs of test points (--point-spacing \(Format.number(pointSpacing)) m) and candidate places (--candidate-spacing \(Format.number(candidateSpacing)) m); the budget is \(maximumPairs) (use a coarser spacing)"
        }
        return nil
    }

    public init(scenario: Scenario, options: Options) {
        self.scenario = scenario
        self.options = options
        let points = PlanningGeometry.walkablePoints(scenario, spacing: options.pointSpacing)
        let candidates = PlanningGeometry.candidates(scenario, mount: options.mount, spacing: options.candidateSpacing)
        model = CoverageModel(scenario: scenario, points: points, candidates: candidates, candidateHeight: options.beaconHeight)
    }

    /// The best layout of `count` beacons the bound-based search finds (candidate indices).
    public func layout(count: Int, startingFrom start: [Int] = []) -> [Int] {
        var layout = start
        var acc = CoverageModel.Accumulator(count: model.points.count, target: options.targetP90)
        for c in layout { acc.add(candidate: c, model: model) }
        while layout.count < count, let best = bestAddition(to: layout, acc) {
            layout.append(best)
            acc.add(candidate: best, model: model)
        }
        return improveBySwaps(layout)
    }

    func score(_ layout: [Int]) -> (Int, Double) {
        let p = model.predictedP90(layout: layout)
        return (p.filter { $0 <= options.targetP90 }.count, p.map { log(min($0, 1e6)) }.reduce(0, +) / Double(max(p.count, 1)))
    }

    private func better(_ a: (Int, Double), than b: (Int, Double)) -> Bool { a.0 > b.0 || (a.0 == b.0 && a.1 < b.1 - 1e-12) }

    private func bestAddition(to layout: [Int], _ acc: CoverageModel.Accumulator) -> Int? {
        var best: (Int, (Int, Double))?
        for c in model.candidates.indices where !layout.contains(c) {
            let s = acc.score(adding: c, model: model)
            if best == nil || better((s.covered, s.meanLog), than: best!.1) { best = (c, (s.covered, s.meanLog)) }
        }
        return best?.0
    }

    private func improveBySwaps(_ start: [Int]) -> [Int] {
        var layout = start
        var current = score(layout)
        for _ in 0..<3 {
            var improved = false
            for slot in layout.indices {
                var acc = CoverageModel.Accumulator(count: model.points.count, target: options.targetP90)
                for (k, c) in layout.enumerated() where k != slot { acc.add(candidate: c, model: model) }
                var bestC = layout[slot], bestS = current
                for c in model.candidates.indices where !layout.contains(c) {
                    let s = acc.score(adding: c, model: model)
                    if better((s.covered, s.meanLog), than: bestS) { bestC = c; bestS = (s.covered, s.meanLog) }
                }
                if bestC != layout[slot] { layout[slot] = bestC; current = bestS; improved = true }
            }
            if !improved { break }
        }
        return layout
    }

    /// Beacons for a layout, named P1, P2, … (with the scenario's first iBeacon UUID when it has one).
    public func beacons(for layout: [Int]) -> [Beacon] {
        let uuid = scenario.beacons.first?.uuid
        return layout.enumerated().map { k, c in
            Beacon(id: "P\(k + 1)", uuid: uuid, major: uuid == nil ? nil : 100, minor: uuid == nil ? nil : k + 1,
                   position: model.candidates[c], height: options.beaconHeight)
        }
    }

    /// Runs the search; `progress(count, message)` reports each beacon count tried.
    public func run(progress: ((Int, String) -> Void)? = nil) throws -> Result {
        let sim = LayoutSimulation(scenario: scenario, points: model.points, estimator: options.estimator,
                                   draws: options.draws, seed: options.seed)
        let limit = min(options.maxBeacons, model.candidates.count)
        var layouts: [Int: [Int]] = [:]
        var steps: [Int: Step] = [:]
        var perPoint: [Int: [Double]] = [:]
        func layout(_ n: Int) -> [Int] {
            if let l = layouts[n] { return l }
            let l = self.layout(count: n, startingFrom: n > 3 ? Array(layout(n - 1).prefix(n - 1)) : [])
            layouts[n] = l
            return l
        }
        func predict(_ n: Int) -> Step {
            if let st = steps[n] { return st }
            let l = layout(n)
            let p = model.predictedP90(layout: l)
            let st = Step(count: n, positions: l.map { model.candidates[$0] },
                          predicted: CoverageFigures(perPointP90: p, target: options.targetP90, coverage: options.coverage),
                          simulated: nil, target: options.targetP90)
            steps[n] = st
            perPoint[n] = p
            progress?(n, "predicted area P90 \(Format.metres(st.predicted.areaQuantile)) m")
            return st
        }
        func simulate(_ n: Int) throws -> Bool {
            var st = predict(n)
            if let s = st.simulated { return s.areaQuantile <= options.targetP90 }
            progress?(n, "simulating \(options.draws) draws at \(model.points.count) points")
            let p = try sim.perPointP90(beacons: beacons(for: layout(n)))
            st.simulated = CoverageFigures(perPointP90: p, target: options.targetP90, coverage: options.coverage)
            steps[n] = st
            perPoint[n] = p
            return st.meetsTarget
        }

        let area = scenario.rooms.isEmpty ? scenario.bounds.area : scenario.rooms.map(\.polygon.area).reduce(0, +)
        let empty = Step(count: 0, positions: [], predicted: CoverageFigures(perPointP90: [], target: options.targetP90, coverage: options.coverage),
                         simulated: nil, target: options.targetP90)
        // 0. Out of reach at once: a beacon at every candidate place is the most information any layout gives.
        let everywhere = CoverageFigures(perPointP90: model.predictedP90(layout: Array(model.candidates.indices)),
                                         target: options.targetP90, coverage: options.coverage)
        if everywhere.areaQuantile > options.targetP90 {
            progress?(model.candidates.count, "predicted area P90 \(Format.metres(everywhere.areaQuantile)) m with a beacon at every candidate place: out of reach")
            var result = Result(met: false, chosen: empty, steps: [], points: model.points.count, candidates: model.candidates.count,
                                walkableArea: area, chosenPerPointP90: [])
            result.outOfReach = everywhere
            return result
        }

        // 1. The bound alone, until it says the target is within reach.
        var n = 3
        while n <= limit && predict(n).predicted.areaQuantile > options.targetP90 { n += 1 }
        // 2. Gallop in simulation, then bisect between the last failure and the first success.
        var answer: Int?
        if n <= limit {
            var failed = n - 1  // failed by the bound (or below the minimum of 3)
            var step = 1
            var probe = n
            while probe <= limit {
                if try simulate(probe) { answer = probe; break }
                failed = probe
                probe = probe == limit ? limit + 1 : min(probe + step, limit)
                step *= 2
            }
            if var hi = answer {
                var lo = failed
                while hi - lo > 1 {
                    let mid = (lo + hi) / 2
                    if try simulate(mid) { hi = mid } else { lo = mid }
                }
                answer = hi
            }
        }

        let ordered = steps.keys.sorted().map { steps[$0]! }
        let best: Step? = answer.map { steps[$0]! } ?? ordered.min { a, b in
            let ka = a.simulated?.areaQuantile ?? .infinity, kb = b.simulated?.areaQuantile ?? .infinity
            if ka != kb { return ka < kb }
            return a.predicted.areaQuantile < b.predicted.areaQuantile
        }
        guard let best else {
            return Result(met: false, chosen: empty, steps: [], points: model.points.count, candidates: model.candidates.count,
                          walkableArea: area, chosenPerPointP90: [])
        }
        return Result(met: best.meetsTarget, chosen: best, steps: ordered, points: model.points.count,
                      candidates: model.candidates.count, walkableArea: area, chosenPerPointP90: perPoint[best.count] ?? [])
    }
}
