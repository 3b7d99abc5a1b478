import Foundation
import LabCore
import LabSimulation
import LabEstimators
import LabStore

/// Every estimator on every scenario and seed: epochs from each scenario's walks and from static test
/// points covering its rooms, simulated once per (scenario, seed) and shared by all estimators.
/// Jobs run on all cores; results come back in a fixed order, so the output does not depend on scheduling.
public struct Tournament: Sendable {
    public var scenarios: [Scenario]
    public var seeds: [UInt64]
    public var estimators: [EstimatorKind]
    public var includeWalks = true
    public var includeGrid = true

    public init(scenarios: [Scenario], seeds: [UInt64], estimators: [EstimatorKind] = EstimatorKind.allCases) {
        self.scenarios = scenarios; self.seeds = seeds; self.estimators = estimators
    }

    public var jobCount: Int { scenarios.count * seeds.count }

    /// Runs every job; `progress(scenario, seed)` is called (from any thread) after each finishes.
    public func run(progress: (@Sendable (String, UInt64) -> Void)? = nil) -> [EpochResult] {
        let jobs = scenarios.indices.flatMap { s in seeds.map { (s, $0) } }
        let slots = ResultSlots(count: jobs.count)
        DispatchQueue.concurrentPerform(iterations: jobs.count) { j in
            let (s, seed) = jobs[j]
            slots.set(j, runJob(scenario: scenarios[s], seed: seed))
            progress?(scenarios[s].name, seed)
        }
        return slots.all.flatMap { $0 }
    }

    /// The epochs of one scenario for one seed: each walk, then the static test grid.
    public func epochs(scenario: Scenario, seed: UInt64) -> [Epoch] {
        let sim = Simulator(scenario: scenario)
        var epochs: [Epoch] = []
        if includeWalks { for w in scenario.walks { epochs += sim.simulate(walk: w, seed: seed) } }
        if includeGrid { epochs += sim.simulate(points: sim.testPoints(), seed: seed) }
        return epochs
    }

    func runJob(scenario: Scenario, seed: UInt64) -> [EpochResult] {
        let venue = Venue(scenario)
        return Tournament.evaluate(epochs: epochs(scenario: scenario, seed: seed), venue: venue, estimators: estimators,
                                   scenario: scenario.name, seed: seed)
    }

    /// Runs `estimators` over `epochs` (simulated or replayed) and judges every outcome.
    public static func evaluate(epochs: [Epoch], venue: Venue, estimators kinds: [EstimatorKind], scenario: String, seed: UInt64) -> [EpochResult] {
        let judge = EpochJudge(venue: venue)
        let estimators = kinds.map { $0.make(venue: venue) }
        var out: [EpochResult] = []
        out.reserveCapacity(epochs.count * estimators.count)
        for e in epochs {
            let o = judge.observation(for: e)
            let crlb = judge.crlb(for: e, observation: o)
            for est in estimators {
                out.append(judge.judge(est.locate(o), epoch: e, observation: o, crlb: crlb, estimator: est.kind,
                                       scenario: scenario, seed: seed))
            }
        }
        return out
    }
}

/// Per-job result storage written from concurrent workers.
final class ResultSlots: @unchecked Sendable {
    private var slots: [[EpochResult]]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: [], count: count) }
    func set(_ i: Int, _ value: [EpochResult]) { lock.lock(); slots[i] = value; lock.unlock() }
    var all: [[EpochResult]] { lock.lock(); defer { lock.unlock() }; return slots }
}
