import ArgumentParser
import Foundation
import LabCore
import LabEvaluation
import LabStore
import LabScenarioIO
import LabEstimators
import LabPlanning
import LabPlot
import LabReport

struct Plan: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Find the fewest beacons, and their places, that reach a P90 error target over the rooms.",
        discussion: """
        Searches with the Cramér–Rao bound (predicted P90 = 1.517·√CRLB per point), then confirms each promising layout by simulation with the library's one-scan fix (\(EstimatorKind.shipped.rawValue), the best snapshot estimator: each test point is one scan; the tournament's winner, the particle filter, tracks walks). The area P90 is the --coverage quantile of the per-point P90 errors: the target is met on that share of the rooms exactly when it is ≤ the target. The scenario's own beacons are ignored; its walls, rooms and radio are used.

        Writes the scenario with the planned beacons (-o), and the plots <scenario>-beacon-count and <scenario>-plan-map (PNG and SVG) in --plots. Exit code 0 when the target is met, 1 when it cannot be (the best layout found is still reported and written), 2 on bad input.

        Example:
          indoorlab plan open-hall --target-p90 2 --coverage 0.9 \\
              -o out/open-hall-planned.yaml
        """)

    @Argument(help: "Scenario file or bundled name.")
    var scenario: String

    @Option(name: .customLong("target-p90"), parsing: .unconditional, help: "Target P90 error, metres.")
    var targetP90: Double

    @Option(parsing: .unconditional, help: "Share of the walkable area (0–1] that must meet the target.")
    var coverage: Double = 0.9

    @Option(help: "Where beacons may go: walls (walls and room edges) or grid (anywhere in the rooms).")
    var mount: Mount = .walls

    @Option(parsing: .unconditional, help: "Spacing of candidate beacon positions, metres.")
    var candidateSpacing: Double = 2

    @Option(parsing: .unconditional, help: "Spacing of the walkable test points, metres.")
    var pointSpacing: Double = 1.5

    @Option(parsing: .unconditional, help: "Give up above this many beacons.")
    var maxBeacons: Int = 40

    @Option(parsing: .unconditional, help: "Simulated scan windows per test point when confirming a layout.")
    var draws: Int = 20

    @Option(parsing: .unconditional, help: "The bound's model counts a beacon at a point only where its mean reading is at least this many dB above the sensitivity (the simulation hears every beacon).")
    var reachMargin: Double = Planner.defaultReachMargin

    @Option(parsing: .unconditional, help: "Further seeds the answer is confirmed with (seed + 1, seed + 2, …): the count each one's draws need is reported as the answer's spread. 0 turns it off.")
    var spreadSeeds: Int = 2

    @OptionGroup var seed: SeedOptions

    @Option(name: .shortAndLong, help: "Write the scenario with the planned beacons here (YAML).")
    var output: String?

    @Option(help: "Directory for the beacon-count and plan-map plots, created if missing (make demo gives Plots/).")
    var plots: String = "out/plots"

    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        guard targetP90 > 0, targetP90.isFinite else { throw ValidationError("--target-p90 must be a positive number of metres") }
        guard coverage > 0 && coverage <= 1 else { throw ValidationError("--coverage must be in (0, 1]") }
        guard candidateSpacing > 0, pointSpacing > 0 else { throw ValidationError("spacings must be positive") }
        guard reachMargin.isFinite, (-30...60).contains(reachMargin) else { throw ValidationError("--reach-margin must be from -30 to 60 dB, found \(reachMargin)") }
        guard (0...20).contains(spreadSeeds) else { throw ValidationError("--spread-seeds must be between 0 and 20, found \(spreadSeeds)") }
        guard maxBeacons >= 3 else { throw ValidationError("--max-beacons must be at least 3, found \(maxBeacons)") }
        guard draws >= 1, draws <= Planner.maximumDraws else {
            throw ValidationError("--draws must be between 1 and \(Planner.maximumDraws), found \(draws)")
        }
    }

    func run() throws {
        let path = BundledScenarios.resolve(scenario)
        let s = try loadScenario(scenario)
        if let problem = Planner.workProblem(s, pointSpacing: pointSpacing, candidateSpacing: candidateSpacing, mount: mount) {
            throw ValidationError(problem)
        }
        try checkOutput(output, inputs: [path])
        let directories = try reportingInputErrors { try OutputDirectories([("--plots", plots)]) }
        var succeeded = false
        defer { directories.finish(succeeded: succeeded) }
        var o = Planner.Options(targetP90: targetP90)
        o.coverage = coverage; o.mount = mount; o.candidateSpacing = candidateSpacing; o.pointSpacing = pointSpacing
        o.maxBeacons = maxBeacons; o.draws = draws; o.seed = seed.seed; o.spreadSeeds = spreadSeeds; o.reachMargin = reachMargin
        o.estimator = .shipped
        let start = Date()
        let planner = Planner(scenario: s, options: o)
        let progress = Progress("plan", total: 0)
        let result = try planner.run { n, message in progress.note("\(n) beacons: \(message)") }
        progress.finish()
        let elapsed = Date().timeIntervalSince(start)

        let beacons = result.chosen.positions.isEmpty ? [] : planner.beacons(for: result.chosen.positions.compactMap { p in planner.model.candidates.firstIndex(of: p) })
        let written = output != nil && !beacons.isEmpty
        if let output, !beacons.isEmpty {
            let original = try String(contentsOfFile: path, encoding: .utf8)
            let note = "Beacons placed by 'indoorlab plan --target-p90 \(Format.metres(targetP90)) --coverage \(coverage) --mount \(mount.rawValue) --seed \(seed.seed)'."
            try writeOutput(try ScenarioWriter.yaml(replacingBeaconsIn: original, file: path, with: beacons, note: note), to: output, inputs: [path])
        }
        var figures: [String] = []
        if !result.steps.isEmpty {
            figures = try PlotRenderer.shared.render(PlanningFigures.beaconCount(scenario: s, result: result, options: o), to: plots + "/\(s.name)-beacon-count")
            figures += try PlotRenderer.shared.render(PlanningFigures.planMap(scenario: s, beacons: beacons, result: result, options: o), to: plots + "/\(s.name)-plan-map")
        }
        succeeded = true

        if json {
            try writeOutput(jsonString(PlanReport.JSON(scenario: s.name, result: result, plots: figures)), to: nil)
        } else {
            print(PlanReport.text(scenario: s.name, result: result, options: o), terminator: "")
            let scenarioNote = output.map { written ? "; scenario written to \($0)" : "; no beacons placed, so \($0) was not written" } ?? ""
            print(String(format: "%.1f s", elapsed) + scenarioNote + (figures.isEmpty ? "" : "; plots: \(figures.joined(separator: ", "))"))
        }
        if !result.met { throw ExitCode(1) }
    }
}

extension Mount: ExpressibleByArgument {}
