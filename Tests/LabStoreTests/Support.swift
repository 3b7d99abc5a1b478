import Foundation
import LabCore
import Testing
import LabScenarioIO
import LabEvaluation
import LabSimulation
@testable import LabStore

/// The package root (Tests/LabStoreTests/Support.swift → three levels up).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let datasets = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/datasets").path
let haveDatasets = FileManager.default.fileExists(atPath: datasets + "/danis-ble-tracks/cnf/tetam.dev")
    && FileManager.default.fileExists(atPath: datasets + "/uji-ble-geo/rss/geo_rss.csv")

func scenario(_ name: String) throws -> Scenario {
    try ScenarioLoader.load(path: packageRoot.appendingPathComponent("Scenarios/\(name).yaml").path)
}

func scenarioText(_ name: String) throws -> String {
    try String(contentsOfFile: packageRoot.appendingPathComponent("Scenarios/\(name).yaml").path, encoding: .utf8)
}

/// A fresh directory under the system's temporary directory.
func temporaryDirectory(_ label: String = "store") throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("indoorlab-\(label)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// Files in `dir` (hidden ones included).
func listing(_ dir: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
}

/// A small lab-csv directory: three beacons, two windows of readings, two truth positions.
func writeLabCSV(_ dir: String, readings: String? = nil, beacons: String? = nil, truth: String? = nil, headings: String? = nil,
                 steps: String? = nil) throws {
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    try (beacons ?? "id,x,y,height,p0\nA,0,0,,\nB,10,0,2.5,-61\nC,0,10,,\n").write(toFile: dir + "/beacons.csv", atomically: true, encoding: .utf8)
    try (readings ?? "t,beacon,rssi\n0.1,A,-60\n0.2,B,-70\n0.3,C,-75\n1.1,A,-61\n1.2,B,-69\n1.3,C,-74\n")
        .write(toFile: dir + "/readings.csv", atomically: true, encoding: .utf8)
    try (truth ?? "t,x,y,z,source\n0.5,2,2,1.5,survey\n1.5,2.5,2,,qr-checkpoint\n").write(toFile: dir + "/truth.csv", atomically: true, encoding: .utf8)
    if let headings { try headings.write(toFile: dir + "/headings.csv", atomically: true, encoding: .utf8) }
    if let steps { try steps.write(toFile: dir + "/steps.csv", atomically: true, encoding: .utf8) }
}

/// A simulated recording of `scenarioName`'s first walk (seed 1) written to `dir/r.sqlite`; its path.
func simulatedRecording(in dir: String, scenario scenarioName: String = "open-hall", name: String = "r.sqlite") throws -> String {
    let path = dir + "/" + name
    let s = try scenario(scenarioName)
    try RecordingStore.write(try simulatedRecording(scenario: s, walk: s.walks[0], seed: 1), to: path)
    return path
}

/// The recording `indoorlab record` makes: the simulator's epochs of `walk` stored as a recording.
func simulatedRecording(scenario: Scenario, walk: Walk, seed: UInt64, scenarioYAML: String? = nil, name: String? = nil,
                        notes: String = "", created: Date = Date()) throws -> Recording {
    SimulatedRecording.make(epochs: try Simulator(scenario: scenario).simulate(walk: walk, seed: seed), scenario: scenario, walk: walk,
                            seed: seed, scenarioYAML: scenarioYAML, name: name, notes: notes, created: created)
}
