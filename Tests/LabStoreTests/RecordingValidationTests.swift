import Foundation
import LabCore
import Testing
import GRDB
@testable import LabStore

/// A recording is input like any other: a file edited with any SQLite tool is checked on open, and every value
/// that would crash or silently mislead replay and calibrate is an error naming the table, row and column.
@Suite struct RecordingValidationTests {
    static func tampered(_ sql: String) throws -> (dir: String, path: String) {
        let dir = try temporaryDirectory("tamper")
        let path = try simulatedRecording(in: dir, scenario: "esoc-office")
        try RecordingStore.withDatabase(path: path, writable: true) { db in try db.execute(sql: sql) }
        return (dir, path)
    }

    @Test(arguments: [
        ("UPDATE radio SET scan_window = 0", "radio.scan_window: expected 0.01–3600 s, found 0"),
        ("UPDATE radio SET scan_window = 'abc'", "radio row 1 column scan_window: expected a number, found text 'abc'"),
        ("UPDATE radio SET exponent = -1", "radio.exponent: expected 0.5–10, found -1"),
        // The ranges a scenario takes: an exponent of 0.01 put fixes 10³⁰ m away.
        ("UPDATE radio SET exponent = 0.01", "radio.exponent: expected 0.5–10, found 0.01"),
        ("UPDATE radio SET sigma = -2", "radio.sigma: expected 0–30 dB, found -2"),
        ("UPDATE radio SET sigma = 1e200", "radio.sigma: expected 0–30 dB, found 1e+200"),
        ("UPDATE radio SET p0 = 1e999", "radio.p0: expected -150–20 dBm, found inf"),
        ("UPDATE beacons SET p0 = 40 WHERE idx = 1", "beacons[1].p0: expected -150–20 dBm, found 40"),
        ("UPDATE radio SET model_error = -1", "radio.model_error: expected 0–30 dB, found -1"),
        ("UPDATE radio SET model_error = 1e308", "radio.model_error: expected 0–30 dB, found 1e+308"),
        ("UPDATE radio SET sensitivity = 1e308", "radio.sensitivity: expected -150–20 dBm, found 1e+308"),
        ("UPDATE radio SET receiver_height = 1e308", "radio.receiver_height: expected 0–100 m, found 1e+308"),
        ("UPDATE beacons SET height = 1e308 WHERE idx = 2", "beacons[2].height: expected 0–100 m, found 1e+308"),
        ("UPDATE beacons SET major = 99999999 WHERE idx = 1", "beacons[1].major: expected an iBeacon major 0–65535, found 99999999"),
        ("UPDATE rooms SET polygon = '[[0, 0], [1e308, 0], [2, 2]]' WHERE idx = 0", "rooms[0].polygon[1]: room"),
        ("UPDATE ground_truth SET x = 1e19 WHERE rowid = 5", "ground_truth: sample 5 at t"),
        // A truncated polygon read as two corners.
        ("UPDATE rooms SET polygon = '[[0,0],[30,0' WHERE idx = 0", "rooms.polygon: room"),
        ("UPDATE radio SET model_error = 'big'", "radio row 1 column model_error: expected a number, found text 'big'"),
        ("UPDATE recordings SET min_x = 100, max_x = 0", "recordings.bounds: expected min_x < max_x and min_y < max_y"),
        ("UPDATE rooms SET polygon = '[[0, 0], [nan, 1], [2, 2]]' WHERE idx = 0", "rooms[0].polygon[1]: room"),
        ("UPDATE rooms SET polygon = '[[0, 0], [1e999, 1], [2, 2]]' WHERE idx = 0", "rooms[0].polygon[1]: room"),
        ("UPDATE walls SET loss = -3 WHERE idx = 2", "walls[2].loss: expected a loss ≥ 0 dB, found -3"),
        ("UPDATE rssi_samples SET rssi = 'loud' WHERE rowid = 7", "rssi_samples row 7 column rssi: expected a number, found text 'loud'"),
        // An RSSI no receiver reports (500 dBm made replay's errors 1e6 m and calibrate's fit P0 = 1e308).
        ("UPDATE rssi_samples SET rssi = 500 WHERE rowid = 4", "rssi 500.0 is not a valid sample (RSSI -150–20 dBm)"),
        ("UPDATE ground_truth SET x = X'00' WHERE rowid = 3", "ground_truth row 3 column x: expected a number, found blob X'00'"),
        ("UPDATE beacons SET x = 1e308 WHERE idx = 1", "beacons[1].position: beacon"),
        ("UPDATE beacons SET major = 1.5 WHERE idx = 2", "beacons row 2 column major: expected a whole number, found real '1.5'"),
        ("UPDATE beacons SET id = '' WHERE idx = 0", "beacons[0].id: expected a beacon id, found an empty one"),
        // Found by fuzz-recording: GRDB's decoding error escaped, with the whole row in it.
        ("UPDATE recordings SET created = 'v1'", "a value cannot be read (was the file edited?): could not decode Date from database value \"v1\" - column: \"created\""),
        ("UPDATE baselines SET value = 'x'", ""),  // no baselines yet: nothing to break, the file stays readable
        // Checked as the baselines file's are: a tolerance ≥ 0, a rate within 0–1.
        ("INSERT INTO baselines (estimator, metric, value, tolerance, updated) VALUES ('centroid', 'mean', 1, -1, datetime('now'))",
         "baselines: centroid mean: expected a finite value and a tolerance ≥ 0, found value 1, tolerance -1"),
        ("INSERT INTO baselines (estimator, metric, value, tolerance, updated) VALUES ('centroid', 'availability', 2, 0.02, datetime('now'))",
         "baselines: centroid availability: a rate: expected 0–1, found 2"),
        ("UPDATE step_samples SET heading = 400 WHERE rowid = 5", "step_samples: sample 5: t "),
        ("UPDATE step_samples SET length_accuracy = -1 WHERE rowid = 1", "is not a valid step (length and its σ in [0, 3] m, heading in [0, 360), its σ in [0, 180]°)"),
        ("UPDATE step_samples SET length = 'far' WHERE rowid = 2", "step_samples row 2 column length: expected a number, found text 'far'"),
    ])
    func aTamperedRecordingIsRefusedWithItsPlace(sql: String, message: String) throws {
        let (dir, path) = try Self.tampered(sql)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        if message.isEmpty { _ = try RecordingStore.read(path: path); return }
        do {
            _ = try RecordingStore.read(path: path)
            Issue.record("\(sql): the recording was accepted")
        } catch let e as InputErrors {
            #expect(e.errors.contains { $0.location.file == path && $0.description.contains(message) }, "\(e)")
        } catch let e as InputError {
            #expect(e.location.file == path && e.description.contains(message), "\(e)")
        }
    }

