import Foundation
import LabCore
import LabEstimators
import LabEvaluation
import LabSimulation
import Testing
@testable import LabStore
import LabScenarioIO
import LabResults

/// The commands as a script or CI job runs them: exit codes, messages, files left behind.
@Suite(.enabled(if: haveBinary, "needs the indoorlab binary (swift build)"), .serialized) struct StoreCLITests {
    @Test func recordThenReplayMatchesTheTournamentAndGatesOnBaselines() throws {
        let dir = try temporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/hall.sqlite"
        let rec = try indoorlab(["record", "open-hall", "--walk", "loop", "--seed", "4", "-o", file])
        #expect(rec.status == 0, "\(rec.stderr)")
        #expect(rec.stdout.contains("recording 'open-hall-loop-seed4'"))
        #expect(listing(dir) == ["hall.sqlite"])

        // Same figures as the library computes from the simulator's epochs.
        let s = try scenario("open-hall")
        let epochs = try Simulator(scenario: s).simulate(walk: s.walks[0], seed: 4)
        let reference = Tournament.evaluate(epochs: epochs, venue: Venue(s), estimators: [.leastSquares, .proximity], scenario: s.name, seed: 4)
        let json = try indoorlab(["replay", file, "--estimators", "least-squares,proximity", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let scores = try #require(((report["recordings"] as? [[String: Any]])?.first?["scores"]) as? [[String: Any]])
        for kind in [EstimatorKind.leastSquares, .proximity] {
            let want = ScenarioScore(scenario: s.name, estimator: kind, results: reference.filter { $0.estimator == kind }).stats
            let got = try #require(scores.first { $0["estimator"] as? String == kind.rawValue })
            // Printed with every digit; JSON parsing may round the last one.
            func close(_ key: String, _ v: Double) -> Bool { abs(((got[key] as? Double) ?? .nan) - v) <= 1e-12 * max(1, abs(v)) }
            #expect(close("p75", want.p75) && close("mean", want.mean) && close("median", want.median), "\(kind)")
            #expect(close("p90", want.p90) && close("rmse", want.rmse) && close("availability", want.availability), "\(kind)")
            #expect(got["epochs"] as? Int == want.count)
        }

        // An estimator with no fix at all says what it lacks, in the table's notes and in the JSON.
        let none = try indoorlab(["replay", file, "--estimators", "fingerprint,bearing,proximity"])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(none.stdout.contains("fingerprint: needs a survey of the venue, and there is none"), "\(none.stdout)")
        #expect(none.stdout.contains("bearing: needs headings toward friezes, and the venue has none"), "\(none.stdout)")
        #expect(!none.stdout.contains("proximity: "), "\(none.stdout)")
        let noneJSON = try indoorlab(["replay", file, "--estimators", "fingerprint,proximity", "--json"])
        let noneScores = try #require(((try JSONSerialization.jsonObject(with: Data(noneJSON.stdout.utf8)) as? [String: Any])?["recordings"]
                                        as? [[String: Any]])?.first?["scores"] as? [[String: Any]])
        #expect((noneScores.first { $0["estimator"] as? String == "fingerprint" }?["noFix"] as? String)?.hasPrefix("needs a survey") == true)
        #expect(noneScores.first { $0["estimator"] as? String == "proximity" }?["noFix"] == nil)
        // A fit with the recording's radio map brings fingerprinting a survey: the map's grid.
        let fit = try indoorlab(["calibrate", file, "--per-beacon", "--radio-map", "--save-fit", dir + "/fit.json"])
        #expect(fit.status == 0 && fit.stdout.contains("# radio map: 8 beacons over"), "\(fit.stdout)\(fit.stderr)")
        let mapped = try indoorlab(["replay", file, "--radio", dir + "/fit.json", "--estimators", "fingerprint,particle-filter", "--json"])
        #expect(mapped.status == 0, "\(mapped.stderr)")
        let mappedScores = try #require(((try JSONSerialization.jsonObject(with: Data(mapped.stdout.utf8)) as? [String: Any])?["recordings"]
                                          as? [[String: Any]])?.first?["scores"] as? [[String: Any]])
        let fingerprint = try #require(mappedScores.first { $0["estimator"] as? String == "fingerprint" })
        #expect(fingerprint["noFix"] == nil && ((fingerprint["availability"] as? Double) ?? 0) > 0.9, "\(fingerprint)")
        try FileManager.default.removeItem(atPath: dir + "/fit.json")

        // Store baselines: replay passes; tighten one beyond what the estimator achieves: exit 1, named.
        let update = try indoorlab(["replay", file, "--estimators", "least-squares,proximity", "--update-baseline"])
        #expect(update.status == 0, "\(update.stderr)")
        let pass = try indoorlab(["replay", file])
        #expect(pass.status == 0, "\(pass.stdout)\(pass.stderr)")
        #expect(pass.stdout.contains("baselines hold"))
        var baselines = try RecordingStore.read(path: file).baselines
        let i = try #require(baselines.firstIndex { $0.estimator == .leastSquares && $0.metric == .p90 })
        baselines[i].value *= 0.6
        try RecordingStore.setBaselines(baselines, path: file)
        let fail = try indoorlab(["replay", file])
        #expect(fail.status == 1)
        let row = try #require(fail.stdout.split(separator: "\n").first { $0.contains("least-squares") && $0.contains("p90") })
        #expect(row.contains(file))
        #expect(fail.stdout.contains("recording") && fail.stdout.contains("baseline") && fail.stdout.contains("tolerance"))
        let failJSON = try indoorlab(["replay", file, "--json"])
        #expect(failJSON.status == 1)
        #expect(failJSON.stdout.contains("\"regressions\" : 1") && failJSON.stdout.contains("\"status\" : \"regression\""))
    }

    /// Baselines of a recording where no scored window heard a beacon would hold availability 0 of nothing and pass
    /// every later gate: --update-baseline refuses them (exit 2) and stores nothing.
    @Test func noBaselinesAreStoredForARecordingThatHeardNothingScored() throws {
        let dir = try temporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/csv", withIntermediateDirectories: true)
        try "id,x,y\nA,0,0\nB,10,0\nC,5,8\n".write(toFile: dir + "/csv/beacons.csv", atomically: true, encoding: .utf8)
        try "t,beacon,rssi\n0.5,A,-60\n0.6,B,-70\n0.7,C,-65\n".write(toFile: dir + "/csv/readings.csv", atomically: true, encoding: .utf8)
        try "t,x,y\n100,5,4\n".write(toFile: dir + "/csv/truth.csv", atomically: true, encoding: .utf8)
        #expect(try indoorlab(["import", "--format", "lab-csv", dir + "/csv", "-o", dir + "/z.sqlite"]).status == 0)
        let r = try indoorlab(["replay", dir + "/z.sqlite", "--update-baseline", "--estimators", "centroid"])
        #expect(r.status == 2 && r.stderr.contains("has no scored epoch that heard a beacon"), "\(r.stderr)")
        #expect(try RecordingStore.read(path: dir + "/z.sqlite").baselines.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir + "/z.baselines.json"))
    }

    /// A handful of samples is fitted (the arithmetic holds) but called too few to calibrate on, on standard error; a
    /// simulated walk's thousands are not (a walkthrough found a 3-sample fit printed as a calibration).
    @Test func calibrateWarnsWhenTooFewSamplesBackTheFit() throws {
        let dir = try temporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try writeLabCSV(dir + "/csv")
        #expect(try indoorlab(["import", "--format", "lab-csv", dir + "/csv", "-o", dir + "/few.sqlite"]).status == 0)
        let few = try indoorlab(["calibrate", dir + "/few.sqlite"])
        #expect(few.status == 0 && few.stdout.contains("radio:"), "\(few.stderr)")
        #expect(few.stderr.contains("warning: \(dir)/few.sqlite: only 6 RSSI samples with ground truth: too few to calibrate on"), "\(few.stderr)")
        let many = try indoorlab(["calibrate", try simulatedRecording(in: dir)])
        #expect(many.status == 0 && !many.stderr.contains("warning"), "\(many.stderr)")
    }

    @Test func badInputExitsWith2AndLeavesNothing() throws {
        let dir = try temporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Replay of files that are not recordings.
        try "not a database".write(toFile: dir + "/text.sqlite", atomically: true, encoding: .utf8)
        let text = try indoorlab(["replay", dir + "/text.sqlite"])
        #expect(text.status == 2)
        #expect(text.stderr.contains("text.sqlite: not an SQLite database"))
        let missing = try indoorlab(["replay", dir + "/missing.sqlite"])
        #expect(missing.status == 2 && missing.stderr.contains("no such file"))
        #expect(try indoorlab(["record", "open-hall", "--walk", "loop", "-o", dir + "/good.sqlite"]).status == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/good.sqlite"))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: dir + "/half.sqlite"))
        let half = try indoorlab(["replay", dir + "/half.sqlite"])
        #expect(half.status == 2 && half.stderr.contains("half.sqlite: the recording is damaged"), "\(half.stderr)")
        #expect(try indoorlab(["calibrate", dir + "/half.sqlite"]).status == 2)

        // Imports of bad rows: exit 2, file:line: field in the message, no recording, no partial file.
        try writeLabCSV(dir + "/csv", readings: "t,beacon,rssi\n0.1,A,-60\n0.2,B,-6o\n")
        let bad = try indoorlab(["import", "--format", "lab-csv", dir + "/csv", "-o", dir + "/out/r.sqlite"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("csv/readings.csv:3: rssi: expected a number, found '-6o'"), "\(bad.stderr)")
        #expect(listing(dir + "/out").isEmpty)
        try writeLabCSV(dir + "/csv", readings: "t,beacon,rssi\n0.1,A,-60\n0.2,X,-60\n")
        let unknown = try indoorlab(["import", "--format", "lab-csv", dir + "/csv", "-o", dir + "/out/r.sqlite"])
        #expect(unknown.status == 2 && unknown.stderr.contains("readings.csv:3: beacon: unknown beacon id 'X'"))
        #expect(listing(dir + "/out").isEmpty)

        // Importing into an existing file.
        let over = try indoorlab(["import", "--format", "lab-csv", dir + "/csv", "-o", dir + "/good.sqlite"])
        #expect(over.status == 2 && over.stderr.contains("already exists"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/good.sqlite")) == data)
        let again = try indoorlab(["record", "open-hall", "--walk", "loop", "-o", dir + "/good.sqlite"])
        #expect(again.status == 2 && again.stderr.contains("already exists"))

        // Unknown format and option checks.
        let xls = try indoorlab(["import", "--format", "xls", dir + "/csv", "-o", dir + "/x.sqlite"])
        #expect(xls.status == 64 && xls.stderr.contains("unknown format 'xls'; known: lab-csv, uji, danis"), "\(xls.stderr)")
        #expect(try indoorlab(["record", "open-hall", "--walk", "nowhere", "-o", dir + "/x.sqlite"]).status == 2)
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.sqlite"))
    }

    /// No output of calibrate may replace its recording, the recording's baselines file (read by name whenever the
    /// recording is replayed, so refused even before it exists) or another output; an unknown plot format is a
    /// usage error found before the fit is printed.
    @Test func calibrateNeverWritesOverItsInputsOrItself() throws {
        let dir = try temporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/hall.sqlite"
        #expect(try indoorlab(["record", "open-hall", "--walk", "loop", "--seed", "2", "-o", file]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let over = try indoorlab(["calibrate", file, "--save-fit", file])
        #expect(over.status == 2 && over.stderr.contains("is also an input"), "\(over.stderr)")
        let sidecar = try indoorlab(["calibrate", file, "--save-fit", dir + "/hall.baselines.json"])
        #expect(sidecar.status == 2 && sidecar.stderr.contains("baselines file"), "\(sidecar.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/hall.baselines.json"))
        let clash = try indoorlab(["calibrate", file, "--plot", dir + "/x", "--save-fit", dir + "/x.png"])
        #expect(clash.status == 2 && clash.stderr.contains("is also where --plot draws"), "\(clash.stderr)")
        for r in [over, sidecar, clash] { #expect(r.stdout.isEmpty, "work was done before the refusal: \(r.stdout)") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        let gif = try indoorlab(["calibrate", file, "--plot", dir + "/x.gif"])
        #expect(gif.status == 64 && gif.stderr.contains("unknown plot format '.gif'") && gif.stdout.isEmpty, "\(gif.stderr)")
        // A fit file that is not one names the missing key, not the decoder's internals.
        try Data("{}".utf8).write(to: URL(fileURLWithPath: dir + "/empty-fit.json"))
        let empty = try indoorlab(["replay", file, "--radio", dir + "/empty-fit.json"])
        #expect(empty.status == 2 && empty.stderr.contains("missing key 'p0'") && !empty.stderr.contains("CodingKeys"), "\(empty.stderr)")
    }

    @Test func calibratePrintsARadioBlockAndDrawsThePlot() throws {
        let dir = try temporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/hall.sqlite"
        #expect(try indoorlab(["record", "open-hall", "--walk", "loop", "--seed", "2", "-o", file]).status == 0)
        let r = try indoorlab(["calibrate", file, "--per-beacon", "--plot", dir + "/cal.svg"])
        #expect(r.status == 0, "\(r.stderr)")
        // The YAML block parses as a scenario's radio block.
        let yaml = r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
        let radioLines = yaml.components(separatedBy: "beacons:")[0]
        let s = try ScenarioLoader.parse(yaml: "name: x\nbounds: {width: 30, depth: 20}\n" + radioLines + "\nbeacons:\n  - {id: A, position: [1, 1]}\n", file: "pasted")
        #expect(abs(s.radio.p0 + 59) < 1 && abs(s.radio.exponent - 2) < 0.15 && abs(s.radio.sigma - 4) < 0.5)
        #expect(r.stdout.contains("- {id: H1, p0: "))
        let svg = try String(contentsOfFile: dir + "/cal.svg", encoding: .utf8)
        #expect(svg.contains("<svg") && svg.contains("<text"))
        let json = try indoorlab(["calibrate", file, "--json"])
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(((parsed["global"] as? [String: Any])?["samples"] as? Int ?? 0) > 1000)
        // --apply stores the fit.
        #expect(try indoorlab(["calibrate", file, "--per-beacon", "--apply"]).status == 0)
        let applied = try RecordingStore.read(path: file).venue.radio
        #expect(abs(applied.p0 - s.radio.p0) < 0.011 && abs(applied.exponent - s.radio.exponent) < 0.0011)
        // With the split by scan window: σ within windows and the model error, as the printed block says.
        #expect(abs(applied.sigma - s.radio.sigma) < 0.011 && abs(applied.modelError - s.radio.modelError) < 0.011)
        #expect(yaml.contains("model_error: "))
        // A simulated recording keeps its scenario's sensitivity: the block names none, and --apply leaves it.
        let stated = try scenario("open-hall").radio.sensitivity
        #expect(!yaml.contains("sensitivity:") && applied.sensitivity == stated)
    }

    /// The bundled recordings hold their baselines (the CI gate of this repository).
    @Test func bundledRecordingsHoldTheirBaselines() throws {
        let dir = root.appendingPathComponent("Recordings").path
        let files = listing(dir).filter { $0.hasSuffix(".sqlite") }.map { dir + "/" + $0 }
        #expect(files.count >= 3)
        for f in files {
            let size = (try FileManager.default.attributesOfItem(atPath: f)[.size] as? Int) ?? 0
            #expect(size < 1_000_000, "\(f): \(size) bytes")
            #expect(!(try RecordingStore.read(path: f).baselines.isEmpty), "\(f) has no baselines")
        }
        // The CI gate: every baseline holds, and both estimators the library ships are among those checked.
        let r = try indoorlab(["replay", "--strict"] + files)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    }

    /// SIGKILL at any moment of an import leaves either no recording or a complete, valid one.
    @Test func killedImportLeavesNoRecordingOrACompleteOne() throws {
        let dir = try temporaryDirectory("kill").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let readings = 300_000
        var text = "t,beacon,rssi\n"
        text.reserveCapacity(readings * 14)
        for i in 0..<readings { text += "\(i / 100).\(i % 100 < 10 ? "0" : "")\(i % 100),\(["A", "B", "C"][i % 3]),-\(50 + i % 40)\n" }
        try writeLabCSV(dir + "/in", readings: text, truth: "t,x,y\n" + (0..<(readings / 100)).map { "\($0).5,2,2" }.joined(separator: "\n") + "\n")

        var outcomes: [String] = []
        // The last "delay" is no deadline at all: that run must finish and leave a complete recording.
        for (k, delay) in [0.02, 0.15, 0.3, 0.6, 0.9, 1.3, 1.8, 2.5, 4.0, 1e6].enumerated() {
            let out = dir + "/out\(k)"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let file = out + "/r.sqlite"
            let p = Process()
            p.executableURL = URL(fileURLWithPath: binary)
            p.arguments = ["import", "--format", "lab-csv", dir + "/in", "-o", file]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            let deadline = Date().addingTimeInterval(delay)
            while p.isRunning && Date() < deadline { usleep(5_000) }
            let killed = p.isRunning
            if killed { kill(p.processIdentifier, SIGKILL) }
            p.waitUntilExit()
            if FileManager.default.fileExists(atPath: file) {
                let r = try RecordingStore.read(path: file)   // integrity check and schema
                #expect(r.rssi.count == readings && r.truth.count == readings / 100, "kill after \(delay) s: incomplete recording")
                outcomes.append("complete")
            } else {
                #expect(killed, "the import finished but left no file")
                outcomes.append("none")
            }
            // At most the hidden temporary file remains.
            #expect(listing(out).allSatisfy { $0 == "r.sqlite" || $0.hasPrefix(".r.sqlite.partial-") }, "\(listing(out))")
        }
        #expect(outcomes.contains("none") && outcomes.last == "complete", "\(outcomes)")

        // The next import cleans up what a killed one left.
        let out = dir + "/out0"
        try? FileManager.default.removeItem(atPath: out + "/r.sqlite")
        #expect(try indoorlab(["import", "--format", "lab-csv", dir + "/in", "-o", out + "/r.sqlite"]).status == 0)
        #expect(listing(out) == ["r.sqlite"])
    }

    /// The same guarantee at defined points of the write (the INDOORLAB_TEST_KILL_AT hook), so every phase is
    /// interrupted whatever the machine's speed: mid-insert, before the commit, before the flush, before and
    /// after the link into place.
    @Test func importKilledAtEachPhaseLeavesNothingOrAWholeRecording() throws {
        let dir = try temporaryDirectory("killpoints").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let readings = 20_000
        var text = "t,beacon,rssi\n"
        for i in 0..<readings { text += "\(i / 100).\(i % 100 < 10 ? "0" : "")\(i % 100),\(["A", "B", "C"][i % 3]),-\(50 + i % 40)\n" }
        try writeLabCSV(dir + "/in", readings: text, truth: "t,x,y\n" + (0..<(readings / 100)).map { "\($0).5,2,2" }.joined(separator: "\n") + "\n")
        let points: [(setting: String, complete: Bool)] = [
            ("rows:1", false), ("rows:\(readings / 2)", false), ("before-commit", false), ("before-flush", false),
            ("before-link", false), ("after-link", true),
        ]
        for (k, point) in points.enumerated() {
            let out = dir + "/out\(k)"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let file = out + "/r.sqlite"
            let p = Process()
            p.executableURL = URL(fileURLWithPath: binary)
            p.arguments = ["import", "--format", "lab-csv", dir + "/in", "-o", file]
            p.environment = ProcessInfo.processInfo.environment.merging(["INDOORLAB_TEST_KILL_AT": point.setting]) { $1 }
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGKILL, "\(point.setting): not killed there")
            if point.complete {
                let r = try RecordingStore.read(path: file)
                #expect(r.rssi.count == readings && r.truth.count == readings / 100, "\(point.setting): incomplete recording")
            } else {
                #expect(!FileManager.default.fileExists(atPath: file), "\(point.setting): a recording appeared")
            }
            #expect(listing(out).allSatisfy { $0 == "r.sqlite" || $0.hasPrefix(".r.sqlite.partial-") }, "\(listing(out))")
            // The next import into that directory removes what the killed one left.
            try? FileManager.default.removeItem(atPath: file)
            #expect(try indoorlab(["import", "--format", "lab-csv", dir + "/in", "-o", file]).status == 0)
            #expect(listing(out) == ["r.sqlite"], "\(point.setting): \(listing(out))")
        }
    }
}

