import Foundation
import LabCore
import Testing
import GRDB
@testable import LabStore

/// Text from a file or a command line never reaches the terminal as control characters: names holding them are refused
/// (scenarios, CSV imports, recordings edited by hand), and every message shows them escaped (`\u{1B}`), including
/// swift-argument-parser's own for a refused option value.
@Suite struct ControlCharacterTests {
    /// OSC 0 (retitle the window), ESC [ 8 m (hide what follows), OSC 52 (set the clipboard), CSI as one C1 byte.
    static let attacks = ["\u{1B}]0;pwned\u{7}", "\u{1B}[8m", "\u{1B}]52;c;cHduZWQ=\u{7}", "\u{9B}2J"]

    static func expectNoControls(_ r: Run, _ label: String) {
        for (stream, text) in [("stdout", r.stdout), ("stderr", r.stderr)] {
            let bad = text.unicodeScalars.filter { isControlCharacter($0) && $0 != "\n" && $0 != "\t" }
            #expect(bad.isEmpty, "\(label): \(stream) carries \(bad.map { controlCharacterName($0) }): \(text.debugDescription)")
        }
    }

    @Test func aScenarioWithEscapesInItsNamesIsRefusedAndTheMessageShowsThem() throws {
        let dir = try temporaryDirectory("controls")
        defer { try? FileManager.default.removeItem(at: dir) }
        var yaml = try scenarioText("smart-home")
        let room = try scenario("smart-home").rooms[0].name
        yaml = yaml.replacingOccurrences(of: "{name: \(room),", with: "{name: \"\(room)\\e]0;pwned\\a\",")
        #expect(yaml.contains("pwned"), "the fixture changed")
        try yaml.write(to: dir.appendingPathComponent("s.yaml"), atomically: true, encoding: .utf8)
        for args in [["validate", "s.yaml"], ["simulate", "s.yaml"], ["compare", "s.yaml", "--seeds", "1"]] {
            let r = try indoorlab(args, cwd: dir)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("rooms[0].name: the name holds the control character U+001B (ESC)"), "\(args): \(r.stderr)")
            #expect(r.stderr.contains("\(room)\\u{1B}]0;pwned\\u{7}"), "\(args): the name is shown escaped: \(r.stderr)")
            Self.expectNoControls(r, "\(args)")
        }
    }

    @Test func refusedCommandLineValuesAreShownEscaped() throws {
        for attack in Self.attacks {
            let runs = [
                try indoorlab(["simulate", "open-hall", "--seed", attack]),              // swift-argument-parser's message
                try indoorlab(["compare", "open-hall", "--estimators", attack]),          // the lab's own
                try indoorlab(["validate", "no-such-\(attack).yaml"]),
                try indoorlab([attack]),                                                  // an unknown command
            ]
            for r in runs {
                #expect(r.status != 0, "\(attack.debugDescription): accepted")
                #expect(r.stderr.contains(showingControls(attack)), "\(attack.debugDescription): \(r.stderr)")
                Self.expectNoControls(r, attack.debugDescription)
            }
        }
    }

    @Test func anImportedIdWithAnEscapeIsRefusedWithItsLine() throws {
        let dir = try temporaryDirectory("controls-import").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try writeLabCSV(dir + "/in", beacons: "id,x,y\nA,0,0\nB\u{1B}[8m,10,0\nC,0,10\n")
        let r = try indoorlab(["import", "--format", "lab-csv", dir + "/in", "-o", dir + "/r.sqlite"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("beacons.csv:3: id: the beacon id holds the control character U+001B (ESC) at character 2"), "\(r.stderr)")
        Self.expectNoControls(r, "import")
        #expect(!FileManager.default.fileExists(atPath: dir + "/r.sqlite"))
        // An unknown id in readings.csv is quoted with its controls shown.
        try writeLabCSV(dir + "/in2", readings: "t,beacon,rssi\n0.1,A,-60\n0.2,\u{9B}2J,-70\n")
        let u = try indoorlab(["import", "--format", "lab-csv", dir + "/in2", "-o", dir + "/r2.sqlite"])
        #expect(u.status == 2 && u.stderr.contains("readings.csv:3: beacon: unknown beacon id '\\u{9B}2J'"), "\(u.stderr)")
        Self.expectNoControls(u, "import readings")
    }

    /// A recording is input like any other: one edited to carry an escape in a room name is refused by every command
    /// that reads it, naming the field.
    @Test func aRecordingEditedToHoldAnEscapeIsRefused() throws {
        let dir = try temporaryDirectory("controls-recording").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try simulatedRecording(in: dir, scenario: "smart-home")
        try RecordingStore.withDatabase(path: path, writable: true) { db in
            try db.execute(sql: "UPDATE rooms SET name = name || char(27) || ']0;pwned' || char(7) WHERE rowid = (SELECT min(rowid) FROM rooms)")
        }
        for args in [["replay", path], ["calibrate", path]] {
            let r = try indoorlab(args)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("rooms[0].name: holds the control character U+001B (ESC)"), "\(args): \(r.stderr)")
            Self.expectNoControls(r, "\(args)")
        }
    }
}
