import Foundation
import Testing

/// Every command's `--help` and its whole standard output on a tiny venue (Expected/tiny-room.yaml: 4 beacons, a 4 m
/// walk; Expected/tiny-lab-csv: three scan windows in the lab's CSV), compared with the stored expectations in Expected/ the way ``ExpectedOutputTests`` compares plan's, tune's
/// and plot's. Regenerate after an intended change with `INDOORLAB_RECORD_EXPECTED=1` and review `git diff`.
extension ExpectedOutputTests {
    static let commands = ["validate", "simulate", "compare", "plot", "plan", "tune", "sweep", "record", "import", "replay", "calibrate",
                           "coverage", "bench", "serve", "phone"]

    @Test func theToolsHelpListsEveryCommand() throws {
        let r = try indoorlab(["--help"])
        try Self.check("help/indoorlab", r)
        for c in Self.commands { #expect(r.stdout.contains("  \(c) "), "indoorlab --help lists \(c)") }
    }

    @Test(arguments: commands) func everyCommandsHelpIsAsStored(command: String) throws {
        try Self.check("help/\(command)", try indoorlab([command, "--help"]))
    }

    /// A scratch folder holding a copy of the tiny venue.
    static func tinyRoom() throws -> URL {
        let dir = try temporaryDirectory("expected")
        try FileManager.default.copyItem(at: expectedDir.appendingPathComponent("tiny-room.yaml"), to: dir.appendingPathComponent("tiny-room.yaml"))
        return dir
    }

    @Test func validateSimulateRecordImportReplayAndCalibrateOnATinyRoom() throws {
        let dir = try Self.tinyRoom()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pinned = ["SOURCE_DATE_EPOCH": "0"]
        try Self.check("validate", try indoorlab(["validate", "tiny-room.yaml"], cwd: dir))
        let readings = try indoorlab(["simulate", "tiny-room.yaml", "--walk", "step", "--seed", "1"], cwd: dir)
        try Self.check("simulate", readings)
        try Self.check("simulate-json", try indoorlab(["simulate", "tiny-room.yaml", "--walk", "step", "--seed", "1", "--format", "json"], cwd: dir))
        try Self.check("record", try indoorlab(["record", "tiny-room.yaml", "--walk", "step", "--seed", "1", "-o", "step.sqlite"], cwd: dir, environment: pinned))
        // Three scan windows in the lab's CSV (Expected/tiny-lab-csv), imported with the tiny room as its venue.
        try FileManager.default.copyItem(at: Self.expectedDir.appendingPathComponent("tiny-lab-csv"), to: dir.appendingPathComponent("tiny-lab-csv"))
        let imported = try indoorlab(["import", "--format", "lab-csv", "tiny-lab-csv", "--scenario", "tiny-room.yaml", "-o", "imported.sqlite"],
                                     cwd: dir, environment: pinned)
        // Its speed is a timing, as durations are.
        try Self.check("import", Run(status: imported.status, stdout: imported.stdout.replacingOccurrences(
            of: #"[0-9.]+( [kM])? readings/s"#, with: "<rate> readings/s", options: .regularExpression), stderr: imported.stderr))
        try Self.check("replay", try indoorlab(["replay", "step.sqlite", "--estimators", "least-squares,offset-learning,particle-filter"], cwd: dir))
        try Self.check("calibrate", try indoorlab(["calibrate", "step.sqlite"], cwd: dir))
    }

    @Test func compareAndCoverageOnATinyRoom() throws {
        let dir = try Self.tinyRoom()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.check("compare", try indoorlab(["compare", "tiny-room.yaml", "--seeds", "2", "--conditions", "ideal,field",
                                                 "--estimators", "least-squares,proximity,offset-learning,particle-filter"], cwd: dir))
        try Self.check("coverage", try indoorlab(["coverage", "tiny-room.yaml", "--seeds", "2", "--estimator", "offset-learning,particle-filter"], cwd: dir))
    }

    /// A sweep of the tiny room: its table and what it wrote; `sweep merge` again gives the same; `sweep run` one shard.
    @Test func sweepOnATinyRoom() throws {
        let dir = try Self.tinyRoom()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "base: tiny-room.yaml\naxes:\n  radio.sigma: [2, 6]\nestimators: [least-squares, proximity]\nseeds: 3\nshards: 2\n"
            .write(to: dir.appendingPathComponent("spec.yaml"), atomically: true, encoding: .utf8)
        try Self.check("sweep", try indoorlab(["sweep", "spec.yaml", "--out", "study", "--plots", "plots"], cwd: dir))
        let merged = try String(contentsOf: dir.appendingPathComponent("study/summary.csv"), encoding: .utf8)
        let again = try indoorlab(["sweep", "merge", "spec.yaml", "--out", "study", "--plots", "plots"], cwd: dir)
        let remerged = try String(contentsOf: dir.appendingPathComponent("study/summary.csv"), encoding: .utf8)
        #expect(again.status == 0 && remerged == merged)
        try Self.check("sweep-run", try indoorlab(["sweep", "run", "spec.yaml", "--shard", "1/3", "--out", "other"], cwd: dir))
    }

    /// bench's figures are timings: its figures' names, units and notes are stored; every number (with its k or M),
    /// whether a target is met, and the columns' widths are masked.
    @Test func benchPrintsItsFiguresAndTargets() throws {
        let r = try indoorlab(["bench", "--only", "locator", "--rounds", "1", "--work", "20"])
        let masked = r.stdout.replacingOccurrences(of: #"[0-9]+(\.[0-9]+)?( [kM]\b)?"#, with: "#", options: .regularExpression)
            .replacingOccurrences(of: #"(, not met)?\)"#, with: ")", options: .regularExpression)
            .replacingOccurrences(of: #" +"#, with: " ", options: .regularExpression)
        try Self.check("bench", Run(status: r.status, stdout: masked, stderr: r.stderr))
    }
}
