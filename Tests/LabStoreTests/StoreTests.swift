import Foundation
import LabCore
import LabEstimators
import LabEvaluation
import Testing
@testable import LabStore
import LabScenarioIO

@Suite struct StoreTests {
    func smallRecording() throws -> Recording {
        let s = try scenario("open-hall")
        return try simulatedRecording(scenario: s, walk: s.walks[0], seed: 1)
    }

    func expectInputError(_ path: String, containing text: String, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected an input error about \(path)")
        } catch let e as InputError {
            #expect(e.location.file == path)
            #expect(e.message.contains(text), "\(e)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func anExistingFileIsNeverOverwritten() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/r.sqlite"
        try "precious".write(toFile: path, atomically: true, encoding: .utf8)
        expectInputError(path, containing: "already exists") { try RecordingStore.write(try smallRecording(), to: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
        #expect(listing(dir) == ["r.sqlite"])
    }

    @Test func aFailureInsideTheTransactionLeavesNothing() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try smallRecording()
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try RecordingStore.create(at: dir + "/r.sqlite", info: r.info, venue: r.venue) { w in
                for s in r.rssi.prefix(1000) { try w.append(s) }
                throw Boom()
            }
        }
        #expect(listing(dir).isEmpty)
        // An invalid sample is refused by the writer itself.
        expectInputError(dir + "/r.sqlite", containing: "invalid sample") {
            try RecordingStore.create(at: dir + "/r.sqlite", info: r.info, venue: r.venue) { w in
                try w.append(RSSIReading(beacon: 99, t: 0, rssi: -60))
            }
        }
        #expect(listing(dir).isEmpty)
    }

