import Foundation
import LabCore
import LabEstimators
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import LabStore

/// The regression gate teams put in CI: strict mode, reviewable baselines, JUnit, an installed tool.
@Suite(.enabled(if: haveBinary, "needs the built indoorlab binary"))
struct GateTests {
    @Test func strictModeFailsWithoutBaselinesOrWithoutTheShippedEstimator() throws {
        let dir = try temporaryDirectory("gate").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try simulatedRecording(in: dir)
        // No baselines: plain replay passes ("nothing checked"), strict fails.
        #expect(try indoorlab(["replay", path, "--estimators", "centroid"]).status == 0)
        let none = try indoorlab(["replay", path, "--strict", "--estimators", "centroid"])
        #expect(none.status == 1 && none.stdout.contains("no baseline checked"), "\(none.stdout)")
        // Baselines for two simple estimators only: they hold, but the shipped one is unchecked.
        #expect(try indoorlab(["replay", path, "--estimators", "centroid,proximity", "--update-baseline"]).status == 0)
        let partial = try indoorlab(["replay", path, "--strict", "--estimators", "centroid,proximity"])
        #expect(partial.status == 1, "\(partial.stdout)")
        #expect(partial.stdout.contains("the shipped estimator (\(EstimatorKind.shipped.rawValue)) was not checked"), "\(partial.stdout)")
        #expect(partial.stdout.contains("the shipped tracker (\(EstimatorKind.shippedTracker.rawValue)) was not checked"), "\(partial.stdout)")
        // The baselines that were checked hold, but the log's last line is the gate's verdict, not a pass.
        let tail = partial.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(tail == "FAILED (--strict): 1 recording not gated" && partial.stdout.contains("baselines hold"), "\(partial.stdout)")
        #expect(try indoorlab(["replay", path, "--estimators", "centroid,proximity"]).status == 0, "without --strict it passes as before")
        // The one-scan fix's baselines alone: the library's stream, the tournament's winner, is still unchecked.
        #expect(try indoorlab(["replay", path, "--estimators", EstimatorKind.shipped.rawValue, "--update-baseline"]).status == 0)
        let snapshotOnly = try indoorlab(["replay", path, "--strict"])
        #expect(snapshotOnly.status == 1 && !snapshotOnly.stdout.contains("the shipped estimator (")
                && snapshotOnly.stdout.contains("the shipped tracker (\(EstimatorKind.shippedTracker.rawValue)) was not checked: it was not run"),
                "\(snapshotOnly.stdout)")
        // With the tracker's baselines too, strict passes.
        #expect(try indoorlab(["replay", path, "--estimators", EstimatorKind.shippedTracker.rawValue, "--update-baseline"]).status == 0)
        let full = try indoorlab(["replay", path, "--strict"])
        #expect(full.status == 0 && full.stdout.contains("baselines hold"), "\(full.stdout)\(full.stderr)")
    }

    @Test func baselinesLiveInAReviewableFileThatReplayReads() throws {
        let dir = try temporaryDirectory("gate").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try simulatedRecording(in: dir)
        #expect(try indoorlab(["replay", path, "--estimators", "centroid", "--update-baseline"]).status == 0)
        let sidecar = dir + "/r.baselines.json"
        let first = try String(contentsOfFile: sidecar, encoding: .utf8)
        #expect(first.contains("\"centroid\"") && first.contains("\"p75\""), "\(first)")
        // A second update of another estimator keeps the first and writes the same bytes for it (stable order).
        #expect(try indoorlab(["replay", path, "--estimators", "proximity", "--update-baseline"]).status == 0)
        let second = try String(contentsOfFile: sidecar, encoding: .utf8)
        #expect(second.contains("\"proximity\""))
        let centroid = { (text: String) in
            (((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any])?["baselines"] as? [String: Any])?["centroid"] as? NSDictionary
        }
        #expect(centroid(second) != nil && centroid(second) == centroid(first), "centroid's baselines did not move")
        // The same baselines give the same bytes.
        #expect(try indoorlab(["replay", path, "--estimators", "centroid,proximity", "--update-baseline"]).status == 0)
        #expect(try String(contentsOfFile: sidecar, encoding: .utf8) == second, "stable key order and number format")
        #expect(try RecordingStore.read(path: path).baselines == (try BaselineFile.read(path: sidecar)), "the recording holds the same baselines")
        // Editing the file (as a reviewer would) is what replay checks: tighten centroid's mean to 0.
        let edited = second.replacingOccurrences(of: #""mean" : \{\s*"tolerance" : [0-9.e-]+,\s*"value" : [0-9.e-]+\s*\}"#,
                                                 with: #""mean" : { "tolerance" : 0, "value" : 0 }"#, options: .regularExpression)
        #expect(edited != second)
        try edited.write(toFile: sidecar, atomically: true, encoding: .utf8)
        let r = try indoorlab(["replay", path])
        #expect(r.status == 1 && r.stdout.contains("REGRESSIONS"), "\(r.stdout)")
        // A file of another recording is refused.
        try second.replacingOccurrences(of: "\"recording\" : \"open-hall-loop-seed1\"", with: "\"recording\" : \"elsewhere\"")
            .write(toFile: sidecar, atomically: true, encoding: .utf8)
        let other = try indoorlab(["replay", path])
        #expect(other.status == 2 && other.stderr.contains("these baselines are of recording 'elsewhere'"), "\(other.stderr)")
        // A broken file is bad input naming its field.
        try #"{"recording": "r", "baselines": {"centroid": {"mean": {"value": "x", "tolerance": 1}}}}"#.write(toFile: sidecar, atomically: true, encoding: .utf8)
        let bad = try indoorlab(["replay", path])
        #expect(bad.status == 2 && bad.stderr.contains("r.baselines.json: baselines.centroid.mean.value"), "\(bad.stderr)")
    }

    @Test func junitHasOneTestCasePerRecordingEstimatorAndMetric() throws {
        let dir = try temporaryDirectory("gate").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try simulatedRecording(in: dir)
        #expect(try indoorlab(["replay", path, "--estimators", "centroid,proximity", "--update-baseline"]).status == 0)
        let stored = try RecordingStore.read(path: path).baselines
        let xmlPath = dir + "/out/replay.xml"
        let r = try indoorlab(["replay", path, "--strict", "--junit", xmlPath])
        #expect(r.status == 1, "strict: the shipped estimator is unchecked")
        let doc = try XMLDocument(contentsOf: URL(fileURLWithPath: xmlPath))
        let cases = try doc.nodes(forXPath: "//testcase")
        #expect(cases.count == stored.count + 1, "one per baseline, plus the strict case")
        let failures = try doc.nodes(forXPath: "//testcase/failure[@type='strict']")
        #expect(failures.count == 1)
        let names = Set(try doc.nodes(forXPath: "//testcase/@name").compactMap(\.stringValue))
        #expect(names.contains("centroid p75") && names.contains("proximity availability"), "\(names)")
        #expect(try doc.nodes(forXPath: "/testsuites/@tests").first?.stringValue == "\(stored.count + 1)")
    }

    @Test func theInstalledToolFindsItsScenariosAndSaysItsVersion() throws {
        let dir = try temporaryDirectory("install").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The Makefile's own install recipe, with the debug binary.
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.arguments = ["make", "-s", "install-files", "PREFIX=\(dir)/prefix", "BIN=\(binary)"]
        make.currentDirectoryURL = root
        make.standardOutput = FileHandle.nullDevice
        try make.run(); make.waitUntilExit()
        #expect(make.terminationStatus == 0)
        let installed = dir + "/prefix/bin/indoorlab"
        let elsewhere = dir + "/work"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        func run(_ args: [String], env: [String: String] = [:], executable: String? = nil) throws -> Run {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: executable ?? installed)
            p.arguments = args
            p.currentDirectoryURL = URL(fileURLWithPath: elsewhere)
            p.environment = ProcessInfo.processInfo.environment.filter { $0.key != "INDOORLAB_SCENARIOS" }.merging(env) { $1 }
            let out = dir + "/out", err = dir + "/err"
            _ = FileManager.default.createFile(atPath: out, contents: nil); _ = FileManager.default.createFile(atPath: err, contents: nil)
            p.standardOutput = FileHandle(forWritingAtPath: out); p.standardError = FileHandle(forWritingAtPath: err)
            try p.run(); p.waitUntilExit()
            return Run(status: p.terminationStatus, stdout: try String(contentsOfFile: out, encoding: .utf8),
                                 stderr: try String(contentsOfFile: err, encoding: .utf8))
        }
        let v = try run(["validate", "open-hall"])
        #expect(v.status == 0 && v.stdout.contains(dir + "/prefix/share/indoorlab/Scenarios/open-hall.yaml"), "\(v.stdout)\(v.stderr)")
        // $INDOORLAB_SCENARIOS points elsewhere first.
        let own = dir + "/mine"
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
        try scenarioText("open-hall").replacingOccurrences(of: "name: open-hall", with: "name: my-hall")
            .write(toFile: own + "/my-hall.yaml", atomically: true, encoding: .utf8)
        let mine = try run(["validate", "my-hall"], env: ["INDOORLAB_SCENARIOS": own])
        #expect(mine.status == 0 && mine.stdout.contains("my-hall"), "\(mine.stdout)\(mine.stderr)")
        // A copy of the binary with no scenarios anywhere near it says where it looked, not an empty list.
        let lone = dir + "/lone"
        try FileManager.default.createDirectory(atPath: lone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: installed, toPath: lone + "/indoorlab")
        // A scenario named that is not there is bad input (2); compare without a scenario has nothing to run, a usage error (64).
        for (args, status) in [(["validate", "open-hall"], Int32(2)), (["compare", "--seeds", "1"], 64)] {
            let missing = try run(args, executable: lone + "/indoorlab")
            #expect(missing.status == status && missing.stderr.contains("no bundled scenarios were found (looked in \(elsewhere)/Scenarios, ")
                    && missing.stderr.contains("set INDOORLAB_SCENARIOS"), "\(args): \(missing.stderr)")
        }
        let version = try run(["--version"])
        #expect(version.status == 0 && version.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, "\(version.stdout)")
    }
}
