import Foundation
import LabCore
import LabEstimators

/// "How many beacons, and where, to reach P90 ≤ target on a share of the walkable area?"
///
/// Searches with the bound (fast), confirms with simulation (true):
/// 1. one chain of layouts grows by the candidate that covers the most points (predicted P90 = 1.517·sqrt(CRLB) ≤ target;
///    ties: lower mean log error), each addition followed by the single swaps it makes worthwhile (``LayoutSearch``);
///    the first count whose layout the bound says meets the target — after a full pass of swaps, possibly a count or two
///    fewer — is where simulation starts;
/// 2. from there, simulate layouts (the chain's, after a full pass of swaps) with the library's one-scan fix
///    (`draws` scan windows per point), the next count tried where the line through the last two simulated area
///    P90s crosses the target (after the first, where the bound scaled by the simulation's ratio to it there does), kept
///    between the last count that failed and the first that met it (a bisection step after two tries on one side),
///    and no further above the last failure than a step that starts at half the first count and doubles; the
///    answer is a count that meets the target in simulation while the count one lower failed (in simulation, or by
///    the bound);
/// 3. if no n up to `maxBeacons` (or the candidate count) does, report the best layout found;
/// 4. confirm the answer with `spreadSeeds` further seeds: the count each seed's draws need is the answer's spread.
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
        /// Further seeds (seed + 1, seed + 2, …) the answer is confirmed with, each giving the count that meets the target
        /// with its draws: the answer's spread (``Result/spread``). 0 confirms with `seed` only.
        public var spreadSeeds: Int = 2
        /// The bound's model counts a candidate only where its mean reading is at least this many dB above the
        /// sensitivity (``CoverageModel``); the simulation hears every beacon as the phone would.
        public var reachMargin: Double = Planner.defaultReachMargin
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
        /// The count that meets the target with each seed's draws (the answer's seed first), the same layouts searched:
        /// how much the answer owes to the simulation's draws. A nil count: none up to the limit did.
        public var spread: [SeedCount] = []
        /// Set when the bound rules the target out before any search: the prediction with a beacon at every candidate
        /// place (more beacons only add information, so no layout predicts better). Nothing is searched or simulated then.
        public var outOfReach: CoverageFigures? = nil
    }

    /// One seed's answer (``Result/spread``).
    public struct SeedCount: Sendable, Codable, Hashable {
        public var seed: UInt64
        public var count: Int?
    }

    public let scenario: Scenario
    public let options: Options
    public let model: CoverageModel

    /// The default ``Options/reachMargin``.
    public static let defaultReachMargin = 10.0

    /// Test points a plan or a tune may evaluate (each is simulated `draws` times per layout tried).
    public static let maximumPoints = 50_000
    /// Test points × candidate places the bound's model weighs (each a path-loss evaluation through the walls); it keeps
    /// three numbers for those within reach (``Options/reachMargin``): at most 480 MB, with every pair in reach.
    public static let maximumPairs = 20_000_000
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
        var model = CoverageModel(scenario: scenario, points: points, candidates: candidates, candidateHeight: options.beaconHeight,
                                  reachMargin: options.reachMargin)
        // Where even a beacon at every candidate place misses the target within the reach (an open space wider than
        // it: a courtyard's middle is far from every wall), the far beacons are what a layout has: count them all.
        if options.reachMargin > -.infinity,
           CoverageFigures(perPointP90: model.predictedP90(layout: Array(candidates.indices)), target: options.targetP90,
                           coverage: options.coverage).areaQuantile > options.targetP90 {
            model = CoverageModel(scenario: scenario, points: points, candidates: candidates, candidateHeight: options.beaconHeight)
        }
        self.model = model
    }

    /// The best layout of `count` beacons the bound-based search finds (candidate indices), as `run` makes it: beacons
    /// added one by one, each followed by the swaps it makes worthwhile, then a full pass of single swaps.
    public func layout(count: Int) -> [Int] {
        var search = LayoutSearch(model: model, target: options.targetP90)
        while search.layout.count < count, search.growAndImprove() {}
        return improved(search.layout)
    }

    /// A layout improved by single swaps.
    func improved(_ layout: [Int]) -> [Int] {
        var search = LayoutSearch(model: model, target: options.targetP90, layout: layout)
        search.improveBySwaps()
        return search.layout
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
        // The greedy chain: its first n beacons are the greedy layout of n. Counts that are simulated (or decide where
        // simulation starts) get the chain's layout improved by swaps.
        var chain = LayoutSearch(model: model, target: options.targetP90)
        var chainLayouts: [Int: [Int]] = [:]
        var improvedLayouts: [Int: [Int]] = [:]
        var steps: [Int: Step] = [:]
        var perPoint: [Int: [Double]] = [:]
        func greedy(_ n: Int) -> [Int] {
            while chain.layout.count < n, chain.growAndImprove() { chainLayouts[chain.layout.count] = chain.layout }
            return chainLayouts[n] ?? chain.layout
        }
        func layout(_ n: Int) -> [Int] {
            if let l = improvedLayouts[n] { return l }
            let l = improved(greedy(n))
            improvedLayouts[n] = l
            return l
        }
        func record(_ n: Int, _ l: [Int], _ p: [Double]) -> Step {
            let st = Step(count: n, positions: l.map { model.candidates[$0] },
                          predicted: CoverageFigures(perPointP90: p, target: options.targetP90, coverage: options.coverage),
                          simulated: nil, target: options.targetP90)
            steps[n] = st
            perPoint[n] = p
            progress?(n, "predicted area P90 \(Format.metres(st.predicted.areaQuantile)) m")
            return st
        }
        /// The greedy layout's prediction (the bound's search up to the first count that meets the target).
        func predictGreedy(_ n: Int) -> Step {
            let l = greedy(n)
            return record(n, l, chain.layout.count == n ? chain.acc.p90() : model.predictedP90(layout: l))
        }
        /// The improved layout's prediction (every count simulated).
        func predict(_ n: Int) -> Step {
            if improvedLayouts[n] != nil, let st = steps[n] { return st }
            let l = layout(n)
            return record(n, l, model.predictedP90(layout: l))
        }
        /// The prediction at `n`: the improved layout's where it was made, else the greedy chain's.
        func predicted(_ n: Int) -> Double {
            (steps[n] ?? predictGreedy(n)).predicted.areaQuantile
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

        // 1. The bound alone, until it says the target is within reach: the greedy layouts first; swaps only add
        //    covered points, so the improved layout of that count meets it too, and may already at a count or two fewer.
        var n = 3
        while n <= limit && predictGreedy(n).predicted.areaQuantile > options.targetP90 { n += 1 }
        if n <= limit {
            _ = predict(n)
            while n > 3 && predict(n - 1).predicted.areaQuantile <= options.targetP90 { n -= 1 }
        }
        // 2. Simulation, guided: the next count tried is where the line through the last two simulated area P90s crosses
        //    the target (after the first, where the bound scaled by the simulated/predicted ratio there meets it), kept
        //    strictly between the highest count that failed and the lowest that met, and no further up than a step that
        //    starts at half the first count and doubles while none has met. Two tries in a row on the same side make the
        //    next a bisection's.
        var answer: Int?
        let lowest = n   // counts below failed by the bound (or are below the minimum of 3)
        if n <= limit {
            var failed = n - 1   // failed by the bound (or below the minimum of 3)
            var met: Int?
            var probe = n, step = max(1, n / 2)
            var previous: (count: Int, p90: Double)?
            var lastMet: Bool?, sameSide = 0
            while true {
                let ok = try simulate(probe)
                if ok { met = probe } else { failed = probe }
                sameSide = ok == lastMet ? sameSide + 1 : 0
                lastMet = ok
                let upper = met ?? min(failed + step, limit)
                if met == nil { step *= 2 }
                if upper - failed <= (met == nil ? 0 : 1) { break }   // bracketed to one count, or nothing left to try
                let tried = steps[probe]!
                let simulated = tried.simulated!.areaQuantile
                let range = (failed + 1)...(met == nil ? upper : upper - 1)
                let last = previous
                previous = (probe, simulated)
                if sameSide >= 1 && met != nil {
                    probe = (failed + upper) / 2
                } else if let (c, p) = last, p != simulated, p.isFinite, simulated.isFinite {
                    // Clamped as a Double first: a nearly flat line crosses the target far away (or nowhere, ±∞).
                    let crossing = Double(c) + (p - options.targetP90) / (p - simulated) * Double(probe - c)
                    probe = crossing.isNaN ? range.upperBound
                        : Int(min(max(crossing, Double(range.lowerBound)), Double(range.upperBound)).rounded(.up))
                } else {
                    let ratio = simulated / tried.predicted.areaQuantile
                    probe = (ratio.isFinite ? range.first { predicted($0) * ratio <= options.targetP90 } : nil) ?? range.upperBound
                }
            }
            answer = met
        }

        // 4. The spread: the same layouts confirmed with further seeds, walking down from the answer while each meets
        //    the target, or up until one does.
        var spread: [SeedCount] = []
        if let a = answer {
            spread.append(SeedCount(seed: options.seed, count: a))
            for k in 0..<max(0, options.spreadSeeds) {
                let seed = options.seed &+ UInt64(k + 1)
                let other = LayoutSimulation(scenario: scenario, points: model.points, estimator: options.estimator,
                                             draws: options.draws, seed: seed)
                func meets(_ n: Int) throws -> Bool {
                    progress?(n, "confirming with seed \(seed)")
                    let p = try other.perPointP90(beacons: beacons(for: layout(n)))
                    return CoverageFigures(perPointP90: p, target: options.targetP90, coverage: options.coverage).areaQuantile <= options.targetP90
                }
                var c: Int? = a
                if try meets(a) {
                    while c! - 1 >= lowest, try meets(c! - 1) { c! -= 1 }
                } else {
                    c = nil
                    var m = a
                    while m < limit {
                        m += 1
                        if try meets(m) { c = m; break }
                    }
                }
                spread.append(SeedCount(seed: seed, count: c))
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
        var result = Result(met: best.meetsTarget, chosen: best, steps: ordered, points: model.points.count,
                            candidates: model.candidates.count, walkableArea: area, chosenPerPointP90: perPoint[best.count] ?? [])
        result.spread = spread
        return result
    }
}
