import ArgumentParser
import Foundation
import LabCore

/// Exit code for bad input (a file, a field, an option): scripts can tell it from a failed check (1).
let badInputExit = ExitCode(2)

/// Prints an error to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message.hasSuffix("\n") ? message : message + "\n").utf8))
}

/// Loads a scenario by path or by the name of a bundled one (`open-hall` → `Scenarios/open-hall.yaml`).
/// Prints every problem and exits with code 2 on bad input.
func loadScenario(_ nameOrPath: String) throws -> Scenario {
    try reportingInputErrors {
        let path = resolveScenarioPath(nameOrPath)
        if !FileManager.default.fileExists(atPath: path) && !nameOrPath.contains("/") && !nameOrPath.hasSuffix(".yaml") {
            let names = bundledScenarioPaths().map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }
            let close = names.min { editDistance($0, nameOrPath) < editDistance($1, nameOrPath) }
            let hint = close.map { editDistance($0, nameOrPath) <= 3 ? " (did you mean '\($0)'?)" : "" } ?? ""
            throw InputError(file: nameOrPath, "no such scenario file, and no bundled scenario of that name\(hint); bundled: \(names.joined(separator: ", "))")
        }
        return try ScenarioLoader.load(path: path)
    }
}

/// The creation time stored in new recordings: `$SOURCE_DATE_EPOCH` (seconds) when set, for byte-identical
/// files from the same inputs (the reproducible-builds convention); otherwise now.
func creationDate() -> Date {
    if let s = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], let t = TimeInterval(s) { return Date(timeIntervalSince1970: t) }
    return Date()
}


/// Runs `body`, printing input errors (with file, line and field) and exiting with code 2 on them.
func reportingInputErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let e as InputError {
        printError("error: \(e)")
        throw badInputExit
    } catch let e as InputErrors {
        printError(e.errors.map { "error: \($0)" }.joined(separator: "\n"))
        throw badInputExit
    }
}

func resolveScenarioPath(_ nameOrPath: String) -> String {
    if FileManager.default.fileExists(atPath: nameOrPath) || nameOrPath.contains("/") || nameOrPath.hasSuffix(".yaml") {
        return nameOrPath
    }
    for dir in bundledScenarioDirectories() {
        let p = dir + "/" + nameOrPath + ".yaml"
        if FileManager.default.fileExists(atPath: p) { return p }
    }
    return nameOrPath
}

/// Where bundled scenarios live: `$INDOORLAB_SCENARIOS`, `./Scenarios`, or next to the package of the binary.
func bundledScenarioDirectories() -> [String] {
    var dirs: [String] = []
    if let env = ProcessInfo.processInfo.environment["INDOORLAB_SCENARIOS"] { dirs.append(env) }
    dirs.append(FileManager.default.currentDirectoryPath + "/Scenarios")
    // .build/<config>/indoorlab → package root
    let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var dir = exe.deletingLastPathComponent()
    for _ in 0..<4 {
        dir = dir.deletingLastPathComponent()
        dirs.append(dir.path + "/Scenarios")
    }
    return dirs
}

/// All bundled scenario paths, sorted by name.
func bundledScenarioPaths() -> [String] {
    for dir in bundledScenarioDirectories() {
        if let names = try? FileManager.default.contentsOfDirectory(atPath: dir) {
            let yaml = names.filter { $0.hasSuffix(".yaml") }.sorted()
            if !yaml.isEmpty { return yaml.map { dir + "/" + $0 } }
        }
    }
    return []
}

/// Writes `text` to `path` atomically (temporary file + rename), or to standard output when path is nil or "-".
func writeOutput(_ text: String, to path: String?) throws {
    guard let path, path != "-" else {
        FileHandle.standardOutput.write(Data(text.utf8))
        return
    }
    try writeAtomically(Data(text.utf8), to: path)
}

func writeAtomically(_ data: Data, to path: String) throws {
    let url = URL(fileURLWithPath: path)
    do {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
    } catch {
        throw InputError(file: path, "cannot write the output file: \((error as NSError).localizedDescription)")
    }
}

/// Options shared by every command that draws random numbers.
struct SeedOptions: ParsableArguments {
    @Option(help: "Seed for every random draw; the same seed gives byte-identical output.")
    var seed: UInt64 = 1
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

func jsonString<T: Encodable>(_ value: T) throws -> String {
    let enc = JSONEncoder()
    enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try enc.encode(value), as: UTF8.self) + "\n"
}
