import Foundation
import LabCore

/// Finds scenarios by path or by the name of a bundled one (`open-hall` → `Scenarios/open-hall.yaml`).
///
/// Bundled scenarios are looked for, in order, in `$INDOORLAB_SCENARIOS`, `./Scenarios`, the installed copy
/// (`PREFIX/share/indoorlab/Scenarios` for a binary in `PREFIX/bin`, as `make install` lays them out), and
/// the `Scenarios` folder of the package the running binary was built in (up to four levels above it).
///
/// Large venues, for planning at scale, live in the `large` folder beside them: found by name like the others, but
/// not among ``paths()`` (the tournament's default set, whose field bound grows with the cube of the beacons).
public enum BundledScenarios {
    /// The directories searched, in order.
    public static func directories() -> [String] {
        var dirs: [String] = []
        if let env = ProcessInfo.processInfo.environment["INDOORLAB_SCENARIOS"] { dirs.append(env) }
        dirs.append(FileManager.default.currentDirectoryPath + "/Scenarios")
        // .build/<config>/indoorlab → package root
        let exe = URL(fileURLWithPath: executablePath()).resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        dirs.append(dir.deletingLastPathComponent().appendingPathComponent("share/indoorlab/Scenarios").path)
        for _ in 0..<4 {
            dir = dir.deletingLastPathComponent()
            dirs.append(dir.appendingPathComponent("Scenarios").path)
        }
        var seen = Set<String>()
        return dirs.filter { seen.insert($0).inserted }   // the root is its own parent
    }

    /// Every bundled scenario file, sorted by name (from the first directory that has any).
    public static func paths() -> [String] { yamlFiles(in: nil) }

    /// The names of the bundled scenarios (file names without `.yaml`).
    public static func names() -> [String] {
        paths().map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }
    }

    /// The folder of the bundled large venues, inside the scenarios folder.
    public static let largeFolder = "large"

    /// The bundled large venues (`Scenarios/large/*.yaml`), sorted by name.
    public static func largePaths() -> [String] { yamlFiles(in: largeFolder) }

    /// The `.yaml` files of the first scenarios directory (or its `sub` folder) that has any, sorted by name.
    private static func yamlFiles(in sub: String?) -> [String] {
        for base in directories() {
            let dir = sub.map { base + "/" + $0 } ?? base
            if let names = try? FileManager.default.contentsOfDirectory(atPath: dir) {
                let yaml = names.filter { $0.hasSuffix(".yaml") }.sorted()
                if !yaml.isEmpty { return yaml.map { dir + "/" + $0 } }
            }
        }
        return []
    }

    /// `nameOrPath` itself when it is a file, a path or ends in `.yaml`; else the bundled file of that name
    /// when there is one; else `nameOrPath` unchanged.
    public static func resolve(_ nameOrPath: String) -> String {
        if isPath(nameOrPath) { return nameOrPath }
        for dir in directories() {
            for p in [dir + "/" + nameOrPath + ".yaml", dir + "/" + largeFolder + "/" + nameOrPath + ".yaml"]
            where FileManager.default.fileExists(atPath: p) { return p }
        }
        return nameOrPath
    }

    /// Loads and validates a scenario by path or bundled name.
    /// - Throws: ``InputError`` for an unknown name (with a did-you-mean hint and the bundled names),
    ///   ``InputErrors`` for a file with problems.
    public static func load(_ nameOrPath: String) throws -> Scenario {
        let path = resolve(nameOrPath)
        if !isPath(nameOrPath) && !FileManager.default.fileExists(atPath: path) {
            let names = names() + largePaths().map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }
            guard !names.isEmpty else { throw InputError(file: nameOrPath, "no such scenario file, and \(noneFound)") }
            throw InputError(file: nameOrPath, "no such scenario file, and no bundled scenario of that name\(didYouMean(nameOrPath, among: names)); bundled: \(names.joined(separator: ", "))")
        }
        return try ScenarioLoader.load(path: path)
    }

    /// Why there is no bundled scenario at all, and what to do: for an error message.
    public static var noneFound: String {
        "no bundled scenarios were found (looked in \(directories().joined(separator: ", "))); give a scenario file's path, or set INDOORLAB_SCENARIOS to a folder of scenarios"
    }

    /// The running binary: /proc/self/exe (right however it was started, through PATH too), else argv[0].
    static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    private static func isPath(_ s: String) -> Bool {
        FileManager.default.fileExists(atPath: s) || s.contains("/") || s.hasSuffix(".yaml")
    }
}
