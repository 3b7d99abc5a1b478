import Foundation
import LabCore
import LabSimulation
import LabEstimators
import LabResults

/// Every estimator on every scenario, condition and seed: epochs from each scenario's walks and from static
/// test points covering its rooms, simulated once per (scenario, condition, seed) and shared by all
/// estimators. Jobs run on all cores; results come back in a fixed order, so the output does not depend on
/// scheduling.
///
/// Results of the field condition are labelled `scenario@field` and judged against the offset-aware bound;
/// ideal results keep the scenario's name. Each job also surveys its venue (``Simulator/survey(points:seed:)``,
/// seed + ``surveySeedOffset``) for the fingerprinting estimators.
public struct Tournament: Sendable {
    public var scenarios: [Scenario]
    public var seeds: [UInt64]
    public var estimators: [EstimatorKind]
    public var conditions: [SimulationCondition]
    public var includeWalks = true
    public var includeGrid = true

    /// The survey of seed s is simulated with seed s + this (another day, the same venue).
    public static let surveySeedOffset: UInt64 = 1_000_003

    public init(scenarios: [Scenario], seeds: [UInt64], estimators: [EstimatorKind] = EstimatorKind.allCases,
                conditions: [SimulationCondition] = [.ideal]) {
        self.scenarios = scenarios; self.seeds = seeds; self.estimators = estimators; self.conditions = conditions
    }

    public var jobCount: Int { scenarios.count * conditions.count * seeds.count }

    /// The result labels, scenario by scenario: `name`, then `name@field`.
    public var labels: [String] { scenarios.flatMap { s in conditions.map { $0.label(s.name) } } }

    /// Runs every job; `progress(label, seed)` is called (from any thread) after each finishes.
    /// - Throws: ``InputErrors`` when a scenario asks for more work than ``WorkBudget`` allows.
    public func run(progress: (@Sendable (String, UInt64) -> Void)? = nil) throws -> [EpochResult] {
        for s in scenarios {
            try WorkBudget.check(s)
            if includeWalks { try PosteriorBound.checkWork(s, conditions: conditions) }
        }
        let jobs = scenarios.indices.flatMap { s in conditions.flatMap { c in seeds.map { (s, c, $0) } } }
        let slots = ResultSlots<EpochResult>(count: jobs.count)
        DispatchQueue.concurrentPerform(iterations: jobs.count) { j in
            let (s, condition, seed) = jobs[j]
            slots.fill(j) { try runJob(scenario: scenarios[s], condition: condition, seed: seed) }
            progress?(condition.label(scenarios[s].name), seed)
        }
        return try slots.values().flatMap { $0 }
    }

    /// The epochs of one scenario for one seed: each walk, then the static test grid.
    public func epochs(scenario: Scenario, condition: SimulationCondition = .ideal, seed: UInt64) throws -> [Epoch] {
        epochs(simulator: try Simulator(scenario: scenario, condition: condition), seed: seed)
    }

    func epochs(simulator sim: Simulator, seed: UInt64) -> [Epoch] {
        var epochs: [Epoch] = []
        if includeWalks { for w in sim.scenario.walks { epochs += sim.simulate(walk: w, seed: seed) } }
        if includeGrid { epochs += sim.simulate(points: sim.testPoints(), seed: seed) }
        return epochs
    }

    /// The venue an estimator gets for a job: the scenario's, with the survey of that seed and condition when
    /// `survey` (only estimators that use ``EstimatorInputs/Sources/survey`` read it, and it costs a grid pass).
    public static func venue(scenario: Scenario, condition: SimulationCondition, seed: UInt64, survey: Bool = true) throws -> Venue {
        venue(simulator: try Simulator(scenario: scenario, condition: condition), seed: seed, survey: survey)
    }

    static func venue(simulator sim: Simulator, seed: UInt64, survey: Bool) -> Venue {
        var venue = Venue(sim.scenario, condition: sim.condition)
        venue.seed = seed
        if survey {
            venue.survey = SurveyMap(epochs: sim.survey(points: sim.testPoints(), seed: seed &+ surveySeedOffset), beaconCount: venue.beaconCount)
        }
        return venue
    }

