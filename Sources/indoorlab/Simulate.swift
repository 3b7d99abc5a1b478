import ArgumentParser
import Foundation
import LabCore
import LabEstimators
import LabEvaluation
import LabStore
import LabScenarioIO
import LabSimulation
import LabReport

struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Simulate the readings a phone gets on a walk (or at the static test points).",
        discussion: """
        CSV is long form, one row per reading: walk,epoch,epoch_t,truth_x,truth_y,room,type,t,id,value,target where type is rssi (id = beacon, value = dBm), heading (id = frieze when identified, value = degrees, target = frieze truly looked at), checkpoint (id = QR checkpoint scanned in that window) or step (a step the pedometer reported since the previous epoch, when the scenario has pdr: value = length in metres, target = heading in degrees).

        Example:
          indoorlab simulate museum-gallery --walk visitor --seed 7 -o visitor.csv
        """)

    @Argument(help: "Scenario YAML file or bundled scenario name.")
    var scenario: String

    @Option(help: "Walk to simulate (default: every walk). Use 'grid' for the static test points.")
    var walk: String?

    @OptionGroup var seed: SeedOptions

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case csv, json }
    @Option(help: "Output format: csv or json.")
    var format: OutputFormat = .csv

    @Option(name: .shortAndLong, help: "Output file (default: standard output). Written atomically.")
    var output: String?

    func run() throws {
        let s = try loadScenario(scenario)
        let input = BundledScenarios.resolve(scenario)
        try checkOutput(output, inputs: [input])
        let sim = try Simulator(scenario: s)
        var epochs: [Epoch] = []
        if walk == "grid" {
            epochs = sim.simulate(points: sim.testPoints(), seed: seed.seed)
        } else if let walk {
            guard let w = s.walk(named: walk) else {
                printError("error: \(scenario): no walk named '\(walk)'; walks: \(s.walks.map(\.name).joined(separator: ", ")), or 'grid'")
                throw badInputExit
            }
            epochs = sim.simulate(walk: w, seed: seed.seed)
        } else {
            for w in s.walks { epochs += sim.simulate(walk: w, seed: seed.seed) }
        }
        let text = format == .csv ? EpochCSV.encode(epochs, scenario: s) : try jsonString(EpochJSON.File(scenario: s, seed: seed.seed, epochs: epochs))
        try writeOutput(text, to: output, inputs: [input])
    }
}
