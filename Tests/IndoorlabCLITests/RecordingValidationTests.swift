import Foundation
import LabCore
import Testing
import GRDB
@testable import LabStore

/// A tampered recording given to the commands (LabStoreTests' RecordingValidationTests holds the checks themselves).
@Suite struct RecordingValidationTests {
    static func tampered(_ sql: String) throws -> (dir: String, path: String) {
        let dir = try temporaryDirectory("tamper").path
        let path = try simulatedRecording(in: dir, scenario: "esoc-office")
        try RecordingStore.withDatabase(path: path, writable: true) { db in try db.execute(sql: sql) }
        return (dir, path)
    }

    @Test func replayAndCalibrateExitTwoOnATamperedRecording() throws {
        let (dir, path) = try Self.tampered("UPDATE radio SET scan_window = 0")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for args in [["replay", path], ["calibrate", path], ["replay", path, "--update-baseline"]] {
            let r = try indoorlab(args)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("radio.scan_window"), "\(args): \(r.stderr)")
        }
    }
}
