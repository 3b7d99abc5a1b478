import Foundation
import LabCore
import Testing
@testable import LabStore

/// Concurrent runs and killed writers on one recording: nothing lost, a lock reported as a lock.
@Suite(.enabled(if: haveBinary, "needs the built indoorlab binary"), .serialized)
struct LockTests {
    static func start(_ args: [String], environment: [String: String] = [:], executable: String = binary) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = executable == binary ? args : Array(args.dropFirst())
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// A writer killed mid-commit leaves a hot journal (its header written, pages of the file changed).
    /// Python's sqlite3 makes one on demand: a cache of one page spills the change to the file mid-transaction.
    @Test func aWriterKilledMidCommitLeavesARecordingEveryCommandStillReads() throws {
        let dir = try temporaryDirectory("hot-journal").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try simulatedRecording(in: dir)
        let before = try RecordingStore.read(path: path).rssi
        let script = """
        import os, signal, sqlite3
        c = sqlite3.connect('\(path)', isolation_level=None)
        c.execute('PRAGMA cache_size=1')
        c.execute('BEGIN IMMEDIATE')
        c.execute('UPDATE rssi_samples SET rssi = rssi - 100')
        os.kill(os.getpid(), signal.SIGKILL)
        """
        let p = try Self.start(["/usr/bin/env", "python3", "-c", script], executable: "/usr/bin/env")
        p.waitUntilExit()
        #expect(p.terminationReason == .uncaughtSignal, "the writer was not killed")
        let journal = try Data(contentsOf: URL(fileURLWithPath: path + "-journal"))
        #expect(journal.prefix(4) == Data([0xD9, 0xD5, 0x05, 0xF9]), "a hot journal (with its magic) was left")
        // Read-only commands used to say "the file is read-only" from here on.
        let r = try indoorlab(["replay", path, "--estimators", "centroid"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try RecordingStore.read(path: path).rssi == before, "the interrupted transaction was rolled back")
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
    }

    /// A `replay --update-baseline` killed before its commit: the journal it leaves is not hot, the baselines
    /// are not half-written.
    @Test func aBaselineUpdateKilledBeforeItsCommitChangesNothing() throws {
        let dir = try temporaryDirectory("killed-update").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try simulatedRecording(in: dir)
        #expect(try indoorlab(["replay", path, "--estimators", "proximity", "--update-baseline"]).status == 0)
        let p = try Self.start(["replay", path, "--estimators", "proximity,centroid", "--update-baseline"],
                               environment: ["INDOORLAB_TEST_KILL_AT": "baselines-before-commit"])
        p.waitUntilExit()
        #expect(p.terminationReason == .uncaughtSignal, "not killed at the kill point")
        let r = try indoorlab(["replay", path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Set(try RecordingStore.read(path: path).baselines.map(\.estimator.rawValue)) == ["proximity"])
    }

    @Test func twoBaselineUpdatesAtOnceBothLand() throws {
        let dir = try temporaryDirectory("busy").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try simulatedRecording(in: dir)
        // Each run merges under the lock, so none overwrites another's (three at once, a reader among them).
        let runs = try ["centroid", "proximity", "trilateration"].map { try Self.start(["replay", path, "--estimators", $0, "--update-baseline"]) }
        let reader = try Self.start(["replay", path, "--estimators", "weighted-centroid"])
        for p in runs + [reader] { p.waitUntilExit() }
        #expect((runs + [reader]).map(\.terminationStatus) == [0, 0, 0, 0])
        let stored = Set(try RecordingStore.read(path: path).baselines.map(\.estimator.rawValue))
        #expect(stored == ["centroid", "proximity", "trilateration"], "every run's baselines are stored: \(stored)")
        let file = Set(try BaselineFile.read(path: BaselineFile.path(forRecording: path))?.map(\.estimator.rawValue) ?? [])
        #expect(file == stored, "the baselines file holds the same")
    }

    @Test func aLockHeldPastTheWaitIsReportedAsALock() throws {
        let dir = try temporaryDirectory("locked").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try simulatedRecording(in: dir)
        // This process holds the write lock (an open write transaction) while an update waits 1 s for it.
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? RecordingStore.withDatabase(path: path, writable: true) { _ in holding.signal(); release.wait() }
            done.signal()
        }
        holding.wait()
        let err = dir + "/err"
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["replay", path, "--estimators", "centroid", "--update-baseline"]
        p.environment = ProcessInfo.processInfo.environment.merging(["INDOORLAB_BUSY_TIMEOUT": "1"]) { $1 }
        p.standardError = FileHandle(forWritingAtPath: err)
        p.standardOutput = FileHandle.nullDevice
        let start = Date()
        try p.run()
        p.waitUntilExit()
        let waited = Date().timeIntervalSince(start)
        release.signal()
        done.wait()
        let text = try String(contentsOfFile: err, encoding: .utf8)
        #expect(p.terminationStatus == 3, "\(text)")
        #expect(text.contains("locked by another process (waited 1 s"), "\(text)")
        #expect(!text.contains("cannot read"), "\(text)")
        #expect(waited >= 0.9, "it waited for the lock (\(waited) s) rather than failing at once")
        #expect(try RecordingStore.read(path: path).baselines.isEmpty)
    }
}
