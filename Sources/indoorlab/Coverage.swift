import ArgumentParser
import Foundation
import LabCore
import LabScenarioIO
import LabEstimators
import LabEvaluation
import LabReport

struct Coverage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coverage",
        abstract: "Check the stated uncertainty: how often the 95% ellipse holds the truth.",
        discussion: """
        Runs an estimator (default: offset-learning, the library's one-scan fix; particle-filter is the library's stream) over the tournament's epochs of each scenario, in each condition, with independent shadowing and with correlated shadowing (--correlation metres, Gudmundson), and counts the fixes whose 95% ellipse contains the true position. An honest ellipse holds it in about 95% of fixes; the IndoorLocator library's target is 93–97%. "on walks" is the share among the fixes on walks (a tracker's own ellipses; on a static point, a new track, a tracker states its first scan's posterior). "walk misses across a wall" is the share of the walk fixes outside their ellipse that have a wall between them and the truth: a track on the wrong side of a wall, which no scaling of a covariance mends. The last column is the factor the stated covariances would need for exactly 95%.

        Examples: indoorlab coverage --seeds 5 --conditions ideal,field
                  indoorlab coverage --estimator particle-filter --seeds 5
        """)

    @Argument(help: "Scenario files or bundled names (default: every bundled scenario).")
    var scenarios: [String] = []

    @Option(parsing: .unconditional, help: "Number of seeds per scenario (seeds S, S+1, …, S+N−1 with S from --seed), 1–10000.")
    var seeds: Int = 5

    @Option(parsing: .unconditional, help: "First seed.")
    var seed: UInt64 = 1

    @Option(help: "The estimators whose ellipses are checked, comma-separated (default: offset-learning, the library's one-scan fix; particle-filter for its stream). --json takes one.", transform: EstimatorList.parse)
    var estimator: [EstimatorKind] = [.shipped]

    @Option(help: "Comma-separated conditions: ideal, field. Default: both.", transform: Compare.parseConditions)
    var conditions: [SimulationCondition] = [.ideal, .field]

    @Option(parsing: .unconditional, help: "Decorrelation distance of the correlated-shadowing runs, metres.")
    var correlation: Double = UncertaintyCoverage.defaultCorrelationDistance

    @Flag(help: "Print the table as JSON.")
    var json = false

    @Option(help: "Also write the tables as a Markdown document here (what `make demo` keeps in docs/coverage.md).")
    var report: String?

    func validate() throws {
        guard (1...10_000).contains(seeds) else { throw ValidationError("--seeds must be between 1 and 10000, found \(seeds)") }
        if seeds > 1, seed > UInt64.max - UInt64(seeds - 1) {
            throw ValidationError("--seed \(seed) with --seeds \(seeds) runs past the last seed, \(UInt64.max)")
        }
        guard correlation > 0, correlation.isFinite else { throw ValidationError("--correlation must be a positive number of metres") }
        guard estimator.count == 1 || !json else { throw ValidationError("--json takes exactly one --estimator") }
        guard !conditions.isEmpty else { throw ValidationError("--conditions needs at least one of ideal, field") }
    }

    func run() throws {
        let paths = scenarios.isEmpty ? BundledScenarios.paths() : scenarios.map(BundledScenarios.resolve)
        guard !paths.isEmpty else { throw ValidationError("no scenarios given, and \(BundledScenarios.noneFound)") }
        let loaded = try paths.map { try loadScenario($0) }
        try checkDistinctNames(loaded, paths: paths)
        let seedList = (0..<seeds).map { seed + UInt64($0) }  // validate() keeps it below UInt64.max
        let correlations: [Double?] = [nil, correlation]
        let progress = Progress("coverage", total: estimator.count * loaded.count * conditions.count * correlations.count)
        var tables: [CoverageTable] = []
        for kind in estimator {
            var rows: [CoverageRow] = []
            for s in loaded {
                for c in conditions {
                    for d in correlations {
                        rows.append(try UncertaintyCoverage.measure(scenario: s, condition: c, correlationDistance: d, seeds: seedList, estimator: kind))
                        progress.advance(detail: "\(kind.rawValue), \(c.label(s.name))")
                    }
                }
            }
            try checkMeasured(rows, estimator: kind, scenarios: loaded)
            tables.append(CoverageTable(estimator: kind.rawValue, seeds: seedList, rows: rows))
        }
        progress.clear()
        if let report { try writeOutput(CoverageTable.document(tables, command: commandLine), to: report, inputs: paths) }
        if json {
            try writeOutput(jsonString(CoverageReport(estimator: tables[0].estimator, level: UncertaintyCoverage.level, seeds: seedList, rows: tables[0].rows)), to: nil)
            return
        }
        print(tables.map { $0.text() }.joined(separator: "\n"), terminator: "")
    }

    /// Fails when `estimator` fixed nothing, or stated no ellipse on any fix: nothing to measure.
    func checkMeasured(_ rows: [CoverageRow], estimator kind: EstimatorKind, scenarios loaded: [Scenario]) throws {
        guard rows.allSatisfy({ $0.fixes == 0 }) else { return }
        let without = rows.reduce(0) { $0 + $1.withoutEllipse }
        guard without > 0 else {
            // No fix at all is the scenario's doing (too few beacons heard), not a wrong option.
            printError("error: coverage: \(kind.rawValue) fixed no epoch of \(loaded.map(\.name).joined(separator: ", ")): nothing to measure")
            throw ExitCode(1)
        }
        throw ValidationError("--estimator \(kind.rawValue) stated no uncertainty ellipse (\(without) fixes without one): coverage checks an estimator that states its uncertainty, such as offset-learning or particle-filter")
    }

    /// This run as a reader would type it (for the coverage document).
    var commandLine: String {
        var words = ["indoorlab coverage"] + scenarios + ["--seeds \(seeds)"]
        if seed != 1 { words.append("--seed \(seed)") }
        words.append("--estimator \(estimator.map(\.rawValue).joined(separator: ","))")
        words.append("--conditions \(conditions.map(\.rawValue).joined(separator: ","))")
        if correlation != UncertaintyCoverage.defaultCorrelationDistance { words.append("--correlation \(Format.number(correlation))") }
        return words.joined(separator: " ")
    }
}
