import Foundation
import Testing

@Suite struct CLITests {
    @Test func validateAcceptsTheBundledScenarios() throws {
        let r = try indoorlab(["validate", "open-hall", "museum-gallery", "killian-court", "esoc-office", "smart-home"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == 5)
    }

    @Test func validateReportsFileLineAndFieldAndExits2() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.yaml")
        try """
        name: broken
        bounds: {width: 10, depth: 10}
        radio: {sigma: -3}
        beacons:
          - {id: A, position: [1, 1]}
          - {id: A, position: [20, 1]}
        """.write(to: bad, atomically: true, encoding: .utf8)
        let r = try indoorlab(["validate", bad.path])
        #expect(r.status == 2)
        #expect(r.stderr.contains("bad.yaml:3: radio.sigma: expected 0–30 dB, found -3"), "\(r.stderr)")
        #expect(r.stderr.contains("bad.yaml:6: beacons[1].id: duplicate id 'A'"))
        #expect(r.stderr.contains("beacons[1].position: beacon 'A' at (20.00, 1.00) lies outside the bounds"))
        let json = try indoorlab(["validate", "--json", bad.path])
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(parsed?.first?["valid"] as? Bool == false)
        #expect((parsed?.first?["errors"] as? [[String: Any]])?.count == 3)
    }

    /// Two beacons at one spot are valid (the lab runs them) but most likely a copied line: validate and every command
    /// that loads the scenario warn, naming the field; no bundled scenario has any.
    @Test func coLocatedBeaconsAreAWarningNotAnError() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let twin = dir.appendingPathComponent("twin.yaml")
        try """
        name: twin
        bounds: {width: 10, depth: 10}
        beacons:
          - {id: A, position: [1, 1]}
          - {id: B, position: [9, 1]}
          - {id: C, position: [5, 9]}
          - {id: D, position: [9.02, 1.05]}
        walks:
          - {name: w, speed: 1, waypoints: [[2, 5], [8, 5]]}
        """.write(to: twin, atomically: true, encoding: .utf8)
        let r = try indoorlab(["validate", twin.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: \(twin.path): beacons[3].position: beacon 'D' is at the spot of beacon 'B' (beacons[1], 0.05 m apart)"), "\(r.stderr)")
        let json = try indoorlab(["validate", "--json", twin.path])
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect((parsed?.first?["warnings"] as? [[String: Any]])?.first?["field"] as? String == "beacons[3].position", "\(json.stdout)")
        let c = try indoorlab(["compare", twin.path, "--seeds", "1", "--estimators", "least-squares"])
        #expect(c.status == 0 && c.stderr.contains("warning: \(twin.path): beacons[3].position"), "\(c.stderr)")
        let bundled = try indoorlab(["validate", "open-hall", "museum-gallery", "killian-court", "esoc-office", "smart-home"])
        #expect(!bundled.stderr.contains("warning"), "\(bundled.stderr)")
    }

    @Test func missingScenarioIsAClearErrorNotACrash() throws {
        let r = try indoorlab(["simulate", "no-such-venue"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("no-such-venue: no such scenario file, and no bundled scenario of that name; bundled: esoc-office"))
        let w = try indoorlab(["simulate", "open-hall", "--walk", "nowhere"])
        #expect(w.status == 2)
        #expect(w.stderr.contains("no walk named 'nowhere'; walks: loop, or 'grid'"))
    }

    @Test func simulateIsByteIdenticalForASeedAndDiffersForAnother() throws {
        let a = try indoorlab(["simulate", "museum-gallery", "--seed", "7"])
        let b = try indoorlab(["simulate", "museum-gallery", "--seed", "7"])
        let c = try indoorlab(["simulate", "museum-gallery", "--seed", "8"])
        #expect(a.status == 0)
        #expect(a.stdout == b.stdout)
        #expect(a.stdout != c.stdout)
        let lines = a.stdout.split(separator: "\n")
        #expect(lines.first == "walk,epoch,epoch_t,truth_x,truth_y,room,type,t,id,value,target")
        #expect(lines.count > 1000)
        let killian = try indoorlab(["simulate", "killian-court", "--format", "json"])
        let json = try JSONSerialization.jsonObject(with: Data(killian.stdout.utf8)) as? [String: Any]
        let epochs = json?["epochs"] as? [[String: Any]]
        #expect((epochs?.count ?? 0) > 100)
        #expect(epochs?.contains { ($0["headings"] as? [Any])?.isEmpty == false } == true)
    }

    @Test func simulateWritesItsOutputFile() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("grid.csv")
        let r = try indoorlab(["simulate", "open-hall", "--walk", "grid", "-o", out.path])
        #expect(r.status == 0)
        let text = try String(contentsOf: out, encoding: .utf8)
        #expect(text.contains("\ngrid,0,"))
    }

    @Test func compareRunsTheTournamentAndNamesAWinner() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try indoorlab(["compare", "open-hall", "smart-home", "--seeds", "2", "--estimators", "least-squares,proximity,centroid", "--out", dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("winner: least-squares"))
        #expect(r.stdout.contains("rule: lowest mean P75"))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("open-hall-epochs.csv").path))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("run.json").path))
        let j = try indoorlab(["compare", "open-hall", "--seeds", "1", "--estimators", "trilateration,proximity", "--json"])
        let board = try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any]
        #expect((board?["scores"] as? [Any])?.count == 2)
        #expect(board?["winner"] as? String == "trilateration", "\(j.stdout)")
    }

