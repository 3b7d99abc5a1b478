import ArgumentParser
import LabCore
import LabEstimators
import LabEvaluation
import LabStore
import LabScenarioIO

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check scenario files and report every problem with file, line and field path.",
        discussion: """
        Exit code 0 when all files are valid, 2 otherwise. A valid file's likely mistakes (two beacons at one spot) are warnings on standard error, not failures. With --json, each file gives {file, valid, errors, warnings, summary}, each error {file, line, column, field, message} (keys absent when unknown), each warning {field, message}.

        Example: indoorlab validate Scenarios/*.yaml
        """)

    @Argument(help: "Scenario YAML files (or names of bundled scenarios).")
    var files: [String]

    @Flag(help: "Print the result as JSON.")
    var json = false

    /// One file's verdict; `errors` are objects with file, line, column, field (when known) and message; `warnings`
    /// (a valid file's likely mistakes, e.g. two beacons at one spot) objects with field and message.
    struct FileResult: Encodable {
        var file: String; var valid: Bool; var errors: [InputError]; var warnings: [ScenarioWarning] = []; var summary: String?
    }

    func run() throws {
        var results: [FileResult] = []
        for f in files {
            let path = BundledScenarios.resolve(f)
            do {
                let s = try BundledScenarios.load(f)   // a bare name that is no bundled scenario says where it looked
                func count(_ n: Int, _ noun: String) -> String { counted(n, noun) }
                let summary = "\(s.name): " + [count(s.beacons.count, "beacon"), count(s.rooms.count, "room"), count(s.walls.count, "wall"),
                                               count(s.landmarks.count, "landmark"), count(s.checkpoints.count, "checkpoint"),
                                               count(s.walks.count, "walk")].joined(separator: ", ")
                results.append(FileResult(file: path, valid: true, errors: [], warnings: s.warnings, summary: summary))
            } catch let e as InputErrors {
                results.append(FileResult(file: path, valid: false, errors: e.errors, summary: nil))
            } catch let e as InputError {
                results.append(FileResult(file: path, valid: false, errors: [e], summary: nil))
            }
        }
        if json {
            try writeOutput(jsonString(results), to: nil)
        } else {
            for r in results {
                if r.valid { print("ok  \(r.file)  (\(r.summary ?? ""))") } else { r.errors.forEach { printError("error: \($0)") } }
                r.warnings.forEach { printError("warning: \(r.file): \($0)") }
            }
        }
        if results.contains(where: { !$0.valid }) { throw badInputExit }
    }
}