    func runJob(scenario: Scenario, condition: SimulationCondition, seed: UInt64) throws -> [EpochResult] {
        let sim = try Simulator(scenario: scenario, condition: condition)
        let venue = Tournament.venue(simulator: sim, seed: seed, survey: estimators.contains { $0.inputs.uses.contains(.survey) })
        let bound = CramerRaoBound.judging(condition, venue: venue, impairments: sim.impairments)
        return Tournament.evaluate(epochs: epochs(simulator: sim, seed: seed), venue: venue,
                                   estimators: estimators, scenario: condition.label(scenario.name), seed: seed, bound: bound,
                                   posterior: PosteriorBound.judging(condition, venue: venue, impairments: sim.impairments, pdr: scenario.pdr))
    }

    /// Runs `estimators` over `epochs` (simulated or replayed) and judges every outcome against `bound`
    /// (default: the ideal bound of the venue), and walk epochs against `posterior` too (default: the same
    /// bound's, ``PosteriorBound/init(bound:offsetSigma:motion:pdr:)``). Results come epoch by epoch, estimators in the
    /// given order.
    ///
    /// Each walk and each grid pass is carried by its own phone (the field condition draws an offset per pass):
    /// estimators hear ``PositionEstimator/startDevice()`` at its start. A walk goes to each estimator whole
    /// (``PositionEstimator/locate(track:)``, so smoothers see its future); on the static grid every point is a new track of the same phone
    /// (``PositionEstimator/startTrack()``). With `observations` (one per epoch: a replay's condensed readings), those
    /// are what the estimators get, instead of observations made from the epochs' readings.
    public static func evaluate(epochs: [Epoch], observations given: [Observation]? = nil, venue: Venue, estimators kinds: [EstimatorKind],
                                scenario: String, seed: UInt64, bound: CramerRaoBound? = nil, posterior: PosteriorBound? = nil) -> [EpochResult] {
        let judge = EpochJudge(venue: venue, bound: bound)
        let posterior = posterior ?? PosteriorBound(bound: judge.bound)
        let estimators = kinds.map { $0.make(venue: venue) }
        var out: [EpochResult] = []
        out.reserveCapacity(epochs.count * estimators.count)
        for range in passes(epochs) {
            let pass = epochs[range]
            let observations = given.map { Array($0[range]) } ?? pass.map { judge.observation(for: $0) }
            let isStatic = Self.isStatic(pass)
            let pcrb = isStatic ? nil : judge.pcrb(walk: pass, observations: observations, posterior: posterior)
            let outcomes = estimators.map { run($0, pass: pass, observations: observations) }
            for (k, e) in pass.enumerated() {
                let o = observations[k]
                let crlb = judge.crlb(for: e, observation: o)
                for (j, est) in estimators.enumerated() {
                    var r = judge.judge(outcomes[j][k], epoch: e, observation: o, crlb: crlb, estimator: est.kind,
                                        scenario: scenario, seed: seed)
                    r.pcrb = pcrb?[k]
                    out.append(r)
                }
            }
        }
        return out
    }

    /// The passes of `epochs`, in order: each run of consecutive epochs of one walk (or of the static grid), which
    /// one phone carries.
    public static func passes(_ epochs: [Epoch]) -> [Range<Int>] {
        var out: [Range<Int>] = [], start = 0
        while start < epochs.count {
            var end = start + 1
            while end < epochs.count && epochs[end].walk == epochs[start].walk { end += 1 }
            out.append(start..<end)
            start = end
        }
        return out
    }

    /// Whether a pass is static points (the simulated grid), each a new track. A recording is a walk in time order, stops
    /// and all (UJI's surveyor stood at each reference point for about 13 scans): a tracker is told nothing of them.
    public static func isStatic(_ pass: ArraySlice<Epoch>) -> Bool {
        pass.first?.walk == nil
    }

    /// What `estimator` reports for each epoch of one pass (``passes(_:)``), driven as the tournament drives it: a
    /// new phone at the pass's start; a walk whole, a static point as a new track.
    public static func run(_ estimator: any PositionEstimator, pass: ArraySlice<Epoch>, observations: [Observation]) -> [EstimateOutcome] {
        estimator.startDevice()
        guard isStatic(pass) else { return estimator.locate(track: observations) }
        return observations.map { o in estimator.startTrack(); return estimator.locate(o) }
    }
}