/// The calibration protocol as two commands: a fit saved from one recording scores another.
@Suite(.enabled(if: haveBinary && FileManager.default.fileExists(atPath: datasets + "/uji-ble-geo/dep/geo.csv"), "needs the binary and ../shared/datasets"))
struct CalibrationProtocolCLITests {
    static func means(_ json: String) throws -> [String: Double] {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let rec = try #require((root["recordings"] as? [[String: Any]])?.first)
        var out: [String: Double] = [:]
        for s in rec["scores"] as? [[String: Any]] ?? [] { out[s["estimator"] as! String] = s["mean"] as? Double }
        return out
    }

    @Test func aFitSavedFromOneRecordingScoresAnother() throws {
        let dir = try temporaryDirectory("protocol").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for tx in ["-4", "-12"] {
            let r = try indoorlab(["import", "--format", "uji", datasets + "/uji-ble-geo", "--tx-power", tx, "-o", dir + "/tx\(tx).sqlite"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let cal = try indoorlab(["calibrate", dir + "/tx-4.sqlite", "--per-beacon", "--save-fit", dir + "/fit.json", "--json"])
        #expect(cal.status == 0, "\(cal.stderr)")
        let fit = try RadioFit.read(path: dir + "/fit.json")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(cal.stdout.utf8)) as? [String: Any])
        let global = try #require(report["global"] as? [String: Any])
        #expect(abs(fit.p0 - (global["p0"] as! Double)) < 0.006 && abs(fit.exponent - (global["exponent"] as! Double)) < 0.0006)
        #expect(fit.beaconP0.count >= 10 && fit.fittedOn == "uji-geo-tx-4dBm")

        let args = ["replay", dir + "/tx-12.sqlite", "--estimators", "power-centroid,least-squares", "--json"]
        let own = try Self.means(try indoorlab(args).stdout)
        let fittedRun = try indoorlab(args + ["--radio", dir + "/fit.json"])
        #expect(!fittedRun.stderr.contains("note:"), "the same venue uses every entry: \(fittedRun.stderr)")
        let fitted = try Self.means(fittedRun.stdout)
        #expect(own["power-centroid"] == fitted["power-centroid"], "power weights need no radio model")
        // Entries the scored recording has no use for are said, not silently dropped.
        try #"{"p0": -60, "exponent": 2, "sigma": 4, "beaconP0": {"ZZ9": -61}, "materialLoss": {"unobtainium": 3}, "fittedOn": "x"}"#
            .write(toFile: dir + "/other.json", atomically: true, encoding: .utf8)
        let other = try indoorlab(args + ["--radio", dir + "/other.json"])
        #expect(other.status == 0 && other.stderr.contains("note: \(dir)/other.json: fits beacon ZZ9 and material unobtainium, which \(dir)/tx-12.sqlite does not have: not used"),
                "\(other.stderr)")
        #expect(own["least-squares"] != fitted["least-squares"], "least squares scored with the saved model")

        try #"{"p0": -60, "exponent": -2, "sigma": 4, "beaconP0": {}, "fittedOn": "x"}"#.write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        let bad = try indoorlab(args + ["--radio", dir + "/bad.json"])
        #expect(bad.status == 2 && bad.stderr.contains("bad.json: exponent: expected 0.5–10, found -2"), "\(bad.stderr)")
        // The ranges a scenario takes, so that a fit never makes a recording that cannot be read back.
        try #"{"p0": -60, "exponent": 2, "sigma": 40, "beaconP0": {"A": 30}, "fittedOn": "x"}"#.write(toFile: dir + "/loud.json", atomically: true, encoding: .utf8)
        let loud = try indoorlab(args + ["--radio", dir + "/loud.json"])
        #expect(loud.status == 2 && loud.stderr.contains("loud.json: sigma: expected 0–30 dB, found 40"), "\(loud.stderr)")
    }
}
