import Foundation
import LabCore
import Testing
@testable import LabStore

/// Output files as the commands write them: never an input overwritten, devices written to directly, an output directory
/// checked before the work (LabStoreTests' OutputFileTests holds ``OutputFile`` itself).
@Suite struct OutputFileTests {
    @Test func anOutputThatIsAnInputIsRefused() throws {
        let dir = try temporaryDirectory("out").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = dir + "/s.yaml"
        try scenarioText("open-hall").write(toFile: scenario, atomically: true, encoding: .utf8)
        // The same file by another path (a link) is the same input.
        symlink("s.yaml", dir + "/alias.yaml")
        for out in [scenario, dir + "/alias.yaml", dir + "/./s.yaml"] {
            let r = try indoorlab(["simulate", scenario, "-o", out])
            #expect(r.status == 2 && r.stderr.contains("is also an input"), "\(out): \(r.stderr)")
        }
        #expect(try String(contentsOfFile: scenario, encoding: .utf8) == scenarioText("open-hall"), "the scenario is intact")
    }

    @Test func devicesAreWrittenToAndTheirErrorsReported() throws {
        try OutputFile.write(Data("ignored".utf8), to: "/dev/null")
        var st = stat()
        #expect(stat("/dev/null", &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR, "/dev/null is still a device")
        #expect(throws: InputError(file: "/dev/full", "cannot write the output file: No space left on device")) {
            try OutputFile.write(Data("x".utf8), to: "/dev/full")
        }
        #expect(stat("/dev/full", &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR, "/dev/full is still a device")
        let r = try indoorlab(["simulate", "open-hall", "-o", "/dev/full"])
        #expect(r.status == 2 && r.stderr.contains("/dev/full: cannot write the output file: No space left on device"), "\(r.stderr)")
    }

    @Test func devStdoutIntoAPipeIsWrittenDirectly() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["simulate", "open-hall", "-o", "/dev/stdout"]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(String(decoding: out, as: UTF8.self).hasPrefix("walk,epoch,"), "the CSV came through the pipe")
    }

    /// A kill while `compare --out` writes its results leaves a hidden partial file (the old file stays whole); the next
    /// run into that directory removes it, as it does a figure's.
    @Test func whatAKilledCompareLeftIsRemovedByTheNextRun() throws {
        let dir = try temporaryDirectory("killed-out").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let args = ["compare", "open-hall", "--seeds", "1", "--estimators", "proximity", "--out", dir + "/r", "--plots", dir + "/p"]
        let killed = try indoorlab(args, environment: ["INDOORLAB_TEST_KILL_AT": "output-before-rename"])
        #expect(killed.status == SIGKILL, "killed before renaming its first output: \(killed.status) \(killed.stderr)")
        let left = listing(dir + "/r").filter { $0.contains(".partial-") }
        #expect(left.count == 1, "the kill left its partial file: \(listing(dir + "/r"))")
        // A figure a killed run left half-drawn (its writer's pid is gone: far above pid_max).
        try FileManager.default.createDirectory(atPath: dir + "/p", withIntermediateDirectories: true)
        let figure = dir + "/p/.open-hall-cdf.png.partial-99999999-0A1B2C3D"
        try "half".write(toFile: figure, atomically: false, encoding: .utf8)
        #expect(try indoorlab(args).status == 0)
        #expect(listing(dir + "/r").allSatisfy { !$0.hasPrefix(".") }, "\(listing(dir + "/r"))")
        #expect(listing(dir + "/p").allSatisfy { !$0.hasPrefix(".") }, "\(listing(dir + "/p"))")
    }

    /// An output directory that cannot be made fails before the work (compare's tournament, plot's drawing,
    /// plan's search), with the option and the component at fault; nothing is left behind.
    @Test func anOutputDirectoryIsCheckedBeforeTheWork() throws {
        let dir = try temporaryDirectory("out").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "x".write(toFile: dir + "/file", atomically: true, encoding: .utf8)
        let cases: [[String]] = [
            ["compare", "open-hall", "--seeds", "1", "--out", dir + "/new/results", "--plots", dir + "/file/plots"],
            ["compare", "open-hall", "--seeds", "1", "--out", dir + "/file/results"],
            ["plot", "offset-learning", "--runs", "1", "--scans", "1", "--out-dir", dir + "/file/p"],
            ["plan", "open-hall", "--target-p90", "2", "--plots", dir + "/file/p"],
        ]
        for args in cases {
            let start = Date()
            let r = try indoorlab(args)
            #expect(r.status == 2 && r.stderr.contains(dir + "/file is not a directory"), "\(args): \(r.stderr)")
            #expect(Date().timeIntervalSince(start) < 20, "\(args): refused before the work")
            #expect(listing(dir) == ["file"], "\(args): nothing made is left: \(listing(dir))")
        }
    }
}
