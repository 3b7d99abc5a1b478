import ArgumentParser
import LabCore

@main
struct IndoorLab: ParsableCommand {
    /// Runs the command; input errors anywhere (a file, a line, a field) print cleanly and exit 2.
    static func main() {
        // An unknown command gets a suggestion ("simualte" → simulate), not just "unexpected argument".
        let names = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        if let first = CommandLine.arguments.dropFirst().first, !first.hasPrefix("-"), !names.contains(first) {
            printError("error: unknown command '\(first)'\(didYouMean(first, among: names)); commands: \(names.dropLast().joined(separator: ", ")) (see indoorlab --help)")
            exit(withError: ExitCode(64))
        }
        var command: any ParsableCommand
        do { command = try parseAsRoot() } catch { exitReporting(error) }
        do {
            try reportingInputErrors {
                try command.run()
                try flushStandardOutput()
            }
        } catch let e as ValidationError {
            // A usage error found while running (two scenarios with one name, a --real without datasets): that
            // command's usage, as for one found while parsing.
            let sub = type(of: command)
            printError("Error: \(e.message)\nUsage: \(usageString(for: sub))\n  See 'indoorlab \(sub.configuration.commandName ?? "") --help' for more information.")
            exit(withError: ExitCode.validationFailure)
        } catch {
            exitReporting(error)
        }
    }

    /// Exits as swift-argument-parser would for `error`, its message printed through ``printError(_:)``: a refused value
    /// from the command line is shown with its control characters escaped. Help and the version go to standard output.
    static func exitReporting(_ error: any Error) -> Never {
        let code = exitCode(for: error)
        if code == .success { exit(withError: error) }
        let message = fullMessage(for: error)
        if !message.isEmpty { printError(message) }
        exit(withError: code)
    }

    static let configuration = CommandConfiguration(
        commandName: "indoorlab",
        abstract: "Simulate, estimate, evaluate and plot BLE indoor positioning.",
        discussion: """
        Data flows one way: scenario (YAML) → readings → fixes → results → plots.
        Every random draw comes from --seed: the same inputs give the same outputs.
        Bundled scenarios (by name, e.g. open-hall) are found in $INDOORLAB_SCENARIOS, ./Scenarios, PREFIX/share/indoorlab/Scenarios beside an installed PREFIX/bin/indoorlab (make install PREFIX=…), or the source tree the binary was built in.

        Exit codes:
          0   success
          1   a check failed (a replay regression or strict gate, a planning target)
          2   bad input (the file, line and field are named)
          3   a recording stayed locked by another process (INDOORLAB_BUSY_TIMEOUT)
          64  a wrong option
        """,
        version: indoorlabVersion,
        subcommands: [Validate.self, Simulate.self, Compare.self, Plot.self, Plan.self, Tune.self, Sweep.self, Record.self, Import.self, Replay.self, Calibrate.self, Coverage.self, Bench.self, Serve.self, Phone.self])
}
