import ArgumentParser
import Foundation
import LabCore
import LabEstimators
import LabEvaluation
import LabStore
import LabPlot
import LabScenarioIO

/// Exit code for bad input (a file, a field, an option): scripts can tell it from a failed check (1).
let badInputExit = ExitCode(2)
/// Exit code for a file another process kept locked past the wait: nothing is wrong with it; run again.
let busyExit = ExitCode(3)

/// Prints an error to standard error. Messages quote files and command lines: their control characters are shown
/// (`\u{1B}`), never sent to the terminal (``showingControls(_:keepingLineBreaks:)``).
func printError(_ message: String) {
    let shown = showingControls(message)
    // Nowhere left to report a failure to write the report: it is dropped (the exit code still tells).
    try? FileHandle.standardError.write(contentsOf: Data((shown.hasSuffix("\n") ? shown : shown + "\n").utf8))
}

/// What the commands print to standard output, with control characters shown, never sent to the terminal (names and
/// ids come from files). It stands in for the standard library's `print` throughout this module.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Swift.print(showingControls(items.map { "\($0)" }.joined(separator: separator)), terminator: terminator)
}

/// Loads a scenario by path or bundled name; prints every problem and exits with code 2 on bad input.
/// A valid scenario's likely mistakes (``Scenario/warnings``) go to standard error.
func loadScenario(_ nameOrPath: String) throws -> Scenario {
    let s = try reportingInputErrors { try BundledScenarios.load(nameOrPath) }
    for w in s.warnings { printError("warning: \(BundledScenarios.resolve(nameOrPath)): \(w)") }
    return s
}

/// The creation time stored in new recordings: `$SOURCE_DATE_EPOCH` (seconds) when set, for byte-identical
/// files from the same inputs (the reproducible-builds convention); otherwise now.
/// A malformed value is bad input (the reproducible-builds specification asks for an error, not the clock).
func creationDate() throws -> Date {
    guard let s = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"] else { return Date() }
    guard let t = Int64(s.trimmingCharacters(in: .whitespaces)), t >= 0 else {
        throw InputError(file: "environment", field: "SOURCE_DATE_EPOCH", "expected a whole number of seconds since 1970-01-01 UTC, found '\(abbreviated(s))'")
    }
    return Date(timeIntervalSince1970: TimeInterval(t))
}


/// Runs `body`, printing input errors (with file, line and field) and exiting with code 2 on them.
@discardableResult
func reportingInputErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let e as InputError {
        printError("error: \(e)")
        throw badInputExit
    } catch let e as InputErrors {
        printError(e.errors.map { "error: \($0)" }.joined(separator: "\n"))
        throw badInputExit
    } catch let e as FileBusy {
        printError("error: \(e)")
        throw busyExit
    } catch let e as PlotError {
        // A figure that could not be written whole (a full disk, a read-only folder): bad output, the old one kept.
        printError("error: \(e)")
        throw badInputExit
    }
}

/// Writes `text` to `path` (``OutputFile``: atomically, through links, never over one of `inputs`), or to
/// standard output when path is nil or "-".
func writeOutput(_ text: String, to path: String?, inputs: [String] = []) throws {
    guard let path, path != "-" else {
        fflush(nil)   // what print(_:) buffered goes first
        do { try FileHandle.standardOutput.write(contentsOf: Data(text.utf8)) } catch { throw standardOutputError(errno) }
        return
    }
    try OutputFile.write(Data(text.utf8), to: path, inputs: inputs)
}

/// Standard output could not take what was written (a full disk, a closed pipe): bad output, exit code 2, not a
/// success whose output was lost.
func standardOutputError(_ code: Int32) -> InputError {
    InputError(file: "standard output", "could not be written (\(String(cString: strerror(code)))): the output is incomplete")
}

/// Flushes what `print` buffered (every C stream: standard output is the one a command writes) and throws
/// ``standardOutputError(_:)`` when it could not be written (checked once, as the command ends; glibc keeps what it
/// could not write and tries it again here).
func flushStandardOutput() throws {
    if fflush(nil) != 0 { throw standardOutputError(errno) }
}

/// `items` as given, or a usage error naming the first one listed twice (`--conditions ideal,ideal` would run and
/// report everything twice, and results are kept by name).
func refusingRepeats<T>(_ items: [T], _ name: (T) -> String) throws -> [T] {
    var seen = Set<String>()
    for item in items where !seen.insert(name(item)).inserted {
        throw ValidationError("'\(name(item))' is listed twice")
    }
    return items
}

