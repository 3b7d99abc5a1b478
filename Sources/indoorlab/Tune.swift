import ArgumentParser
import Foundation
import LabCore
import LabEvaluation
import LabStore
import LabScenarioIO
import LabEstimators
import LabPlanning
import LabReport

struct Tune: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tune",
        abstract: "Move a scenario's beacons along their mounts to lower the error; report before and after.",
        discussion: """
        Beacons within 1 m of a wall or room edge slide along it; others move within 4 m. The search uses the Cramér–Rao bound; the result is checked by simulation with the library's one-scan fix (\(EstimatorKind.shipped.rawValue), the best snapshot estimator: each test point is one scan), and if the simulated area P90 got worse the original layout is kept (and the output says so).

        Example: indoorlab tune museum-gallery -o out/museum-tuned.yaml
        """)

    @Argument(help: "Scenario file or bundled name.")
    var scenario: String

    @Option(parsing: .unconditional, help: "Move at most this many beacons (the ones whose moves help most).")
    var beacons: Int?

    @Option(parsing: .unconditional, help: "Simulated scan windows per test point for the before/after check.")
    var draws: Int = 20

    @OptionGroup var seed: SeedOptions

    @Option(name: .shortAndLong, help: "Write the scenario with the tuned beacons here (YAML).")
    var output: String?

    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        if let beacons, beacons < 1 { throw ValidationError("--beacons must be at least 1") }
        guard draws >= 1 && draws <= Planner.maximumDraws else { throw ValidationError("--draws must be 1–\(Planner.maximumDraws)") }
    }

    func run() throws {
        let path = BundledScenarios.resolve(scenario)
        let s = try loadScenario(scenario)
        let fewest = EstimatorKind.shipped.inputs.minimumBeacons
        guard s.beacons.count >= fewest else {
            throw InputError(file: path, field: "beacons", "\(s.beacons.count) beacon\(s.beacons.count == 1 ? " gives" : "s give") no fix anywhere: "
                             + "the one-scan fix needs \(fewest) heard, and tune only moves beacons ('indoorlab plan' places them for a target error)")
        }
        try checkOutput(output, inputs: [path])
        var o = Tuner.Options()
        o.maxMoved = beacons; o.draws = draws; o.seed = seed.seed
        o.estimator = .shipped
        let progress = Progress("tune", total: 0)
        let tuner = Tuner(scenario: s, options: o)
        if let problem = tuner.workProblem() { throw ValidationError(problem) }
        let result = try tuner.run { progress.note($0) }
        progress.finish()
        // A layout no move gets a fix from is no layout to tune: the radio model hears too little (P0, exponent,
        // sensitivity, walls' losses). Said before anything is written.
        let figures = [result.before, result.after] + (result.rejected.map { [$0] } ?? [])
        if figures.allSatisfy({ !$0.predicted.areaQuantile.isFinite && !$0.simulated.areaQuantile.isFinite }) {
            throw InputError(file: path, field: "radio", "the beacons give no fix on \(Int((o.coverage * 100).rounded()))% of the walkable points, before and after every move tried: "
                             + "check the radio model (p0, exponent, sensitivity) and the walls' losses")
        }
        if let output {
            let original = try String(contentsOfFile: path, encoding: .utf8)
            let note = "Beacons moved by 'indoorlab tune\(beacons.map { " --beacons \($0)" } ?? "") --seed \(seed.seed)'."
            try writeOutput(try ScenarioWriter.yaml(replacingBeaconsIn: original, file: path, with: result.beacons, kept: s.beacons, note: note), to: output, inputs: [path])
        }
        if json {
            try writeOutput(jsonString(result), to: nil)
            return
        }
        print(TuneReport.text(scenario: s.name, result: result), terminator: "")
        if let output { print("scenario written to \(output)") }
    }
}
