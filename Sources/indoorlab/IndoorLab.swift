import ArgumentParser

@main
struct IndoorLab: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "indoorlab",
        abstract: "Simulate, estimate, evaluate and plot BLE indoor positioning.",
        discussion: """
        Data flows one way: scenario (YAML) → simulated or recorded readings → fixes → results → plots.
        Exit codes: 0 success, 1 a check failed (e.g. a replay regression), 2 bad input.
        """,
        subcommands: [Validate.self, Simulate.self, Compare.self, Plot.self, Plan.self, Tune.self, Record.self, Import.self, Replay.self, Calibrate.self, Bench.self])
}