    /// A sample of a beacon the recording does not have (written by a tool that does not enforce foreign keys, as the
    /// sqlite3 shell does not by default) names the beacon, not the RSSI.
    @Test func aSampleOfNoBeaconIsNamedAsSuch() throws {
        let (dir, path) = try Self.tampered("SELECT 1")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = Configuration()
        config.foreignKeysEnabled = false
        try DatabaseQueue(path: path, configuration: config).write { db in
            try db.execute(sql: "UPDATE rssi_samples SET beacon = 999 WHERE rowid = 5")
        }
        let e = try #require(throws: InputError.self) { try RecordingStore.read(path: path) }
        #expect(e.description.contains("sample 5: beacon 999 is no beacon of the recording"), "\(e)")
    }

    /// A recording from before the step table (schema v1) reads as one without a step detector; one with a
    /// migration this build does not know is refused as newer.
    @Test func anOlderSchemaReadsAndANewerOneIsRefused() throws {
        let (dir, path) = try Self.tampered("""
            DROP TABLE step_samples; ALTER TABLE radio DROP COLUMN model_error; ALTER TABLE radio DROP COLUMN dropout;
            DROP TABLE range_samples; DROP TABLE live_session; DELETE FROM grdb_migrations WHERE identifier IN ('v2', 'v3', 'v4', 'v5')
            """)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let old = try RecordingStore.read(path: path)
        #expect(old.steps == nil && !old.rssi.isEmpty)
        let current = try RecordingStore.read(path: try simulatedRecording(in: dir, scenario: "esoc-office", name: "b.sqlite"))
        #expect(current.steps.map { !$0.isEmpty } == true, "esoc-office's phone reports steps")
        try RecordingStore.withDatabase(path: path, writable: true) { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9')")
        }
        #expect(throws: InputError(file: path, "written by a newer indoorlab (schema migration 'v9'); update indoorlab to read it")) {
            try RecordingStore.read(path: path)
        }
    }

    /// The radio model's error came with schema v3: a v2 recording reads with none, a v3 one with what it stores.
    @Test func aRecordingFromBeforeTheModelErrorReadsWithNone() throws {
        let (dir, path) = try Self.tampered("ALTER TABLE radio DROP COLUMN model_error; ALTER TABLE radio DROP COLUMN dropout; DROP TABLE range_samples; DROP TABLE live_session; DELETE FROM grdb_migrations WHERE identifier IN ('v3', 'v4', 'v5')")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let old = try RecordingStore.read(path: path)
        #expect(old.venue.radio.modelError == 0 && old.steps.map { !$0.isEmpty } == true)
        let (dir3, path3) = try Self.tampered("UPDATE radio SET model_error = 2.5")
        defer { try? FileManager.default.removeItem(atPath: dir3) }
        #expect(try RecordingStore.read(path: path3).venue.radio.modelError == 2.5)
        // Storing a radio fit leaves a v2 recording at v2 unless it brings a model error; then it is migrated.
        try RecordingStore.updateRadio(path: path, p0: -60, exponent: 2.1, sigma: 4.5)
        #expect(try migrations(path) == ["v1", "v2"])
        try RecordingStore.updateRadio(path: path, p0: -60, exponent: 2.1, sigma: 4.5, modelError: 3.25)
        #expect(try migrations(path) == ["v1", "v2", "v3", "v4", "v5"])
        let radio = try RecordingStore.read(path: path).venue.radio
        #expect(radio.modelError == 3.25 && radio.sigma == 4.5 && radio.p0 == -60)
    }

    /// The window dropout came with schema v4: a v3 recording reads with none, and storing a fit that brings one
    /// migrates it; an impossible stored dropout is refused naming the column.
    @Test func aRecordingFromBeforeTheDropoutReadsWithNone() throws {
        let (dir, path) = try Self.tampered("ALTER TABLE radio DROP COLUMN dropout; DROP TABLE range_samples; DROP TABLE live_session; DELETE FROM grdb_migrations WHERE identifier IN ('v4', 'v5')")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try RecordingStore.read(path: path).venue.radio.dropout == 0)
        try RecordingStore.updateRadio(path: path, p0: -60, exponent: 2.1, sigma: 4.5, modelError: 1)
        #expect(try migrations(path) == ["v1", "v2", "v3", "v4", "v5"], "a v3 recording storing a model error is brought up to date")
        try RecordingStore.updateRadio(path: path, p0: -60, exponent: 2.1, sigma: 4.5, dropout: 0.25)
        #expect(try RecordingStore.read(path: path).venue.radio.dropout == 0.25)
        let (dir2, path2) = try Self.tampered("UPDATE radio SET dropout = 1.5")
        defer { try? FileManager.default.removeItem(atPath: dir2) }
        #expect { try RecordingStore.read(path: path2) } throws: { "\($0)".contains("radio.dropout: expected a probability in [0, 1)") }
    }

    func migrations(_ path: String) throws -> [String] {
        try RecordingStore.withDatabase(path: path, writable: false) { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
        }
    }

    /// SQLite's text ends at a NUL, so text holding one would read back cut short (found by fuzz-uji: an id read
    /// back empty); an ESC in a name would act on the terminal that shows it. Writing refuses both, for the venue's
    /// text and the recording's own, whatever the source.
    @Test func textHoldingAControlCharacterIsNeverWritten() throws {
        let dir = try temporaryDirectory("nul")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try scenario("museum-gallery")
        let good = try simulatedRecording(scenario: s, walk: s.walks[0], seed: 1)
        var badBeacon = good
        badBeacon.venue.beacons[2].id = "g1\u{0}x"
        var badRoom = good
        badRoom.venue.rooms[0].name = "\u{0}"
        var badName = good
        badName.info.name = "a\u{0}b"
        var escape = good
        escape.venue.rooms[1].name = "hall\u{1B}]52;c;cHduZWQ=\u{7}"   // OSC 52: sets the clipboard
        var controlInNotes = good
        controlInNotes.info.notes = "line one\nline two \u{9B}2J"
        for (label, r, field, character) in [("beacon", badBeacon, "beacons[2].id", "U+0000 (NUL)"), ("room", badRoom, "rooms[0].name", "U+0000 (NUL)"),
                                             ("name", badName, "recordings.name", "U+0000 (NUL)"), ("escape", escape, "rooms[1].name", "U+001B (ESC)"),
                                             ("notes", controlInNotes, "recordings.notes", "U+009B (CSI)")] {
            let path = dir + "/\(label).sqlite"
            do {
                try RecordingStore.write(r, to: path)
                Issue.record("\(label): written")
            } catch let e as InputErrors {
                #expect(e.errors.contains { $0.location.field == field && $0.message.contains("holds the control character \(character)") }, "\(e)")
            }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    /// Found by fuzz-recording: SQLite's integrity report on a damaged page lists every bad cell (4.7 kB in
    /// one line). The message keeps three problems, each abbreviated. Cell pointers of each page in turn are zeroed.
    @Test func aDamagedFileGivesAShortMessage() throws {
        let dir = try temporaryDirectory("damaged")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let original = try Data(contentsOf: URL(fileURLWithPath: try simulatedRecording(in: dir, scenario: "museum-gallery")))
        var damaged = 0
        for page in 2..<(original.count / 4096) {
            var bytes = original
            for i in (page * 4096 + 8)..<(page * 4096 + 64) { bytes[i] = 0 }
            let path = dir + "/p\(page).sqlite"
            try bytes.write(to: URL(fileURLWithPath: path))
            do {
                _ = try RecordingStore.read(path: path)
            } catch let e as InputError {
                #expect(e.description.utf8.count < 1000, "page \(page): \(e.description.utf8.count) bytes")
                if e.message.contains("damaged") { damaged += 1 }
            } catch let e as InputErrors {
                #expect(e.description.utf8.count < 2000, "page \(page): \(e.description.utf8.count) bytes")
            }
        }
        #expect(damaged > 3)
    }
}
