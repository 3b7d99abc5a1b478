import ArgumentParser
import Foundation
import LabCore
import LabEstimators
import LabEvaluation
import LabScenarioIO
import LabStore
import LabSimulation
import LabReport

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Simulate a walk and store it as a recording (SQLite) for replay.",
        discussion: """
        The recording holds the scenario's venue (radio model, bounds, beacons, landmarks, rooms), the scenario YAML, every RSSI and heading sample, and one ground-truth sample per scan window (source: simulated).

        Written all-or-nothing: an existing FILE is never overwritten. Exit 2 on bad input.

        Example:
          indoorlab record open-hall --walk loop --seed 1 \\
              -o Recordings/open-hall-loop-seed1.sqlite
        """)

    @Argument(help: "Scenario YAML file or bundled scenario name.")
    var scenario: String

    @Option(help: "Walk to simulate (default: the scenario's only walk).")
    var walk: String?

    @OptionGroup var seed: SeedOptions

    @Option(name: .shortAndLong, help: "The recording to create (must not exist).")
    var output: String

    @Option(help: "Recording name (default: <scenario>-<walk>-seed<seed>).")
    var name: String?

    @Option(help: "Free-text notes stored with the recording.")
    var notes: String = ""

    func validate() throws { try checkRecordingName(name) }

    func run() throws {
        let path = BundledScenarios.resolve(scenario)
        let s = try loadScenario(scenario)
        try reportingInputErrors { try RecordingStore.checkDestination(output) }
        let w: Walk
        if let walk {
            guard let found = s.walk(named: walk) else {
                printError("error: \(path): no walk named '\(walk)'; walks: \(s.walks.map(\.name).joined(separator: ", "))")
                throw badInputExit
            }
            w = found
        } else {
            guard s.walks.count == 1 else {
                printError("error: \(path): choose a walk with --walk: \(s.walks.isEmpty ? "the scenario has none" : s.walks.map(\.name).joined(separator: ", "))")
                throw badInputExit
            }
            w = s.walks[0]
        }
        let yaml = try? String(contentsOfFile: path, encoding: .utf8)
        let recording = SimulatedRecording.make(epochs: try Simulator(scenario: s).simulate(walk: w, seed: seed.seed), scenario: s, walk: w, seed: seed.seed, scenarioYAML: yaml, name: name, notes: notes,
                                                created: try creationDate())
        let summary = try reportingInputErrors { try RecordingStore.write(recording, to: output) }
        print(RecordingSummaryText.line(summary))
    }
}
