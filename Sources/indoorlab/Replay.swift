import ArgumentParser
import Foundation
import LabCore
import LabScenarioIO
import LabEstimators
import LabEvaluation
import LabStore
import LabReport
import LabResults

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay recordings through the estimators and check the accuracy against the stored baselines.",
        discussion: """
        Each recording's samples are grouped into scan windows; windows with ground truth are scored as 'compare' scores them. Stored baselines (estimator, metric, value, tolerance) are checked: an error metric (mean, median, p75, p90, rmse; metres) regresses when it exceeds value + tolerance, a rate (availability, room-hit, exhibit-hit, frieze-hit) when it falls below value − tolerance.

        --update-baseline stores the current figures instead, with tolerance max(0.05 m, 10 %) for errors and 0.02 for rates, replacing the baselines of the estimators run. Baselines live in the recording and, for review, in NAME.baselines.json beside NAME.sqlite (sorted keys, one figure per entry): when that file exists replay checks against it; --update-baseline writes both.

        --strict (the CI gate): a recording with no baseline checked, or without both estimators the library ships among those checked (offset-learning, its one-scan fix; particle-filter, its stream), fails too. --junit FILE writes JUnit XML, one test case per recording × estimator × metric.

        Runs on one recording wait for each other's lock (INDOORLAB_BUSY_TIMEOUT seconds, default 30), so concurrent runs lose nothing; a write interrupted by a kill is rolled back on the next open.

        Exit codes: 0 every baseline holds (or was updated), 1 a regression (a table of what moved is printed) or a strict failure, 2 bad input (missing, non-SQLite, truncated, foreign or invalid file; the table, row and column are named), 3 a recording stayed locked past the wait.

        Default estimators: those with stored baselines, else all.
        Example: indoorlab replay --strict --junit out/replay.xml Recordings/*.sqlite
        """)

    @Argument(help: "Recording files.")
    var files: [String]

    @Option(help: "Comma-separated estimators, or 'all' (default: those with baselines, else all).", transform: EstimatorList.parse)
    var estimators: [EstimatorKind]?

    @Flag(help: "Print the results as JSON.")
    var json = false

    @Flag(help: "Store the current figures as the baselines.")
    var updateBaseline = false

    @Option(help: "Score with this radio model (a 'calibrate --save-fit' file) instead of each recording's own: a model fitted on other data.")
    var radio: String?

    @Flag(help: "The CI gate: also fail when a recording has no baseline checked or either estimator the library ships (the one-scan fix and the stream's tracker) is not among those checked.")
    var strict = false

    @Option(help: "Write the verdicts as JUnit XML here (one test case per recording × estimator × metric).")
    var junit: String?

    func validate() throws {
        if radio != nil && updateBaseline { throw ValidationError("--radio and --update-baseline do not go together: baselines hold the recording's own model") }
        if strict && updateBaseline { throw ValidationError("--strict checks baselines; --update-baseline replaces them: run one, then the other") }
        if junit != nil && updateBaseline { throw ValidationError("--junit reports checks; --update-baseline replaces the baselines instead of checking them") }
    }

    func run() throws {
        // Every file is read and checked before anything runs or is written.
        for (i, a) in files.enumerated() {
            if let b = files[..<i].first(where: { samePath(a, $0) }) {
                throw ValidationError("\(a) and \(b) are the same recording: give each recording once")
            }
        }
        let inputs = files + files.map(BaselineFile.path(forRecording:)) + (radio.map { [$0] } ?? [])
        try reportingInputErrors { try checkOutput(junit, inputs: inputs) }
        let gate = ReplayGate(estimators: estimators, updateBaseline: updateBaseline, strict: strict)
        let outcome = try reportingInputErrors {
            let recordings = try ReplayGate.load(files: files, radio: radio) { printError("note: \($0)") }
            return try gate.run(recordings, files: files)
        }
        if let junit { try writeOutput(JUnitReport.xml(outcome.junitSuites), to: junit, inputs: inputs) }
        if json {
            try writeOutput(jsonString(ReplayReport(outcome)), to: nil)
        } else {
            print(ReplayTable.render(outcome, updatingBaselines: updateBaseline), terminator: "")
        }
        if !outcome.passed { throw ExitCode(1) }
    }
}
