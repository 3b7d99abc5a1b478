import Foundation
import LabCore
import LabEstimators
import LabSimulation

/// How fast the library's one-scan fix learns a phone it has never seen (docs/scenario-format.md, "radio.field"): a walk of the
/// scenario with the device offset fixed at `offset` dB — alone, or with every other impairment of the
/// scenario's field condition — fed scan by scan to ``OffsetLearningEstimator``; after each scan, what it has
/// learned (mean and σ). One run per seed; nothing is told the offset.
///
/// With every impairment, what is learned is the *apparent* offset: body shadowing takes its loss off about a
/// third of the readings and the outliers are one-sided, and a constant part of that is indistinguishable
/// from a weaker phone.
public struct OffsetLearningCurve: Sendable, Codable {
    public struct Run: Sendable, Codable {
        public var seed: UInt64
        /// Learned offset after each scan, dB (NaN until the first fix).
        public var learned: [Double]
        /// Its σ after each scan, dB (NaN until the first fix).
        public var sigma: [Double]
    }

    public var scenario: String
    public var walk: String
    /// The true offset, dB.
    public var offset: Double
    /// Whether the other field impairments were on.
    public var allImpairments: Bool
    public var runs: [Run]

    /// Runs `seeds` walks of `scans` scans (the scenario's first walk, or `walk`, followed by the others when
    /// shorter), on all cores.
    public static func measure(scenario: Scenario, walk: String? = nil, offset: Double, allImpairments: Bool = false,
                                seeds: [UInt64], scans: Int) throws -> OffsetLearningCurve {
        let chosen = walk.map { name in scenario.walks.first { $0.name == name } } ?? scenario.walks.first
        guard let w = chosen else {
            throw InputError(file: scenario.name, field: "walks", walk.map { "no walk named '\($0)'; walks: \(scenario.walks.map(\.name).joined(separator: ", "))" } ?? "the scenario has no walk to learn along")
        }
        var s = scenario
        if !allImpairments { s.radio.field = FieldImpairments() }
        s.radio.field.deviceOffset = offset
        s.radio.field.deviceOffsetSigma = 0
        let sim = try Simulator(scenario: s, condition: .field)
        let venue = Venue(s, condition: .field)
        let slots = ResultSlots<Run>(count: seeds.count)
        DispatchQueue.concurrentPerform(iterations: seeds.count) { k in
            let est = OffsetLearningEstimator(venue: venue)
            // The walk, then the scenario's other walks (the same seed: the same offset and beacons), then laps
            // with further seeds until there are enough scans.
            var epochs = sim.simulate(walk: w, seed: seeds[k])
            for other in sim.scenario.walks where other.name != w.name && epochs.count < scans { epochs += sim.simulate(walk: other, seed: seeds[k]) }
            var lap: UInt64 = 1
            while epochs.count < scans, lap < 1_000 {
                epochs += sim.simulate(walk: w, seed: seeds[k] &+ lap &* 7_919)
                lap += 1
            }
            var learned: [Double] = [], sigma: [Double] = []
            for e in epochs.prefix(scans) {
                _ = est.locate(Observation(readings: e.readings, headings: e.headings, beaconCount: venue.beaconCount))
                learned.append(est.learnedOffset?.mean ?? .nan)
                sigma.append(est.learnedOffset?.sigma ?? .nan)
            }
            slots.set(k, [Run(seed: seeds[k], learned: learned, sigma: sigma)])
        }
        return OffsetLearningCurve(scenario: scenario.name, walk: w.name, offset: offset, allImpairments: allImpairments, runs: slots.all.flatMap { $0 })
    }

    /// Fraction of runs whose learned offset is within `tolerance` dB of the truth after `scans` scans.
    public func fractionWithin(_ tolerance: Double, afterScans scans: Int) -> Double {
        let ok = runs.filter { scans <= $0.learned.count && abs($0.learned[scans - 1] - offset) <= tolerance }
        return Double(ok.count) / Double(max(runs.count, 1))
    }

    /// The largest error of the learned offset over the runs after `scans` scans, dB (∞ if a run is shorter or unfixed).
    public func worstError(afterScans scans: Int) -> Double {
        runs.map { scans <= $0.learned.count ? abs($0.learned[scans - 1] - offset) : .infinity }.max() ?? .infinity
    }
}
