import Foundation
import LabCore
import LabScenarioIO
import LabSimulation
import LabStore

/// The package root (Tests/IndoorlabCLITests/Support.swift → three levels up).
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Where `swift build` put this run's products: beside the test bundle, so `swift test -c release` runs the
/// release binaries (falling back to `.build/debug` when the bundle was started from elsewhere).
func builtProduct(_ name: String) -> URL {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent(name)
    return FileManager.default.isExecutableFile(atPath: beside.path) ? beside
        : root.appendingPathComponent(".build/debug/" + name)
}

/// The built `indoorlab` binary, for the tests that start it themselves (to kill it, or to read it through a pipe).
let binary = builtProduct("indoorlab").path
let haveBinary = FileManager.default.isExecutableFile(atPath: binary)
/// The real datasets, beside the repository when present (docs/real-data.md).
let datasets = root.deletingLastPathComponent().appendingPathComponent("shared/datasets").path

struct Run { var status: Int32; var stdout: String; var stderr: String }

/// Runs the built `indoorlab` binary (the test target depends on it, so it is built first): the one runner of the
/// command tests.
func indoorlab(_ args: [String], cwd: URL = root, standardOutputTo device: String? = nil, environment: [String: String] = [:]) throws -> Run {
    let p = Process()
    if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    p.executableURL = builtProduct("indoorlab")
    p.arguments = args
    p.currentDirectoryURL = cwd
    // Output goes to files, not pipes: a full pipe would block the child while we wait for it.
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("indoorlab-run-\(UUID().uuidString)")
    let outURL = base.appendingPathExtension("out"), errURL = base.appendingPathExtension("err")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: outURL); try? FileManager.default.removeItem(at: errURL) }
    p.standardOutput = try device.map { try FileHandle(forWritingTo: URL(fileURLWithPath: $0)) } ?? FileHandle(forWritingTo: outURL)
    p.standardError = try FileHandle(forWritingTo: errURL)
    try p.run()
    p.waitUntilExit()
    return Run(status: p.terminationStatus, stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
               stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
}

/// A fresh directory under the system's temporary directory.
func temporaryDirectory(_ label: String = "cli") throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("indoorlab-\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// Files in `dir` (hidden ones included).
func listing(_ dir: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
}

func scenario(_ name: String) throws -> Scenario {
    try ScenarioLoader.load(path: root.appendingPathComponent("Scenarios/\(name).yaml").path)
}

func scenarioText(_ name: String) throws -> String {
    try String(contentsOfFile: root.appendingPathComponent("Scenarios/\(name).yaml").path, encoding: .utf8)
}

/// A small lab-csv directory: three beacons, two windows of readings, two truth positions.
func writeLabCSV(_ dir: String, readings: String? = nil, beacons: String? = nil, truth: String? = nil) throws {
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    try (beacons ?? "id,x,y,height,p0\nA,0,0,,\nB,10,0,2.5,-61\nC,0,10,,\n").write(toFile: dir + "/beacons.csv", atomically: true, encoding: .utf8)
    try (readings ?? "t,beacon,rssi\n0.1,A,-60\n0.2,B,-70\n0.3,C,-75\n1.1,A,-61\n1.2,B,-69\n1.3,C,-74\n")
        .write(toFile: dir + "/readings.csv", atomically: true, encoding: .utf8)
    try (truth ?? "t,x,y,z,source\n0.5,2,2,1.5,survey\n1.5,2.5,2,,qr-checkpoint\n").write(toFile: dir + "/truth.csv", atomically: true, encoding: .utf8)
}

/// A simulated recording of `scenarioName`'s first walk (seed 1), as `indoorlab record` makes it, written to `dir/name`;
/// its path.
func simulatedRecording(in dir: String, scenario scenarioName: String = "open-hall", name: String = "r.sqlite") throws -> String {
    let path = dir + "/" + name
    let s = try scenario(scenarioName)
    let epochs = try Simulator(scenario: s).simulate(walk: s.walks[0], seed: 1)
    try RecordingStore.write(SimulatedRecording.make(epochs: epochs, scenario: s, walk: s.walks[0], seed: 1, scenarioYAML: nil, name: nil,
                                                     notes: "", created: Date()), to: path)
    return path
}
