import Foundation
import LabCore
import LabScenarioIO
import LabSimulation
import LabStore

func scenario(_ name: String) throws -> Scenario {
    try ScenarioLoader.load(path: scenariosDir + "/\(name).yaml")
}

/// A fresh directory under the system's temporary directory.
func temporaryDirectory(_ label: String) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("indoorlab-\(label)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// The recording `indoorlab record` makes: the simulator's epochs of `walk` stored as a recording.
func simulatedRecording(scenario: Scenario, walk: Walk, seed: UInt64) throws -> Recording {
    SimulatedRecording.make(epochs: try Simulator(scenario: scenario).simulate(walk: walk, seed: seed), scenario: scenario, walk: walk,
                            seed: seed, scenarioYAML: nil, name: nil, notes: "", created: Date())
}