/// Refuses scenarios that share a name (the same file given twice, or two files with one `name`): results, files
/// and figures are keyed by it, so they would be merged.
func checkDistinctNames(_ loaded: [Scenario], paths: [String]) throws {
    if let twice = Dictionary(grouping: zip(loaded, paths), by: { $0.0.name }).first(where: { $0.value.count > 1 }) {
        throw ValidationError("two scenarios are named '\(twice.key)' (\(twice.value.map(\.1).joined(separator: ", "))): results are kept by name, so give each its own 'name' (or list each scenario once)")
    }
}

/// Whether two paths name the same file: the same file on disk, or (not yet written) the same absolute path.
func samePath(_ a: String, _ b: String) -> Bool {
    OutputFile.isSameFile(a, b) || URL(fileURLWithPath: a).standardizedFileURL.path == URL(fileURLWithPath: b).standardizedFileURL.path
}

/// An error quantile in metres for plan and tune; +∞ (more than the quantile's share of points, or of a point's
/// scans, got no fix) reads "no fix".

/// Refuses, before any work, an output that is one of the command's inputs or cannot name a file.
func checkOutput(_ path: String?, inputs: [String]) throws {
    guard let path, path != "-" else { return }
    try OutputFile.refuseNonFiles(path)
    try OutputFile.refuseInputs(path, inputs: inputs)
}

/// Options shared by every command that draws random numbers.
struct SeedOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Seed for every random draw; the same seed gives byte-identical output (default: 1).", transform: parseSeed)
    var seed: UInt64 = 1
}

/// A seed: a whole number from 0 to 2⁶⁴ − 1.
func parseSeed(_ text: String) throws -> UInt64 {
    guard let v = UInt64(text.trimmingCharacters(in: .whitespaces)) else {
        throw ValidationError("expected a whole number from 0 to \(UInt64.max), found '\(text)'")
    }
    return v
}

/// A progress line on standard error, only when it is a terminal.
final class Progress: @unchecked Sendable {
    private let total: Int
    private let label: String
    private var done = 0
    private let lock = NSLock()
    private let enabled = isatty(STDERR_FILENO) != 0

    init(_ label: String, total: Int) { self.label = label; self.total = total }

    /// A free-form progress line (for searches without a known total).
    func note(_ message: String) {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(label): \(message)".utf8))
    }

    /// Clears a line of notes (what follows starts on a clean line).
    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// Ends a line of notes.
    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }

    /// Counts one more unit done; `detail` says which (e.g. the scenario and seed just finished).
    /// The line is cleared when everything is done.
    func advance(_ by: Int = 1, detail: String = "") {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        done += by
        FileHandle.standardError.write(Data("\r\u{1B}[K\(label): \(done)/\(total)\(detail.isEmpty ? "" : "  (\(detail))")".utf8))
        if done >= total { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}

func jsonString<T: Encodable>(_ value: T) throws -> String { try LabJSON.string(value) }

/// Output directories made before any work, so a path that cannot be a directory (a file on the way, no
/// permission) fails in a moment, not after a long run; ``finish(succeeded:)`` removes those made here if the
/// run failed and they are still empty.
struct OutputDirectories {
    private var made: [String] = []

    /// `dirs`: each option's name and value (nil = not given).
    init(_ dirs: [(option: String, path: String?)]) throws {
        for case let (option, path?) in dirs {
            var problem = createDirectories(path, created: &made).map { "cannot make the output directory: \($0)" }
            if problem == nil, access(path, W_OK | X_OK) != 0 {
                problem = "cannot write into the output directory: \(String(cString: strerror(errno)))"
            }
            if let problem {
                finish(succeeded: false)
                throw InputError(file: path, field: option, problem)
            }
        }
    }

    func finish(succeeded: Bool) {
        if !succeeded { removeCreatedDirectories(made) }
    }
}

/// A two-column list for `--help` text, wrapped by us with a hanging indent: "  name   summary…" with the
/// summary's later lines under its first. ArgumentParser keeps lines that fit its width (80 columns off a
/// terminal) and would wrap longer ones to the left margin.
func hangingList(_ rows: [(name: String, text: String)], width: Int = 79) -> String {
    let indent = 2 + (rows.map(\.name.count).max() ?? 0) + 2
    return rows.map { row in
        var lines: [String] = [], line = "  " + row.name.padding(toLength: indent - 2, withPad: " ", startingAt: 0)
        var fresh = true
        for word in row.text.split(separator: " ") {
            if !fresh && line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent)
                fresh = true
            }
            line += (fresh ? "" : " ") + word
            fresh = false
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }.joined(separator: "\n")
}

/// A recording's `--name` goes into tables, JUnit reports and terminals: not empty, no control characters (an
/// escape sequence would be replayed to whoever reads the output).
func checkRecordingName(_ name: String?) throws {
    guard let name else { return }
    if name.isEmpty || name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
        throw ValidationError("--name must be a non-empty name without control characters")
    }
}
