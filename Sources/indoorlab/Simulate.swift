import ArgumentParser
import Foundation
import LabCore
import LabEstimators
import LabEvaluation
import LabStore
import LabScenarioIO
import LabSimulation

struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
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

enum EpochCSV {
    static let header = "walk,epoch,epoch_t,truth_x,truth_y,room,type,t,id,value,target"

    static func encode(_ epochs: [Epoch], scenario s: Scenario) -> String {
        var out = header + "\n"
        out.reserveCapacity(epochs.count * 40 * 64)
        for e in epochs {
            let prefix = "\(e.walk ?? "grid"),\(e.index),\(Format.fixed(e.t, 3)),\(Format.fixed(e.truth.x, 3)),\(Format.fixed(e.truth.y, 3)),\(e.room.map { s.rooms[$0].name } ?? "")"
            for r in e.readings {
                out += "\(prefix),rssi,\(Format.fixed(r.t, 3)),\(s.beacons[r.beacon].id),\(Format.fixed(r.rssi, s.radio.quantize ? 0 : 2)),\n"
            }
            for h in e.headings {
                out += "\(prefix),heading,\(Format.fixed(h.t, 3)),\(h.frieze.map { s.landmarks[$0].name } ?? ""),\(Format.fixed(h.heading, 2)),\(h.target.map { s.landmarks[$0].name } ?? "")\n"
            }
            if let c = e.checkpoint {
                out += "\(prefix),checkpoint,\(Format.fixed(e.t, 3)),\(s.checkpoints[c].id),,\n"
            }
            for st in e.steps ?? [] {
                out += "\(prefix),step,\(Format.fixed(st.t, 3)),,\(Format.fixed(st.length, 3)),\(Format.fixed(st.heading, 2))\n"
            }
        }
        return out
    }
}

enum EpochJSON {
    struct File: Encodable {
        var scenario: String
        var seed: UInt64
        var epochs: [E]
        init(scenario s: Scenario, seed: UInt64, epochs: [Epoch]) {
            self.scenario = s.name
            self.seed = seed
            self.epochs = epochs.map { E($0, s) }
        }
    }
    struct E: Encodable {
        var walk: String?, index: Int, t: Double, truth: Point, room: String?, checkpoint: String?
        var readings: [R], headings: [H]
        /// Present when the scenario has pdr.
        var steps: [StepReading]?
        init(_ e: Epoch, _ s: Scenario) {
            walk = e.walk; index = e.index; t = e.t; truth = e.truth
            room = e.room.map { s.rooms[$0].name }
            checkpoint = e.checkpoint.map { s.checkpoints[$0].id }
            readings = e.readings.map { R(beacon: s.beacons[$0.beacon].id, t: $0.t, rssi: $0.rssi) }
            headings = e.headings.map { H(t: $0.t, heading: $0.heading, accuracy: $0.accuracy,
                                          frieze: $0.frieze.map { s.landmarks[$0].name }, target: $0.target.map { s.landmarks[$0].name }) }
            steps = e.steps
        }
    }
    struct R: Encodable { var beacon: String, t: Double, rssi: Double }
    struct H: Encodable { var t: Double, heading: Double, accuracy: Double, frieze: String?, target: String? }
}