    @Test func stalePartialFilesOfDeadWritersAreRemoved() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A pid far above pid_max (4194304) belongs to no process.
        let stale = dir + "/" + RecordingStore.partialName("r.sqlite", pid: 99_999_999)
        try "half".write(toFile: stale, atomically: true, encoding: .utf8)
        // …and those of other names (a killed import of another file) go too; a live writer's stays.
        let other = dir + "/" + RecordingStore.partialName("other.sqlite", pid: 99_999_998)
        try "half".write(toFile: other, atomically: true, encoding: .utf8)
        try "journal".write(toFile: other + "-journal", atomically: true, encoding: .utf8)
        // Another name's partial goes only once it has not changed for a while (a live writer in another PID
        // namespace looks dead to kill(2) but keeps writing).
        let fresh = dir + "/" + RecordingStore.partialName("fresh.sqlite", pid: 99_999_997)
        try "recent".write(toFile: fresh, atomically: true, encoding: .utf8)
        let hourAgo = Date(timeIntervalSinceNow: -3600)
        for f in [other, other + "-journal"] { try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: f) }
        let live = dir + "/" + RecordingStore.partialName("busy.sqlite", pid: getppid())
        try "live".write(toFile: live, atomically: true, encoding: .utf8)
        try RecordingStore.write(try smallRecording(), to: dir + "/r.sqlite")
        #expect(listing(dir) == [RecordingStore.partialName("busy.sqlite", pid: getppid()), RecordingStore.partialName("fresh.sqlite", pid: 99_999_997), "r.sqlite"])
    }

    @Test func destinationsThatCannotWorkAreRefusedBeforeAnyWork() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        expectInputError(dir + "/", containing: "is a directory") { try RecordingStore.checkDestination(dir + "/") }
        expectInputError(dir + "/new/", containing: "names a directory") { try RecordingStore.checkDestination(dir + "/new/") }
        let long = dir + "/" + String(repeating: "n", count: 256)
        expectInputError(long, containing: "256 bytes long; file systems allow at most 255") { try RecordingStore.checkDestination(long) }
        try "file".write(toFile: dir + "/plain", atomically: true, encoding: .utf8)
        expectInputError(dir + "/plain/x.sqlite", containing: "is not a directory") { try RecordingStore.checkDestination(dir + "/plain/x.sqlite") }
        // The lab's partial name stays within NAME_MAX for the longest accepted name (it used to fail after the work).
        let longest = String(repeating: "é", count: 127)  // 254 bytes
        #expect(RecordingStore.partialName(longest, pid: Int32.max).utf8.count + "-journal".utf8.count <= 255)
        let path = dir + "/" + longest
        try RecordingStore.write(try smallRecording(), to: path)
        #expect(listing(dir) == ["plain", longest])
    }

    @Test func aFailedWriteRemovesTheDirectoriesItMade() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        struct Boom: Error {}
        let r = try smallRecording()
        #expect(throws: Boom.self) {
            try RecordingStore.create(at: dir + "/new/a/b/x.sqlite", info: r.info, venue: r.venue) { _ in throw Boom() }
        }
        #expect(listing(dir).isEmpty, "left behind: \(listing(dir))")
    }

    @Test func badFilesAreClearInputErrors() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = dir + "/good.sqlite"
        try RecordingStore.write(try smallRecording(), to: good)
        let data = try Data(contentsOf: URL(fileURLWithPath: good))

        expectInputError(dir + "/missing.sqlite", containing: "no such file") { _ = try RecordingStore.read(path: dir + "/missing.sqlite") }
        expectInputError(dir, containing: "is a directory") { _ = try RecordingStore.read(path: dir) }

        let text = dir + "/text.sqlite"
        try "t,beacon,rssi\n0,A,-60\n".write(toFile: text, atomically: true, encoding: .utf8)
        expectInputError(text, containing: "not an SQLite database") { _ = try RecordingStore.read(path: text) }

        let empty = dir + "/empty.sqlite"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        expectInputError(empty, containing: "empty") { _ = try RecordingStore.read(path: empty) }

        for cut in [100, 4096, data.count / 2, data.count - 4096] {
            let truncated = dir + "/cut\(cut).sqlite"
            try data.prefix(cut).write(to: URL(fileURLWithPath: truncated))
            do {
                _ = try RecordingStore.read(path: truncated)
                Issue.record("a file cut at \(cut) of \(data.count) bytes was read")
            } catch let e as InputError {
                #expect(e.location.file == truncated)
                #expect(e.message.contains("damaged") || e.message.contains("not an SQLite") || e.message.contains("not an IndoorLab"), "\(e)")
            }
        }
        // Another program's SQLite file, and a recording from a newer schema.
        let foreign = dir + "/foreign.sqlite"
        try GRDBFixture.makeForeign(foreign)
        expectInputError(foreign, containing: "not an IndoorLab recording") { _ = try RecordingStore.read(path: foreign) }
        let newer = dir + "/newer.sqlite"
        try data.write(to: URL(fileURLWithPath: newer))
        try GRDBFixture.addMigration("v99", to: newer)
        expectInputError(newer, containing: "newer indoorlab") { _ = try RecordingStore.read(path: newer) }
    }

    @Test func baselinesJudgeErrorsUpAndRatesDown() {
        let p75 = Baseline(estimator: .fusion, metric: .p75, value: 2.0, tolerance: 0.2)
        #expect(BaselineCheck(p75, now: 2.2).status == .pass)
        #expect(BaselineCheck(p75, now: 2.21).status == .regression)
        #expect(BaselineCheck(p75, now: 1.79).status == .improved)
        #expect(BaselineCheck(p75, now: nil).status == .regression)
        let avail = Baseline(estimator: .fusion, metric: .availability, value: 0.9, tolerance: 0.02)
        #expect(BaselineCheck(avail, now: 0.885).status == .pass)
        #expect(BaselineCheck(avail, now: 0.87).status == .regression)
        #expect(BaselineCheck(avail, now: 0.95).status == .improved)
        #expect(BaselineMetric.p75.defaultTolerance(for: 0.3) == 0.05)
        #expect(BaselineMetric.rmse.defaultTolerance(for: 3) == 0.30000000000000004 || BaselineMetric.rmse.defaultTolerance(for: 3) == 0.3)
        #expect(BaselineMetric.roomHit.defaultTolerance(for: 0.5) == 0.02)
    }

    @Test func updatedBaselinesHoldAndTighteningOneFailsIt() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/r.sqlite"
        try RecordingStore.write(try smallRecording(), to: path)
        let first = RecordingReplay.run(try RecordingStore.read(path: path), estimators: [.leastSquares, .proximity])
        #expect(first.checks.isEmpty)
        try RecordingStore.setBaselines(BaselineJudge.baselines(from: first.scores), path: path)
        let stored = try RecordingStore.read(path: path)
        #expect(RecordingReplay.defaultEstimators(stored) == [.leastSquares, .proximity])
        let second = RecordingReplay.run(stored)
        #expect(!second.checks.isEmpty && second.regressions.isEmpty)
        #expect(second.checks.allSatisfy { $0.status == .pass })

        var tight = stored.baselines
        let i = try #require(tight.firstIndex { $0.estimator == .leastSquares && $0.metric == .p75 })
        tight[i].value *= 0.5
        tight[i].tolerance = 0
        try RecordingStore.setBaselines(tight, path: path)
        let third = RecordingReplay.run(try RecordingStore.read(path: path))
        #expect(third.regressions.map(\.metric) == [.p75])
        #expect(third.regressions.first?.estimator == .leastSquares)
    }
}

/// Files that look like recordings but are not, made without a second SQLite dependency.
enum GRDBFixture {
    /// A valid recording whose header says another application made it (application_id, offset 68, zeroed).
    static func makeForeign(_ path: String) throws {
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let s = try scenario("open-hall")
        let source = dir + "/foreign-source.sqlite"
        try RecordingStore.write(simulatedRecording(scenario: s, walk: s.walks[0], seed: 1), to: source)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        try FileManager.default.removeItem(atPath: source)
        bytes.replaceSubrange(68..<72, with: [0, 0, 0, 0])
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    /// Marks a recording as migrated by a schema version this build does not know.
    static func addMigration(_ identifier: String, to path: String) throws {
        try RecordingStore.withDatabase(path: path, writable: true) { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('\(identifier)')")
        }
    }
}
