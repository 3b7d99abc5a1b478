import ArgumentParser
import Foundation
import LabCore
import LabStore
import LabScenarioIO
import LabSimulation
import LabEstimators
import LabEvaluation
import LabBench
import LabReport

/// The lab's benchmark: prints throughput figures; never asserts a time.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the lab's speed: simulation, every estimator, IndoorLocator, the tournament, import.",
        discussion: "Single-core figures unless the name says \"N cores\" (least-squares and offset-free are also timed with one estimator per core, and IndoorLocator with a locator per core: their throughput targets sit there); each the median of --rounds rounds, with the slowest and fastest round.\n\nExample: indoorlab bench --json\n\nTo count a figure's instructions, give it a fixed amount of work: valgrind --tool=callgrind indoorlab bench --only locator --figure 'IndoorLocator fixes/s' --work 3000 --rounds 1 (docs/speed.md).")

    @Flag(help: "Print the figures as JSON.")
    var json = false

    @Option(parsing: .unconditional, help: "Approximate seconds to spend on each figure.")
    var seconds: Double = 1.0

    @Option(parsing: .unconditional, help: "Rounds each figure's seconds are split into, 1–100; the figure is their median, printed with the slowest and fastest round (on a shared machine one round can run at half speed).")
    var rounds: Int = LabBenchmark.defaultRounds

    @Option(parsing: .unconditional, help: ArgumentHelp("Instead of --seconds, do this many of each rated figure's units (fixes, scan updates, locations, readings) in each round, however long it takes: a fixed amount of work, for counting instructions. The tournament is a fixed amount already; the import figure still times 1 M-reading imports for --seconds.", valueName: "units"))
    var work: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Only the figures whose whole name matches this, case-insensitively, each * standing for any text: 'IndoorLocator fixes/s' is that figure, '*offset-free*' every offset-free one. The others are skipped.", valueName: "pattern"))
    var figure: String?

    @Flag(help: "Skip the full tournament timing (5 scenarios × 10 seeds × all estimators).")
    var skipTournament = false

    @Option(help: ArgumentHelp("Only these groups, comma-separated: \(LabBenchmark.Group.allCases.map(\.rawValue).joined(separator: ", ")).",
                               valueName: "groups"))
    var only: String?

    func validate() throws {
        guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be more than 0 and at most 3600") }
        guard (1...100).contains(rounds) else { throw ValidationError("--rounds must be between 1 and 100, found \(rounds)") }
        if let work, work < 1 || work > 1_000_000_000 { throw ValidationError("--work must be between 1 and 1000000000 units, found \(work)") }
        if let figure, figure.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--figure needs a figure's name, or a pattern with * in it") }
        if only != nil && skipTournament { throw ValidationError("--skip-tournament and --only do not go together: --only lists the groups that run") }
        _ = try groups()
    }

    func groups() throws -> Set<LabBenchmark.Group> {
        guard let only else { return Set(LabBenchmark.Group.allCases.filter { $0 != .tournament || !skipTournament }) }
        guard !only.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("--only needs at least one group; the groups are \(LabBenchmark.Group.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        // As compare's lists: a group named twice is refused.
        return Set(try refusingRepeats(only.split(separator: ",").map { name in
            let n = name.trimmingCharacters(in: .whitespaces)
            guard let g = LabBenchmark.Group(rawValue: n) else {
                throw ValidationError("--only: unknown group '\(n)'; the groups are \(LabBenchmark.Group.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return g
        }, \.rawValue))
    }

    func run() throws {
        let chosen = try groups()
        let figures = try reportingInputErrors { try LabBenchmark.run(seconds: seconds, rounds: rounds, groups: chosen, work: work, figure: figure) }
        if figures.isEmpty, let figure {
            throw ValidationError("--figure: no figure of the groups run matches '\(figure)' (the names are those `indoorlab bench` prints; * stands for any text)")
        }
        if json {
            try writeOutput(jsonString(figures), to: nil)
        } else {
            for f in figures {
                // The targets here are floors (the tournament's ceiling is in its note).
                let target = f.target.map { "  (target ≥ \(Bench.human($0))\(f.value < $0 ? ", not met" : ""))" } ?? ""
                let width = figures.map(\.name.count).max() ?? 0
                var spread = ""
                if let n = f.rounds, n > 1, let lo = f.lowest, let hi = f.highest { spread = "  [\(n) rounds \(Bench.human(lo))–\(Bench.human(hi))]" }
                // With a fixed amount of work, what each round did: what an instruction count divides by.
                var done = ""
                if work != nil, let units = f.units {
                    done = "  [\(units.map(String.init).joined(separator: " / ")) \(f.unit.replacingOccurrences(of: "/s", with: "")) a round]"
                }
                print("\(f.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(Bench.human(f.value).leftPad(10)) \(f.unit)\(target)\(spread)\(done)  \(f.note)")
            }
        }
    }

    static func human(_ v: Double) -> String {
        if v >= 1e6 { return Format.fixed(v / 1e6, 2) + " M" }
        if v >= 1e3 { return Format.fixed(v / 1e3, 1) + " k" }
        return Format.fixed(v, 1)
    }

}

