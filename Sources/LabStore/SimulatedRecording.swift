import Foundation
import LabCore

/// A simulated walk as a recording: what `indoorlab record` writes once the simulator has made the walk's epochs.
public enum SimulatedRecording {
    /// The recording of `epochs`, simulated along `walk` through `scenario` with `seed`: every reading, heading and step
    /// of every epoch, one truth sample (source `simulated`) at each epoch's time, and the scenario's YAML when given.
    public static func make(epochs: [Epoch], scenario: Scenario, walk: Walk, seed: UInt64, scenarioYAML: String? = nil,
                            name: String? = nil, notes: String = "", created: Date = Date()) -> Recording {
        var rssi: [RSSIReading] = []
        var headings: [HeadingReading] = []
        var steps: [StepReading]? = scenario.pdr == nil ? nil : []
        var truth: [TruthSample] = []
        rssi.reserveCapacity(epochs.reduce(0) { $0 + $1.readings.count })
        for e in epochs {
            rssi += e.readings
            headings += e.headings
            steps? += e.steps ?? []
            truth.append(TruthSample(t: e.t, position: e.truth, source: .simulated))
        }
        let info = RecordingInfo(name: name ?? defaultName(scenario: scenario.name, walk: walk.name, seed: seed),
                                 source: .simulated, venue: scenario.name, created: created, notes: notes,
                                 walk: walk.name, seed: seed, scenarioYAML: scenarioYAML)
        return Recording(info: info, venue: RecordedVenue(scenario: scenario), rssi: rssi, headings: headings, steps: steps, truth: truth)
    }

    /// `<scenario>-<walk>-seed<seed>`, e.g. `open-hall-loop-seed1`.
    public static func defaultName(scenario: String, walk: String, seed: UInt64) -> String {
        "\(scenario)-\(walk)-seed\(seed)"
    }
}