    /// The walks table's closing line names the best tracker and says when it is an offline smoother.
    @Test func theBestTrackerLineSaysWhenItIsOffline() throws {
        let r = try indoorlab(["compare", "smart-home", "--seeds", "1", "--conditions", "ideal", "--estimators", "ekf-smoother,centroid"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("best tracker ekf-smoother (offline) P75"), "\(r.stdout)")
    }

    /// Help text a user copies from keeps its shape at 80 columns: examples are never wrapped to the left margin
    /// (long ones continue with a backslash on an indented line), and compare's estimator list keeps its hanging indent.
    @Test func helpExamplesAndListsKeepTheirShape() throws {
        for command in ["compare", "validate", "simulate", "plot", "record", "import", "calibrate", "replay", "plan", "tune",
                        "coverage", "bench"] {
            let help = try indoorlab([command, "--help"]).stdout.components(separatedBy: "\n")
            for (i, line) in help.enumerated() where line.contains("Example") || line.hasSuffix("\\") {
                let next = i + 1 < help.count ? help[i + 1] : ""
                #expect(next.isEmpty || next.hasPrefix(" "), "\(command) --help: '\(line)' then '\(next)'")
            }
        }
        let compare = try indoorlab(["compare", "--help"]).stdout.components(separatedBy: "\n")
        let start = try #require(compare.firstIndex(of: "Estimators:")), end = try #require(compare.firstIndex { $0.hasPrefix("Example") })
        let list = compare[(start + 1)..<end].filter { !$0.isEmpty }
        #expect(list.count >= 20, "every registered estimator, some on two lines")
        #expect(list.allSatisfy { $0.hasPrefix("  ") && $0.count <= 80 }, "\(list)")
    }

    /// An estimator that cannot win says why in the leaderboard: offline, too few fixes (where), or a collapse.
    @Test func theLeaderboardSaysWhyAnEstimatorIsNotEligible() throws {
        let r = try indoorlab(["compare", "open-hall", "smart-home", "--seeds", "1", "--estimators", "bearing,ekf-smoother,proximity"])
        #expect(r.status == 0, "\(r.stderr)")
        let row = { (name: String) in r.stdout.split(separator: "\n").first { $0.contains(" \(name) ") && $0.contains("no") } ?? "" }
        #expect(row("bearing").hasSuffix("no: 0.0% available with 3+ heard in open-hall and 1 more (needs 90%)"), "\(r.stdout)")
        #expect(row("ekf-smoother").hasSuffix("no: offline (uses later scans)"), "\(r.stdout)")
        #expect(r.stdout.contains("overall (errors in metres; 1 seed)"), "\(r.stdout)")
    }

    @Test func misspelledScenarioGetsASuggestion() throws {
        let r = try indoorlab(["simulate", "musuem-gallery"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("no bundled scenario of that name (did you mean 'museum-gallery'?)"))
    }

    @Test func unwritableOutputIsBadInputNotACrash() throws {
        let r = try indoorlab(["simulate", "open-hall", "-o", "/proc/indoorlab-cannot-write.csv"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("error: /proc/indoorlab-cannot-write.csv: cannot write the output file"))
        // compare checks its output directory before the tournament: refused at once, nothing run.
        let c = try indoorlab(["compare", "open-hall", "--seeds", "1", "--estimators", "proximity", "--out", "/proc/indoorlab-nope"])
        #expect(c.status == 2)
        #expect(c.stderr.contains("error: /proc/indoorlab-nope: --out: cannot make the output directory"), "\(c.stderr)")
        #expect(!c.stdout.contains("winner"), "\(c.stdout)")
    }

    /// The last seed runs; seeds that would run past it are refused (they wrapped to 0, 1, … before, which a run's
    /// "seeds 18446744073709551615–1" could not describe), never an overflow trap.
    @Test func seedsNeverWrapOrOverflow() throws {
        let r = try indoorlab(["compare", "open-hall", "--seed", "18446744073709551615", "--seeds", "1", "--estimators", "proximity", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let board = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((board?["seeds"] as? [Any])?.count == 1)
        let wrap = try indoorlab(["compare", "open-hall", "--seed", "18446744073709551615", "--seeds", "2", "--estimators", "proximity"])
        #expect(wrap.status == 64 && wrap.stderr.contains("runs past the last seed"), "\(wrap.stderr)")
    }

    @Test func duplicateYAMLKeysGiveOneCleanLine() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let f = dir.appendingPathComponent("dup.yaml")
        try "name: x\nbounds: {width: 5, depth: 5}\nbeacons: []\nname: y\n".write(to: f, atomically: true, encoding: .utf8)
        let r = try indoorlab(["validate", f.path])
        #expect(r.status == 2)
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(r.stderr.hasSuffix("dup.yaml:4:1: the key 'name' appears twice in one mapping (first at line 1)\n"), "\(r.stderr)")
    }

    @Test func unknownEstimatorIsRefused() throws {
        let r = try indoorlab(["compare", "open-hall", "--estimators", "magic"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("unknown estimator 'magic'"))
    }

    /// Results are kept by scenario name: two scenarios of one name are refused before any work.
    @Test func twoScenariosOfOneNameAreRefused() throws {
        let r = try indoorlab(["compare", "open-hall", "open-hall", "--seeds", "1", "--estimators", "proximity"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("two scenarios are named 'open-hall'"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test func benchPrintsFiguresAsJSON() throws {
        let r = try indoorlab(["bench", "--json", "--seconds", "0.02", "--skip-tournament"])
        #expect(r.status == 0, "\(r.stderr)")
        let figures = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]
        let names = figures?.compactMap { $0["name"] as? String } ?? []
        #expect(names.contains("simulate readings/s [open-hall]"))
        #expect(names.contains("fixes/s [least-squares]"))
        // The solver-bound fits' targets are throughput on every core; their one-core figures carry none.
        let cores = ProcessInfo.processInfo.activeProcessorCount
        for kind in ["least-squares", "offset-free"] {
            let one = figures?.first { $0["name"] as? String == "fixes/s [\(kind)]" }
            let all = figures?.first { $0["name"] as? String == "fixes/s [\(kind), \(cores) cores]" }
            #expect(one != nil && one?["target"] == nil, "\(String(describing: one))")
            #expect(all?["target"] as? Double == 100_000, "\(String(describing: all))")
            #expect((all?["note"] as? String)?.contains("100% fixed") == true, "\(String(describing: all))")
            #expect((all?["note"] as? String)?.contains("× one core") == true, "\(String(describing: all))")
        }
        // So is IndoorLocator's, with a locator per core.
        let locator = figures?.first { $0["name"] as? String == "IndoorLocator fixes/s" }
        let locators = figures?.first { $0["name"] as? String == "IndoorLocator fixes/s [\(cores) cores]" }
        #expect(locator != nil && locator?["target"] == nil, "\(String(describing: locator))")
        #expect(locators?["target"] as? Double == 400_000, "\(String(describing: locators))")
        #expect((locators?["note"] as? String)?.contains("× one core") == true, "\(String(describing: locators))")
        #expect(figures?.allSatisfy { ($0["value"] as? Double ?? 0) > 0 } == true)
        // Rate figures are the median of their rounds (3 by default), which lies between the slowest and the fastest.
        let rated = figures?.filter { $0["rounds"] != nil } ?? []
        #expect(rated.count >= 20)
        for f in rated {
            let v = f["value"] as? Double ?? .nan, lo = f["lowest"] as? Double ?? .nan, hi = f["highest"] as? Double ?? .nan
            #expect(f["rounds"] as? Int == 3 && lo <= v && v <= hi, "\(f)")
        }
        let one = try indoorlab(["bench", "--only", "locator", "--seconds", "0.02", "--rounds", "1"])
        #expect(one.status == 0 && !one.stdout.contains("rounds"), "\(one.stdout)")
    }

    /// A fixed amount of work for the figures a pattern names (for counting instructions, docs/speed.md): only those
    /// figures, each round doing at least the units asked, and a one-core figure exactly that many (100 fixes a call).
    @Test func benchDoesAFixedAmountOfWorkForTheFiguresNamed() throws {
        let r = try indoorlab(["bench", "--only", "estimators", "--figure", "*OFFSET-free*", "--work", "300", "--rounds", "2", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let figures = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let oneCore: Set = ["fixes/s [offset-free]", "fixes/s [offset-free-floorplan]"]
        #expect(Set(figures.compactMap { $0["name"] as? String }) == oneCore.union(["fixes/s [offset-free, \(cores) cores]"]), "\(r.stdout)")
        for f in figures {
            let units = f["units"] as? [Int] ?? []
            #expect(units.count == 2 && units.allSatisfy { $0 >= 300 }, "\(f)")
            if oneCore.contains(f["name"] as? String ?? "") { #expect(units == [300, 300], "\(f)") }
            #expect((f["value"] as? Double ?? 0) > 0, "\(f)")
        }
        // Brackets are plain text and case does not matter: a whole name is that figure alone. The text output says
        // what each round did.
        let one = try indoorlab(["bench", "--only", "estimators,locator", "--figure", "FIXES/S [offset-free]", "--work", "200", "--rounds", "1"])
        #expect(one.status == 0, "\(one.stderr)")
        let lines = one.stdout.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("fixes/s [offset-free] ") && lines[0].contains("[200 fixes a round]"), "\(one.stdout)")
        // A pattern that names no figure is an error, not an empty report.
        let none = try indoorlab(["bench", "--only", "store", "--figure", "fixes/s [offset-free]"])
        #expect(none.status == 64 && none.stdout.isEmpty && none.stderr.contains("no figure of the groups run matches"), "\(none.stderr)")
    }

    @Test func helpExplainsEachCommand() throws {
        let r = try indoorlab(["--help"])
        for command in ["validate", "simulate", "compare", "bench"] { #expect(r.stdout.contains(command)) }
        let c = try indoorlab(["compare", "--help"])
        #expect(c.stdout.contains("Winner rule"))
    }
}

/// JSON has no ∞: the one JSON format writes it as "inf", so an unreachable point still gives valid JSON.
@Suite struct JSONOutputTests {
    /// A target the bound rules out even with a beacon at every candidate place is said at once, whatever --max-beacons
    /// allows (it used to search every count first: minutes, printing nothing, with --max-beacons 1000).
    @Test func aTargetOutOfReachIsSaidBeforeAnySearch() throws {
        for max in ["40", "1000"] {
            let r = try indoorlab(["plan", "killian-court", "--target-p90", "0.3", "--max-beacons", max, "--json"])
            #expect(r.status == 1, "\(r.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let result = try #require(json["result"] as? [String: Any])
            #expect((result["steps"] as? [Any])?.isEmpty == true, "nothing searched: \(r.stdout)")
            let best = try #require(result["outOfReach"] as? [String: Any])
            #expect((best["areaQuantile"] as? Double).map { $0 > 0.3 } == true, "\(best)")
        }
        let text = try indoorlab(["plan", "killian-court", "--target-p90", "0.3"])
        #expect(text.status == 1 && text.stdout.contains("is out of reach: even with a beacon at every candidate position ("), "\(text.stdout)")
    }

    @Test func planJSONWithAnUnreachablePointIsValidAndRepeats() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Within reach of a beacon at every candidate place, out of reach of three.
        let r = try indoorlab(["plan", "esoc-office", "--target-p90", "1", "--max-beacons", "3", "--draws", "2", "--json",
                               "--plots", dir.path], cwd: dir)
        #expect(r.status == 1, "the target is out of reach: \(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let perPoint = try #require((json["result"] as? [String: Any])?["chosenPerPointP90"] as? [Any])
        #expect(perPoint.contains { $0 as? String == "inf" }, "some point of esoc-office has no fix with 3 beacons")
        // The same inputs give the same JSON: no run time in it.
        let again = try indoorlab(["plan", "esoc-office", "--target-p90", "1", "--max-beacons", "3", "--draws", "2", "--json",
                                   "--plots", dir.path], cwd: dir)
        #expect(again.stdout == r.stdout)
    }
}

/// The module graph in docs/architecture.md is the package's: every line names a target and exactly what Package.swift
/// says it uses.
@Suite struct ModuleGraphTests {
    /// Tests mirror modules: every Swift module of Sources/ has its test target, `<Module>Tests` (the tool's is
    /// IndoorlabCLITests); system-library shims and the example program have none.
    @Test func everyModuleHasItsTestTarget() throws {
        let package = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let names = { (kind: String) in
            package.matches(of: try! Regex("\\.\(kind)\\(name: \"([A-Za-z]+)\"")).compactMap { $0.output[1].substring.map(String.init) }
        }
        let modules = Set(names("target") + names("executableTarget")).subtracting(["CHeapStats", "LocatorExample"])
        let tests = Set(names("testTarget"))
        let missing = modules.filter { !tests.contains($0 == "indoorlab" ? "IndoorlabCLITests" : $0 + "Tests") }
        #expect(missing.isEmpty, "modules without a test target: \(missing.sorted())")
        #expect(modules.count >= 15, "found the package's modules: \(modules.sorted())")
    }

    @Test func documentedGraphMatchesPackageSwift() throws {
        let readme = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let package = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let block = try #require(readme.components(separatedBy: "<!-- module-graph -->").dropFirst().first?
            .components(separatedBy: "<!-- /module-graph -->").first)
        var documented: [String: Set<String>] = [:]
        for line in block.split(separator: "\n") where line.contains("→") {
            let parts = line.components(separatedBy: "→")
            let uses = parts[1].trimmingCharacters(in: .whitespaces)
            documented[parts[0].trimmingCharacters(in: .whitespaces)] =
                uses.hasPrefix("(") ? [] : Set(uses.components(separatedBy: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        // Every non-test target with its dependencies: quoted target names and .product(name: …) names.
        let target = try Regex(#"\.(?:target|executableTarget)\(name: "([A-Za-z]+)"(?:, dependencies: \[((?:[^\[\]]|\[[^\]]*\])*)\])?"#)
        var declared: [String: Set<String>] = [:]
        for m in package.matches(of: target) {
            let name = String(m.output[1].substring!)
            // A product's package ("hummingbird" for Hummingbird) is no module.
            let deps = (m.output[2].substring.map(String.init) ?? "").replacing(try Regex(#"package: "[^"]*""#), with: "")
            let names = deps.matches(of: try Regex(#"(?:name: )?"([A-Za-z0-9.]+)""#)).compactMap { $0.output[1].substring.map(String.init) }
            // Package names ("GRDB.swift") are not modules; a product and its package may share a name ("Yams").
            declared[name] = Set(names.filter { !$0.contains(".") })
        }
        declared.removeValue(forKey: "CHeapStats")
        declared.removeValue(forKey: "LocatorExample")
        #expect(Set(documented.keys) == Set(declared.keys), "modules: docs/architecture.md \(documented.keys.sorted()) vs Package.swift \(declared.keys.sorted())")
        for (name, uses) in declared {
            #expect(documented[name] == uses, "\(name): docs/architecture.md says \(documented[name]?.sorted() ?? []), Package.swift \(uses.sorted())")
        }
    }
}

/// What an app links when it depends on the IndoorLocator product: Swift targets only — no system library (GSL is
/// GPL-3 and absent on phones), no C target, no external product (Yams comes only with IndoorLocatorScenarios) —
/// and no source in it imports Glibc or a C module directly. Read from `swift package describe --type json`.
@Suite struct ProductClosureTests {
    struct Target: Decodable {
        let name: String
        let module_type: String
        let path: String
        let target_dependencies: [String]?
        let product_dependencies: [String]?
    }
    struct Product: Decodable { let name: String; let targets: [String] }
    struct Description: Decodable {
        let targets: [Target]
        let products: [Product]
        let platforms: [Platform]?
        struct Platform: Decodable { let name: String; let version: String }
    }

    func describe() throws -> Description {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Its own scratch path: `swift test` holds the lock on .build while the tests run.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("describe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        p.arguments = ["swift", "package", "--package-path", root.path, "--scratch-path", scratch.path, "describe", "--type", "json"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0)
        return try JSONDecoder().decode(Description.self, from: data)
    }

    @Test(arguments: ["IndoorLocator", "IndoorLocatorScenarios"])
    func theProductLinksNoCAndNoSystemLibrary(product: String) throws {
        let d = try describe()
        let byName = Dictionary(uniqueKeysWithValues: d.targets.map { ($0.name, $0) })
        var closure: Set<String> = [], queue = try #require(d.products.first { $0.name == product }).targets
        var external: Set<String> = []
        while let name = queue.popLast() {
            guard closure.insert(name).inserted else { continue }
            let t = try #require(byName[name], "target \(name)")
            queue += t.target_dependencies ?? []
            external.formUnion(t.product_dependencies ?? [])
        }
        #expect(closure.contains("IndoorLocator") && closure.contains("LocatorEngine"))
        for name in closure {
            #expect(byName[name]?.module_type == "SwiftTarget", "\(product) links \(name), a \(byName[name]?.module_type ?? "?")")
        }
        #expect(!closure.contains("CGSL") && !closure.contains("LabEstimators"))
        // The locator itself brings no external package; the scenario product brings Yams, and only it.
        #expect(external == (product == "IndoorLocator" ? [] : ["Yams"]), "\(external)")
        // No source imports Glibc or a C module by name (Foundation is the portable layer).
        for name in closure {
            let dir = root.appendingPathComponent(byName[name]!.path)
            for file in try FileManager.default.contentsOfDirectory(atPath: dir.path) where file.hasSuffix(".swift") {
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                for banned in ["import Glibc", "import Darwin", "import CGSL", "import CPLplot", "import CHeapStats"] {
                    #expect(!text.contains(banned), "\(name)/\(file): \(banned)")
                }
            }
        }
        // The Apple platforms it supports are declared.
        #expect(Set((d.platforms ?? []).map(\.name)).isSuperset(of: ["ios", "macos", "watchos", "tvos", "visionos"]))
    }
}

/// An app package outside the repository, depending on the IndoorLocator product by path, builds and runs with
/// no C library beyond the Swift toolchain: `scripts/app-package-check` hides GSL's and PLplot's headers (a
/// private mount namespace, as root — CI is) and pkg-config, builds, runs the app, and fails if the app links
/// libgsl, libplplot, libsqlite3 or libyaml or if any lab target or Yams was compiled for it. The app declares its own
/// `Location` and names the library's as `IndoorLocator::Location`, as an app with such a type must.
@Suite struct AppPackageTests {
    @Test func anAppOutsideTheRepositoryBuildsWithoutCLibraries() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("indoorlocator-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let p = Process()
        p.executableURL = root.appendingPathComponent("scripts/app-package-check")
        p.arguments = [work.path]
        let log = work.appendingPathExtension("log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        p.waitUntilExit()
        let text = String(decoding: try Data(contentsOf: log), as: UTF8.self)
        #expect(p.terminationStatus == 0, "\(text.suffix(3000))")
        #expect(text.contains("located 5.00 5.00 near the corner-0 case"))
        #expect(text.contains("app-package-check: ok"))
        if getuid() == 0 { #expect(text.contains("headers hidden")) }
    }
}

/// Messages a user can act on: the file and line, the value shown (abbreviated), no Foundation error codes.
@Suite struct MessageTests {
    func validate(_ bytes: [UInt8], json: Bool = false) throws -> Run {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let f = dir.appendingPathComponent("s.yaml")
        try Data(bytes).write(to: f)
        return try indoorlab(["validate", f.path] + (json ? ["--json"] : []), cwd: dir)
    }

    @Test func invalidUTF8GivesTheLineAndColumn() throws {
        let r = try validate(Array("name: x\nbounds: {width: 5, depth: 5}\ndescription: caf".utf8) + [0xE9, 0x0A])
        #expect(r.status == 2)
        #expect(r.stderr.contains("s.yaml:3:17: the file is not UTF-8 text: byte 0xE9"), "\(r.stderr)")
    }

    @Test func aPointNamesTheValueThatIsNotANumber() throws {
        let r = try validate(Array("name: x\nbounds: {width: 5, depth: 5}\nbeacons:\n  - {id: A, position: [abc, 3]}\n".utf8))
        #expect(r.stderr.hasSuffix("s.yaml:4: beacons[0].position: expected a point [x, y] in metres, found [abc, 3] ('abc' is not a finite number)\n"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "one line, no follow-up about missing beacons: \(r.stderr)")
    }

    @Test func aHugeFieldIsNotEchoedBack() throws {
        let r = try validate(Array("name: x\nbounds: {width: 5, depth: \(String(repeating: "z", count: 3_000_000))}\nbeacons: []\n".utf8))
        #expect(r.status == 2)
        #expect(r.stderr.utf8.count < 1000 && r.stderr.contains("… (3000000 bytes)"), "\(r.stderr.prefix(300))")
    }

    /// Messages a session-55 walkthrough found vague: a JSON value of the wrong type in the decoder's words, a file
    /// given where a directory belongs reported as missing, two limits in one message.
    @Test func theWalkthroughsMessagesSayWhatIsWrong() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fit = dir.appendingPathComponent("fit.json").path
        try #"{"p0": "x"}"#.write(toFile: fit, atomically: true, encoding: .utf8)
        let radio = try indoorlab(["replay", "Recordings/open-hall-loop-seed1.sqlite", "--radio", fit])
        #expect(radio.status == 2 && radio.stderr.contains("fit.json: p0: not a radio fit") && radio.stderr.hasSuffix("expected a number, found a string\n")
                && !radio.stderr.contains("decode"), "\(radio.stderr)")
        // An object where a list is, a list where an object is, and null where a number belongs, each in the file's words.
        for (text, field, said) in [(#"[1]"#, "fit.json: not a radio fit", "expected an object, found an array"),
                                    (#"{"p0": null}"#, "fit.json: p0: not a radio fit", "expected a number, found null"),
                                    (#"{"p0": -59, "exponent": [2]}"#, "fit.json: exponent: not a radio fit", "expected a number, found an array")] {
            try text.write(toFile: fit, atomically: true, encoding: .utf8)
            let r = try indoorlab(["replay", "Recordings/open-hall-loop-seed1.sqlite", "--radio", fit])
            #expect(r.status == 2 && r.stderr.contains(field) && r.stderr.hasSuffix(said + "\n"), "\(text): \(r.stderr)")
        }
        let results = try indoorlab(["plot", "map", "--results", fit, "--out-dir", dir.path])
        #expect(results.status == 2 && results.stderr.contains("fit.json: is a file: expected the results directory"), "\(results.stderr)")
        let real = try indoorlab(["compare", "open-hall", "--seeds", "1", "--real", fit])
        #expect(real.status == 64 && real.stderr.contains("is a file, not a directory"), "\(real.stderr)")
        // An option the figure does not read is refused, not ignored.
        for (args, option) in [(["plot", "cdf", "--results", dir.path, "--offset", "3"], "--offset"),
                               (["plot", "leaderboard", "--results", dir.path, "--seed", "2"], "--seed"),
                               (["plot", "offset-learning", "--estimator", "centroid"], "--estimator"),
                               (["plot", "all", "--results", dir.path, "--scenario", "open-hall"], "--scenario")] {
            let r = try indoorlab(args + ["--out-dir", dir.path])
            #expect(r.status == 64 && r.stderr.contains("\(option) does not apply to '\(args[1])'"), "\(args): \(r.stderr)")
        }
        let draws = try indoorlab(["plan", "open-hall", "--target-p90", "2", "--draws", "0"])
        #expect(draws.status == 64 && draws.stderr.contains("--draws must be between 1 and") && !draws.stderr.contains("max-beacons must"), "\(draws.stderr)")
    }

    @Test func aDirectoryIsNamedAsOne() throws {
        let r = try indoorlab(["validate", "/tmp"])
        #expect(r.stderr == "error: /tmp: is a directory; expected a scenario file (.yaml)\n")
        let o = try indoorlab(["simulate", "open-hall", "-o", "/etc/hostname/x.csv"])
        #expect(o.status == 2 && o.stderr.contains("cannot create the directory: /etc/hostname is not a directory"), "\(o.stderr)")
        #expect(!o.stderr.contains("NSCocoaErrorDomain"))
    }

    @Test func validateJSONGivesErrorsAsObjects() throws {
        let r = try validate(Array("name: x\nbounds: {width: 5, depth: 5}\nbeacons:\n  - {id: A, position: [9, 3]}\n".utf8), json: true)
        let files = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]
        let error = (files?.first?["errors"] as? [[String: Any]])?.first
        #expect(error?["line"] as? Int == 4)
        #expect(error?["field"] as? String == "beacons[0].position")
        #expect((error?["file"] as? String)?.hasSuffix("s.yaml") == true)
        #expect((error?["message"] as? String)?.contains("lies outside the bounds") == true, "\(r.stdout)")
    }

    @Test func aMisspelledCommandGetsASuggestion() throws {
        let r = try indoorlab(["simualte", "open-hall"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("unknown command 'simualte' (did you mean 'simulate'?)"), "\(r.stderr)")
    }

    /// Standard output on a full disk: exit 2 and a line saying the output is incomplete, not a crash and not 0.
    @Test func aFullDiskOnStandardOutputIsAnErrorNotACrash() throws {
        for args in [["validate", "open-hall", "--json"], ["simulate", "open-hall"], ["validate", "open-hall"]] {
            let r = try indoorlab(args, standardOutputTo: "/dev/full")
            #expect(r.status == 2, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("standard output: could not be written (No space left on device)"), "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("crashed"), "\(args): \(r.stderr)")
        }
    }

    /// Limits found by a stranger's walkthrough: each refused before any work, with exit 64, where it
    /// crashed (--draws near Int.max), exhausted memory (--draws 10⁹), never ended (--seconds inf) or did nothing.
    @Test func unboundedWorkIsRefused() throws {
        for args in [["tune", "open-hall", "--draws", "1001"], ["plan", "open-hall", "--target-p90", "3", "--draws", "9223372036854775807"],
                     ["plan", "open-hall", "--target-p90", "inf"], ["bench", "--seconds", "inf"], ["bench", "--only", ""],
                     ["bench", "--rounds", "0"], ["bench", "--rounds", "101"], ["bench", "--work", "0"], ["bench", "--work", "-5"],
                     ["bench", "--figure", " "]] {
            let r = try indoorlab(args)
            #expect(r.status == 64, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stdout.isEmpty && !r.stderr.contains("Fatal error"), "\(args): \(r.stderr)")
        }
    }

    /// More from the walkthrough: seeds that would wrap past the last, a recording given twice (also through a link:
    /// scored twice and a second baselines file), an empty or control-character recording name, an import option
    /// that would store a radio no later read accepts (it blamed the output file), each exit 64 before any work;
    /// `plot offset-learning` with a phone no scan can fix says so (it drew an empty chart and JSON full of "nan").
    /// Figures are drawn on the floorplan the results were made on: a scenario edited after the run is refused (it drew
    /// the old √CRLB field with the beacons at their new places), and a run moved elsewhere still finds the bundled file.
    @Test func plotRefusesAScenarioEditedSinceTheRun() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scenarios")
        let original = try String(contentsOf: scenarios.appendingPathComponent("open-hall.yaml"), encoding: .utf8)
        try original.write(to: dir.appendingPathComponent("hall.yaml"), atomically: true, encoding: .utf8)
        let compare = try indoorlab(["compare", "hall.yaml", "--seeds", "1", "--estimators", "centroid", "--out", "res"], cwd: dir)
        #expect(compare.status == 0, "\(compare.stderr)")
        #expect(try indoorlab(["plot", "map", "--results", "res", "--out-dir", "a"], cwd: dir).status == 0)
        try original.replacingOccurrences(of: "{id: H7, position: [9, 10]}", with: "{id: H7, position: [5, 5]}")
            .write(to: dir.appendingPathComponent("hall.yaml"), atomically: true, encoding: .utf8)
        let edited = try indoorlab(["plot", "map", "--results", "res", "--out-dir", "b"], cwd: dir)
        #expect(edited.status == 2 && edited.stderr.contains("hall.yaml changed since the run"), "\(edited.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("b").path))
        // Moved: the manifest's path is gone, and the bundled open-hall is the same file.
        #expect(try indoorlab(["compare", "open-hall", "--seeds", "1", "--estimators", "centroid", "--out", "res2"], cwd: dir).status == 0)
        let manifest = dir.appendingPathComponent("res2/run.json")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        try text.replacingOccurrences(of: scenarios.path, with: "/nowhere").write(to: manifest, atomically: true, encoding: .utf8)
        let moved = try indoorlab(["plot", "map", "--results", "res2", "--out-dir", "c"], cwd: dir)
        #expect(moved.status == 0, "\(moved.stderr)")
    }

    /// A layout that never gives a fix is no layout to tune (tune said "already locally optimal", exit 0, and wrote the
    /// scenario), and a venue with no walkable test point is none to plan or tune.
    @Test func tuneAndPlanRefuseVenuesWithNothingToImprove() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let base = """
            name: deaf
            bounds: {width: 10, depth: 8}
            radio: {p0: -150}
            beacons:
              - {id: A, position: [1, 1]}
              - {id: B, position: [9, 1]}
              - {id: C, position: [5, 7]}
            test_grid: 2
            """
        try base.write(to: dir.appendingPathComponent("deaf.yaml"), atomically: true, encoding: .utf8)
        let deaf = try indoorlab(["tune", "deaf.yaml", "--draws", "2", "-o", "t.yaml"], cwd: dir)
        #expect(deaf.status == 2 && deaf.stderr.contains("the beacons give no fix on 90% of the walkable points"), "\(deaf.status) \(deaf.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("t.yaml").path))
        let tiny = base.replacingOccurrences(of: "radio: {p0: -150}\n", with: "rooms:\n  - {name: Cupboard, polygon: [[1, 1], [1.1, 1], [1.1, 1.1], [1, 1.1]]}\n")
        try tiny.write(to: dir.appendingPathComponent("tiny.yaml"), atomically: true, encoding: .utf8)
        for args in [["tune", "tiny.yaml", "--draws", "2"], ["plan", "tiny.yaml", "--target-p90", "3", "--draws", "2"]] {
            let r = try indoorlab(args, cwd: dir)
            #expect(r.status == 64 && r.stderr.contains("no walkable test point"), "\(args): \(r.status) \(r.stderr)")
        }
    }

    @Test func moreImpossibleInputsAreRefusedUpFront() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try indoorlab(["record", "open-hall", "--walk", "loop", "-o", "r.sqlite"], cwd: dir).status == 0)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link.sqlite").path, withDestinationPath: "r.sqlite")
        for args in [["compare", "open-hall", "--seeds", "3", "--seed", "18446744073709551614"],
                     ["coverage", "open-hall", "--seeds", "2", "--seed", "18446744073709551615"],
                     ["replay", "r.sqlite", "link.sqlite"], ["record", "open-hall", "--walk", "loop", "-o", "n.sqlite", "--name", ""],
                     ["record", "open-hall", "--walk", "loop", "-o", "n.sqlite", "--name", "a\u{1B}[31mred"],
                     ["import", "--format", "lab-csv", ".", "-o", "x.sqlite", "--scan-window", "1e-9"],
                     ["import", "--format", "lab-csv", ".", "-o", "x.sqlite", "--exponent", "0.001"],
                     // An empty estimator list drew an empty figure; seeds past the last wrapped to 0.
                     ["plot", "cdf", "--results", ".", "--estimators", ""], ["compare", "open-hall", "--estimators", " , "],
                     ["plot", "offset-learning", "--runs", "3", "--seed", "18446744073709551614"],
                     // 10⁸ fixes (hours): refused with the budget named.
                     ["plot", "offset-learning", "--runs", "1000", "--scans", "100000"],
                     ["bench", "--only", "locator,locator", "--seconds", "0.01"]] {
            let r = try indoorlab(args, cwd: dir)
            #expect(r.status == 64, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(args): \(r.stdout)")
        }
        let learning = try indoorlab(["plot", "offset-learning", "--runs", "1000", "--scans", "100000"], cwd: dir)
        #expect(learning.stderr.contains("--runs 1000 × --scans 100000 is 100000000 fixes; the budget is 1000000"), "\(learning.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("n.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("link.baselines.json").path))
        let weak = try indoorlab(["plot", "offset-learning", "--offset", "-60", "--runs", "1", "--scans", "3", "--json", "--out-dir", "ol"], cwd: dir)
        #expect(weak.status == 1 && weak.stderr.contains("no scan of museum-gallery gave a fix, so nothing was learned"), "\(weak.stderr)")
        #expect(!weak.stdout.contains("nan"))
    }

    /// An output path that cannot name a file is refused before the work, not after it (killian-court's simulation
    /// ran whole before `-o trail/` failed): a trailing slash, an empty path, a directory, a name over 255 bytes.
    @Test func anOutputThatIsNoFileNameIsRefusedFirst() throws {
        for (args, message) in [(["simulate", "killian-court", "-o", "trail/"], "trail/: is no file name"),
                                (["simulate", "open-hall", "-o", ""], "'': is no file name"),
                                (["tune", "open-hall", "-o", "/tmp"], "is a directory; give a file name"),
                                (["simulate", "open-hall", "-o", String(repeating: "x", count: 300)], "the file name is longer than 255 bytes")] {
            let r = try indoorlab(args)
            #expect(r.status == 2 && r.stderr.contains(message), "\(args.prefix(2)): \(r.status) \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
    }

    /// No output may land on an input or on a name that is no file: a scenario in --out named like the results
    /// (compare replaced it with run.json), `calibrate --plot /dev/null` (wrote /dev/null.png) or `--plot .`.
    /// And plan says when it wrote no scenario (it claimed "scenario written to" with no beacons placed).
    @Test func outputsNeverLandOnInputsOrNonFiles() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = try String(contentsOf: root.appendingPathComponent("Scenarios/open-hall.yaml"), encoding: .utf8)
        try scenario.write(to: dir.appendingPathComponent("run.json"), atomically: true, encoding: .utf8)
        let compare = try indoorlab(["compare", "run.json", "--seeds", "1", "--estimators", "centroid", "--out", "."], cwd: dir)
        #expect(compare.status == 2 && compare.stderr.contains("run.json: is an input, and --out . holds the results"), "\(compare.stderr)")
        #expect(try String(contentsOf: dir.appendingPathComponent("run.json"), encoding: .utf8) == scenario)
        for plot in ["/dev/null", ".", "", ".png", "cp/.svg"] {
            let r = try indoorlab(["calibrate", "nothing.sqlite", "--plot", plot], cwd: dir)
            #expect(r.status == 64, "--plot '\(plot)': \(r.status) \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: "/dev/null.png"))
        let plan = try indoorlab(["plan", "open-hall", "--target-p90", "3", "--draws", "1", "--max-beacons", "3", "--candidate-spacing", "1e9",
                                  "-o", "zero.yaml", "--plots", "p"], cwd: dir)
        #expect(plan.status == 1, "\(plan.stderr)")
        #expect(plan.stdout.contains("no beacons placed, so zero.yaml was not written")
                && plan.stdout.contains("out of reach: even with a beacon at every candidate position (1) the predicted area P90 is no fix"), "\(plan.stdout)")
        #expect(!plan.stdout.contains("inf m"), "\(plan.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("zero.yaml").path))
    }

    /// Tune only moves beacons: a venue with fewer than the one-scan fix needs gets a clear error (it printed
    /// "inf m" everywhere), and a quantile with too many points unfixed reads "no fix", not "inf m".
    @Test func tuneSaysWhenNoFixIsPossible() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let hall = try String(contentsOf: root.appendingPathComponent("Scenarios/open-hall.yaml"), encoding: .utf8)
        func keeping(_ ids: Set<String>, as name: String) throws -> String {
            let lines = hall.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
                guard let r = line.range(of: "{id: ") else { return true }
                return ids.contains(String(line[r.upperBound...].prefix(2)))
            }
            let path = dir.appendingPathComponent(name + ".yaml").path
            try lines.joined(separator: "\n").replacingOccurrences(of: "name: open-hall", with: "name: \(name)")
                .write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let two = try indoorlab(["tune", try keeping(["H1", "H2"], as: "two")])
        #expect(two.status == 2, "\(two.stderr)")
        #expect(two.stderr.contains("two.yaml: beacons: 2 beacons give no fix anywhere: the one-scan fix needs 3 heard"), "\(two.stderr)")
        #expect(two.stdout.isEmpty)
        let three = try indoorlab(["tune", try keeping(["H1", "H2", "H3"], as: "three"), "--draws", "2"])
        #expect(three.status == 0, "\(three.stderr)")
        #expect(three.stdout.contains("no fix") && !three.stdout.contains("inf"), "\(three.stdout)")
    }

    /// A one-letter relative output directory (`--out-dir q`) is made where the command runs. Foundation's
    /// `deletingLastPathComponent` trapped on "q", so this crashed every command that makes its directory.
    @Test func aOneLetterOutputDirectoryIsMade() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plot = try indoorlab(["plot", "crlb", "--scenario", "open-hall", "--out-dir", "q", "--format", "svg"], cwd: dir)
        #expect(plot.status == 0, "\(plot.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("q/open-hall-crlb.svg").path))
        let compare = try indoorlab(["compare", "open-hall", "--seeds", "1", "--estimators", "proximity", "--out", "r"], cwd: dir)
        #expect(compare.status == 0, "\(compare.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("r/open-hall-epochs.csv").path))
    }

    /// A condition, estimator or scenario listed twice is a usage error (each would be run and reported twice, and
    /// results are kept by name), with the command's own usage line.
    @Test func aListedTwiceIsRefused() throws {
        let conditions = try indoorlab(["compare", "open-hall", "--seeds", "1", "--conditions", "ideal,ideal"])
        #expect(conditions.status == 64 && conditions.stderr.contains("'ideal' is listed twice"), "\(conditions.stderr)")
        let estimators = try indoorlab(["coverage", "open-hall", "--seeds", "1", "--estimator", "centroid,centroid"])
        #expect(estimators.status == 64 && estimators.stderr.contains("'centroid' is listed twice"), "\(estimators.stderr)")
        let scenarios = try indoorlab(["coverage", "open-hall", "open-hall", "--seeds", "1"])
        #expect(scenarios.status == 64 && scenarios.stderr.contains("two scenarios are named 'open-hall'"), "\(scenarios.stderr)")
        #expect(scenarios.stderr.contains("Usage: indoorlab coverage"), "\(scenarios.stderr)")
        for r in [conditions, estimators, scenarios] { #expect(r.stdout.isEmpty) }
    }

    /// Options that cannot work are refused before any work, with exit 64: a spacing that asks for billions of
    /// test points, an estimator that states no ellipse for coverage, options that contradict each other or do not
    /// apply to the format, a --real directory without the datasets.
    @Test func impossibleOptionsAreUsageErrors() throws {
        let tiny = try indoorlab(["plan", "open-hall", "--target-p90", "2", "--point-spacing", "0.0001"])
        #expect(tiny.status == 64 && tiny.stderr.contains("--point-spacing must be at least 0.1 m"), "\(tiny.stderr)")
        let fine = try indoorlab(["plan", "open-hall", "--target-p90", "2", "--point-spacing", "0.15", "--candidate-spacing", "0.1"])
        #expect(fine.status == 64 && fine.stderr.contains("the budget is 20000000"), "\(fine.stderr)")
        let centroid = try indoorlab(["coverage", "open-hall", "--seeds", "1", "--conditions", "ideal", "--estimator", "centroid"])
        #expect(centroid.status == 64 && centroid.stderr.contains("stated no uncertainty ellipse"), "\(centroid.stderr)")
        #expect(centroid.stdout.isEmpty)
        let both = try indoorlab(["bench", "--only", "locator", "--skip-tournament"])
        #expect(both.status == 64 && both.stderr.contains("do not go together"), "\(both.stderr)")
        let power = try indoorlab(["import", "--format", "danis", "x.mbd", "-o", "/tmp/never.sqlite", "--tx-power", "-12"])
        #expect(power.status == 64 && power.stderr.contains("--tx-power applies to uji only"), "\(power.stderr)")
        let odd = try indoorlab(["import", "--format", "uji", "x", "-o", "/tmp/never.sqlite", "--tx-power", "-5"])
        #expect(odd.status == 64 && odd.stderr.contains("-4, -12, -20"), "\(odd.stderr)")
        let real = try indoorlab(["compare", "open-hall", "--seeds", "1", "--real", "/nonexistent"])
        #expect(real.status == 64 && real.stderr.contains("no such directory") && real.stdout.isEmpty, "\(real.stderr)")
        let empty = try indoorlab(["compare", "open-hall", "--seeds", "1", "--real", root.appendingPathComponent("Scenarios").path])
        #expect(empty.status == 64 && empty.stderr.contains("found neither") && empty.stdout.isEmpty, "\(empty.stderr)")
    }

    /// With --real over two seeds, the particle filter runs on the real protocols once per seed and the others once: the
    /// output says so only when an estimator that draws ran, and counts each real scan once.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: root.appendingPathComponent("../shared/datasets/uji-ble-geo/dep/geo.csv").path),
                   "needs ../shared/datasets"))
    func realProtocolsOverSeveralSeeds() throws {
        let datasets = root.appendingPathComponent("../shared/datasets").standardizedFileURL.path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("real-seeds-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = try indoorlab(["compare", "open-hall", "--seeds", "2", "--conditions", "ideal", "--estimators", "weighted-centroid,particle-filter",
                               "--real", datasets, "--out", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("real protocols: particle-filter (which draw random numbers) ran once per seed, their figures pooled over the 2 seeds"))
        // The epochs the line counts: open-hall's of both seeds, each real protocol's scans once.
        var epochs = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: out) where file.hasSuffix("-epochs.csv") {
            let rows = try String(contentsOfFile: out + "/" + file, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            let real = !file.hasPrefix("open-hall")
            var seen = Set<String>(), seeds: [String: Set<String>] = [:]
            for c in rows {   // scenario, seed, estimator, walk, epoch, …
                seen.insert((real ? "" : String(c[1])) + "/" + c[3] + "/" + c[4])
                seeds[String(c[2]), default: []].insert(String(c[1]))
            }
            epochs += seen.count
            if real { #expect(seeds["particle-filter"] == ["1", "2"] && seeds["weighted-centroid"] == ["1"], "\(file): \(seeds)") }
        }
        #expect(epochs > 2000 && r.stdout.contains("\n\(epochs) epochs × 2 estimators in "), "\(epochs): \(r.stdout.suffix(300))")
        let once = try indoorlab(["compare", "open-hall", "--seeds", "2", "--conditions", "ideal", "--estimators", "weighted-centroid", "--real", datasets])
        #expect(once.status == 0 && !once.stdout.contains("ran once per seed"), "\(once.stderr)")
    }

    /// A negative number is read as the option's value ("--seed -5" is an invalid seed, "--offset -15" a weak
    /// phone), not as a missing value followed by an unknown option.
    @Test func aNegativeNumberIsAnOptionsValue() throws {
        let seed = try indoorlab(["simulate", "open-hall", "--seed", "-5"])
        #expect(seed.status == 64 && seed.stderr.contains("The value '-5' is invalid for '--seed <seed>'")
                && seed.stderr.contains("expected a whole number from 0 to 18446744073709551615"), "\(seed.stderr)")
        let target = try indoorlab(["plan", "open-hall", "--target-p90", "-1"])
        #expect(target.status == 64 && target.stderr.contains("--target-p90 must be a positive number of metres"), "\(target.stderr)")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let weak = try indoorlab(["plot", "offset-learning", "--offset", "-15", "--runs", "1", "--scans", "3", "--json", "--out-dir", dir.path])
        #expect(weak.status == 0, "\(weak.stderr)")
        // With --json, standard output is the JSON alone (the figures' paths go to standard error).
        let curve = try #require(try JSONSerialization.jsonObject(with: Data(weak.stdout.utf8)) as? [String: Any])
        #expect((curve["offset"] as? Double) == -15)
        #expect(weak.stderr.contains("offset-learning.png"))
    }

    /// A malformed SOURCE_DATE_EPOCH is bad input (the reproducible-builds specification asks for an error), not
    /// silently the clock: no recording is written.
    @Test func aMalformedSourceDateEpochIsRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("r.sqlite").path
        let r = try indoorlab(["record", "open-hall", "--walk", "loop", "-o", out], environment: ["SOURCE_DATE_EPOCH": "abc"])
        #expect(r.status == 2 && r.stderr.contains("SOURCE_DATE_EPOCH: expected a whole number of seconds"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let ok = try indoorlab(["record", "open-hall", "--walk", "loop", "-o", out], environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        #expect(ok.status == 0, "\(ok.stderr)")
    }

    @Test func aNegativeCountIsANumberOutOfRange() throws {
        let r = try indoorlab(["compare", "--seeds", "-1"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--seeds must be between 1 and 200, found -1"), "\(r.stderr)")
        let huge = try indoorlab(["compare", "--seeds", "9223372036854775807"])
        #expect(huge.status == 64 && huge.stderr.contains("--seeds must be between 1 and 200"), "\(huge.stderr)")
    }
}
