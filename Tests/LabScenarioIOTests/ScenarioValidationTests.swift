import Foundation
import Testing
@testable import LabCore
import LabScenarioIO

/// A small valid scenario; each test breaks one thing.
let validYAML = """
name: test-room
description: a 10 m × 8 m room
bounds: {width: 10, depth: 8}
radio: {p0: -59, exponent: 2.0, sigma: 4}
rooms:
  - name: Room
    area: Ground floor
    polygon: [[0, 0], [10, 0], [10, 8], [0, 8]]
walls:
  - {from: [5, 0], to: [5, 3], material: drywall}
beacons:
  - {id: B1, uuid: B9407F30-F5F8-466E-AFF9-25556B57FE6D, major: 1, minor: 1, position: [1, 1]}
  - {id: B2, position: [9, 1], p0: -62}
  - {id: B3, position: [5, 7], height: 2.5}
landmarks:
  - {name: Newton, kind: frieze, position: [5, 8], facing: 180, width: 3}
  - {name: Clock, kind: exhibit, position: [2, 6]}
checkpoints:
  - {id: QR-1, position: [1, 4]}
walks:
  - name: stroll
    speed: 1.2
    waypoints: [[1, 4], [9, 4]]
    looks: [{at: 1, friezes: [Newton]}]
compass: {sigma: 8, bias: 2}
"""

func parse(_ yaml: String) throws -> Scenario { try ScenarioLoader.parse(yaml: yaml, file: "test.yaml") }

/// The errors a broken YAML gives, as strings.
func errors(_ yaml: String) -> [String] {
    do { _ = try parse(yaml); return [] }
    catch let e as InputErrors { return e.errors.map(\.description) }
    catch { return ["unexpected error type: \(error)"] }
}

@Suite struct ScenarioValidationTests {
    @Test func validScenarioParsesWithEveryField() throws {
        let s = try parse(validYAML)
        #expect(s.name == "test-room")
        #expect(s.bounds == Rect(minX: 0, minY: 0, maxX: 10, maxY: 8))
        #expect(s.beacons.count == 3)
        #expect(s.beacons[0].uuid == "B9407F30-F5F8-466E-AFF9-25556B57FE6D" && s.beacons[0].major == 1)
        #expect(s.beacons[1].p0 == -62)
        #expect(s.beacons[2].height == 2.5)
        #expect(s.walls[0].loss == 3.4)
        #expect(s.radio.sigma == 4 && s.radio.sensitivity == -100 && s.radio.quantize)
        #expect(s.walks[0].looks == [LookEvent(waypoint: 1, friezes: ["Newton"], identified: true)])
        #expect(s.compass == CompassModel(sigma: 8, bias: 2, biasSigma: 0))
        #expect(s.rooms[0].area == "Ground floor")
        #expect(s.friezes.map(\.name) == ["Newton"])
    }

    @Test func unknownKeyNamesTheFieldAndSuggests() {
        let e = errors(validYAML.replacingOccurrences(of: "radio: {p0: -59,", with: "radio: {p_0: -59,"))
        #expect(e.count == 1)
        #expect(e.first?.contains("test.yaml:4") == true)
        #expect(e.first?.contains("radio.p_0: unknown key 'p_0'") == true)
        #expect(e.first?.contains("did you mean 'p0'") == true)
    }

    @Test func missingFieldIsNamed() {
        let e = errors(validYAML.replacingOccurrences(of: "{id: B2, position: [9, 1], p0: -62}", with: "{id: B2, p0: -62}"))
        #expect(e.contains { $0.contains("beacons[1].position: missing required field 'position' (in the mapping that starts on this line)") })
    }

    /// A top-level field missing (a truncated file) is missing from the whole file: no line is named, since the
    /// first key's line, where the top mapping starts, would point at an unrelated field.
    @Test func aMissingTopLevelFieldNamesNoLine() {
        let e = errors("name: t\nbounds: {width: 10, depth: 10}\n")
        #expect(e.contains("test.yaml: beacons: missing required top-level field 'beacons'"), "\(e)")
    }

    /// Names go into file names and unquoted CSV fields: a scenario name must be file-safe (no '/', which wrote
    /// outside the output directory; no '@', which clashed with "NAME@field"), and no name or id may hold a comma,
    /// a quote or a line break (a comma shifted every later CSV column).
    @Test func namesThatCannotNameFilesOrCSVFieldsAreRefused() {
        for bad in ["../evil", "open-hall@field", "a b", ".hidden", "a,b"] {
            let e = errors(validYAML.replacingOccurrences(of: "name: test-room", with: "name: \"\(bad)\""))
            #expect(e.contains { $0.contains("test.yaml:1: name: '\(bad)' cannot name the files the lab writes for it") }, "\(bad): \(e)")
        }
        #expect(errors(validYAML.replacingOccurrences(of: "name: test-room", with: "name: Salle_1.b-2")).isEmpty)
        let room = errors(validYAML.replacingOccurrences(of: "  - name: Room\n", with: "  - name: \"Room, big\"\n"))
        #expect(room.contains { $0.contains("rooms[0].name: 'Room, big' holds a comma, a quote or a line break") }, "\(room)")
        let walk = errors(validYAML.replacingOccurrences(of: "  - name: stroll", with: "  - name: \"stroll\\nback\""))
        #expect(walk.contains { $0.contains("walks[0].name:") && $0.contains("holds a comma, a quote or a line break") }, "\(walk)")
        let beacon = errors(validYAML.replacingOccurrences(of: "{id: B2,", with: "{id: 'B\"2',"))
        #expect(beacon.contains { $0.contains("beacons[1].id:") && $0.contains("holds a comma, a quote or a line break") }, "\(beacon)")
    }

    /// A radio no receiver has is refused: an exponent of 0.001 sent trilateration's fixes to 10¹⁰⁹ m, a σ of 10²⁰⁰ dB
    /// made fingerprint's NaN, a P0 of +500 dBm is no reading at all.
    @Test func anImpossibleRadioIsRefused() {
        for (from, to, message) in [("exponent: 2.0", "exponent: 0.001", "radio.exponent: expected 0.5–10, found 0.001"),
                                    ("sigma: 4}", "sigma: 1e200}", "radio.sigma: expected 0–30 dB, found 1e+200"),
                                    ("p0: -59,", "p0: 500,", "radio.p0: expected -150–20 dBm, found 500"),
                                    ("p0: -62}", "p0: 40}", "beacons[1].p0: expected -150–20 dBm, found 40")] {
            let e = errors(validYAML.replacingOccurrences(of: from, with: to))
            #expect(e.contains { $0.contains(message) }, "\(to): \(e)")
        }
    }

    /// A scenario with nothing to score (no walk, and no test point inside a room) is refused: compare ran it to
    /// empty tables and then plotted nothing, not even the other scenarios' figures.
    @Test func aScenarioWithNothingToScoreIsRefused() {
        var yaml = validYAML.replacingOccurrences(of: "polygon: [[0, 0], [10, 0], [10, 8], [0, 8]]", with: "polygon: [[0.1, 0.1], [0.2, 0.1], [0.2, 0.2], [0.1, 0.2]]")
        yaml = String(yaml[..<yaml.range(of: "walks:")!.lowerBound]) + "compass: {sigma: 8, bias: 2}\n"
        let e = errors(yaml)
        #expect(e.contains { $0.contains("test_grid: no walk, and no test point of the 2 m grid falls inside a room: nothing to simulate") }, "\(e)")
    }

    /// A quoted "null" or "~" is text (YAML 1.2): a beacon may be called that. A plain null is no value.
    @Test func aQuotedNullIsText() throws {
        let s = try parse(validYAML.replacingOccurrences(of: "{id: B2,", with: "{id: \"null\",").replacingOccurrences(of: "{id: B3,", with: "{id: '~',"))
        #expect(s.beacons.map(\.id) == ["B1", "null", "~"])
        let e = errors(validYAML.replacingOccurrences(of: "{id: B2,", with: "{id: null,"))
        #expect(e.contains { $0.contains("beacons[1].id: missing required field 'id'") }, "\(e)")
    }

    @Test func wrongTypeSaysWhatWasExpected() {
        let e = errors(validYAML.replacingOccurrences(of: "sigma: 4}", with: "sigma: loud}"))
        #expect(e.contains { $0.contains("radio.sigma: expected a finite number, found 'loud'") })
        let p = errors(validYAML.replacingOccurrences(of: "position: [9, 1]", with: "position: [9]"))
        #expect(p.contains { $0.contains("beacons[1].position: expected a point [x, y] in metres") })
    }

    @Test func duplicateIdsAreReported() {
        let e = errors(validYAML.replacingOccurrences(of: "{id: B2,", with: "{id: B1,"))
        #expect(e.contains { $0.contains("beacons[1].id: duplicate id 'B1' (first used by beacons[0])") })
    }

    /// A key given twice is reported where it is given again, with the line of the first (a walkthrough found the first
    /// place reported alone, 42 lines above the mistake).
    @Test func aRepeatedKeyIsReportedWhereItRepeats() {
        let lines = validYAML.split(separator: "\n", omittingEmptySubsequences: false).count
        let e = errors(validYAML + "\nname: again\n")
        #expect(e == ["test.yaml:\(lines + 1):1: the key 'name' appears twice in one mapping (first at line 1)"], "\(e)")
        // Within a nested block mapping too, at its own column.
        let nested = errors(validYAML.replacingOccurrences(of: "  - name: Room", with: "  - name: Room\n    name: Hall"))
        #expect(nested.count == 1 && nested[0].hasPrefix("test.yaml:7:5: the key 'name' appears twice in one mapping (first at line 6)"), "\(nested)")
        // Lines ending in CRLF count the same.
        let crlf = errors((validYAML + "\nname: again\n").replacingOccurrences(of: "\n", with: "\r\n"))
        #expect(crlf == ["test.yaml:\(lines + 1):1: the key 'name' appears twice in one mapping (first at line 1)"], "\(crlf)")
        // In a flow mapping both are on the line YAML marks: that line, and no other mapping's key further down.
        let flow = errors(validYAML.replacingOccurrences(of: "bounds: {width: 10, depth: 8}", with: "bounds: {width: 10, depth: 8, width: 9}")
                          + "\nextra:\n         width: 3\n")
        #expect(flow == ["test.yaml:3:10: a key appears twice in one mapping: width"], "\(flow)")
    }

    @Test func aNULInAnIdIsReported() {
        let e = errors(validYAML.replacingOccurrences(of: "{id: B2,", with: "{id: \"B\\0\",").replacingOccurrences(of: "name: stroll", with: "name: \"s\\0\""))
        #expect(e.contains { $0.contains("beacons[1].id: the id holds the control character U+0000 (NUL) at character 2") }, "\(e)")
        #expect(e.contains { $0.contains("walks[0].name: the name holds the control character U+0000 (NUL) at character 2") }, "\(e)")
    }

    /// A shared scenario cannot carry terminal escapes (ESC, BEL, OSC, C1 controls, bidirectional overrides) in any
    /// name: each is refused with its field, and the message shows the character instead of sending it.
    @Test func controlCharactersInNamesAreRefusedAndShownEscaped() {
        let osc = "\\e]0;pwned\\a"   // YAML's escapes: ESC ] 0 ; … BEL, which retitles a terminal
        let yaml = validYAML
            .replacingOccurrences(of: "{id: B2,", with: "{id: \"B\(osc)\",")
            .replacingOccurrences(of: "name: Room", with: "name: \"Room\\x9b2J\"")
            .replacingOccurrences(of: "area: Ground floor", with: "area: \"Ground \\u202Efloor\"")
            .replacingOccurrences(of: "{name: Clock,", with: "{name: \"Clock\\a\",")
            .replacingOccurrences(of: "{id: QR-1,", with: "{id: \"QR\\x7f\",")
            .replacingOccurrences(of: "name: stroll", with: "name: \"stroll\\e[8m\"")
            .replacingOccurrences(of: "description: a 10 m × 8 m room", with: "description: \"two lines\\nfine\\ttab \\e[2J\"")
        let e = errors(yaml)
        for (field, character) in [("beacons[1].id: the id", "U+001B (ESC) at character 2"), ("rooms[0].name: the name", "U+009B (CSI) at character 5"),
                                   ("rooms[0].area: the area", "U+202E (RIGHT-TO-LEFT OVERRIDE) at character 8"),
                                   ("landmarks[1].name: the name", "U+0007 (BEL) at character 6"), ("checkpoints[0].id: the id", "U+007F (DEL) at character 3"),
                                   ("walks[0].name: the name", "U+001B (ESC) at character 7"), ("description: the description", "U+001B (ESC) at character 20")] {
            #expect(e.contains { $0.contains("\(field) holds the control character \(character)") }, "\(field): \(e)")
        }
        #expect(e.contains { $0.contains("'B\\u{1B}]0;pwned\\u{7}'") }, "the message shows the id's controls escaped: \(e)")
        #expect(!e.joined().unicodeScalars.contains(where: isControlCharacter), "no message carries a control character: \(e)")
    }

    @Test func beaconOutsideBoundsIsReported() {
        let e = errors(validYAML.replacingOccurrences(of: "position: [9, 1]", with: "position: [12, 1]"))
        #expect(e.contains { $0.contains("beacons[1].position: beacon 'B2'") && $0.contains("outside the bounds") })
    }

    @Test func waypointOutsideBoundsIsReported() {
        let e = errors(validYAML.replacingOccurrences(of: "[[1, 4], [9, 4]]", with: "[[1, 4], [9, 40]]"))
        #expect(e.contains { $0.contains("walks[0].waypoints[1]: waypoint") && $0.contains("outside the bounds") })
    }

    /// An entry that cannot be read is left out of its list; the checks after reading still name the entries after it by
    /// their place in the file, with their line, and so do messages that point at another entry (found by a stranger's
    /// walkthrough: `beacons[1]`, no line, for the file's `beacons[3]`).
    @Test func entriesAfterOneThatCannotBeReadKeepTheirPlaceAndLine() {
        let yaml = validYAML
            .replacingOccurrences(of: "{id: B1, uuid: B9407F30-F5F8-466E-AFF9-25556B57FE6D, major: 1, minor: 1, position: [1, 1]}",
                                  with: "{id: B1, uuid: B9407F30-F5F8-466E-AFF9-25556B57FE6D, major: 1, minor: 1}")
            .replacingOccurrences(of: "{id: B3, position: [5, 7], height: 2.5}", with: "{id: B2, position: [50, 7], height: 2.5}")
            .replacingOccurrences(of: "walls:\n", with: "walls:\n  - {from: [5, 0]}\n  - {from: [5, 3], to: [5, 30], loss: 3}\n")
        let e = errors(yaml)
        #expect(e.contains("test.yaml:14: beacons[0].position: missing required field 'position' (in the mapping that starts on this line)"), "\(e)")
        #expect(e.contains("test.yaml:16: beacons[2].id: duplicate id 'B2' (first used by beacons[1])"), "\(e)")
        #expect(e.contains { $0.hasPrefix("test.yaml:16: beacons[2].position: beacon 'B2' at (50.00, 7.00) lies outside the bounds") }, "\(e)")
        #expect(e.contains { $0.hasPrefix("test.yaml:11: walls[1].to: (5.00, 30.00) lies outside the bounds") }, "\(e)")
    }

    /// A look or a pause that cannot be read leaves its walk unread (its indices would shift, as a list's do), and a
    /// check across lists says nothing about an entry that could not be read: a look at a frieze whose landmark lacks its
    /// position is not also "no frieze named".
    @Test func aBadLookOrPauseOrLandmarkGivesOneErrorAtItsPlace() {
        let yaml = validYAML
            .replacingOccurrences(of: "{name: Newton, kind: frieze, position: [5, 8], facing: 180, width: 3}", with: "{name: Newton, kind: frieze, facing: 180, width: 3}")
            .replacingOccurrences(of: "    looks: [{at: 1, friezes: [Newton]}]\n", with: "    looks: [{at: 1, friezes: [Newton]}]\n    pauses: [{at: 0}, {at: 5, seconds: 2}]\n")
        let e = errors(yaml)
        #expect(e.contains { $0.hasPrefix("test.yaml:16: landmarks[0].position: missing required field 'position'") }, "\(e)")
        #expect(e.contains { $0.contains("walks[0].pauses[0].seconds: missing required field 'seconds'") }, "\(e)")
        #expect(e.count == 2, "nothing else: no 'no frieze named', no pause index from a shortened list: \(e)")
    }

    @Test func degenerateAndSelfCrossingPolygonsAreReported() {
        let flat = errors(validYAML.replacingOccurrences(of: "[[0, 0], [10, 0], [10, 8], [0, 8]]", with: "[[0, 0], [5, 0], [10, 0]]"))
        #expect(flat.contains { $0.contains("rooms[0].polygon: room 'Room' is degenerate") })
        let bowTie = errors(validYAML.replacingOccurrences(of: "[[0, 0], [10, 0], [10, 8], [0, 8]]", with: "[[0, 0], [10, 8], [10, 0], [0, 5]]"))
        #expect(bowTie.contains { $0.contains("rooms[0].polygon: room 'Room' crosses itself") })
    }

    @Test func negativeSigmaIsRejected() {
        let e = errors(validYAML.replacingOccurrences(of: "sigma: 4}", with: "sigma: -4}"))
        #expect(e.contains { $0.contains("radio.sigma: expected 0–30 dB, found -4") })
        let c = errors(validYAML.replacingOccurrences(of: "compass: {sigma: 8", with: "compass: {sigma: -8"))
        #expect(c.contains { $0.contains("compass.sigma: expected a number ≥ 0") })
    }

    @Test func unknownFriezeReferenceIsReported() {
        let e = errors(validYAML.replacingOccurrences(of: "friezes: [Newton]", with: "friezes: [Newtom]"))
        #expect(e.contains { $0.contains("walks[0].looks[0].friezes[0]: no frieze named 'Newtom'; known friezes: Newton") })
        // An exhibit is not a frieze.
        let x = errors(validYAML.replacingOccurrences(of: "friezes: [Newton]", with: "friezes: [Clock]"))
        #expect(x.contains { $0.contains("no frieze named 'Clock'") })
    }

    @Test func theGridWalkNameIsReserved() {
        let e = errors(validYAML.replacingOccurrences(of: "  - name: stroll", with: "  - name: grid"))
        #expect(e.contains { $0.contains("walks[0].name: 'grid' is reserved for the static test points") })
    }

    @Test func lookAtAMissingWaypointIsReported() {
        let e = errors(validYAML.replacingOccurrences(of: "{at: 1,", with: "{at: 5,"))
        #expect(e.contains { $0.contains("walks[0].looks[0].at: expected a waypoint index in 0..<2, found 5") })
    }

    @Test func unknownMaterialAndBadUUIDAndBadProbability() {
        let m = errors(validYAML.replacingOccurrences(of: "material: drywall", with: "material: cardboard"))
        #expect(m.contains { $0.contains("walls[0].material: unknown material 'cardboard'") })
        let u = errors(validYAML.replacingOccurrences(of: "uuid: B9407F30-F5F8-466E-AFF9-25556B57FE6D", with: "uuid: not-a-uuid"))
        #expect(u.contains { $0.contains("beacons[0].uuid: expected an iBeacon UUID") })
        let p = errors(validYAML.replacingOccurrences(of: "sigma: 4}", with: "sigma: 4, packet_loss: 1.5}"))
        #expect(p.contains { $0.contains("radio.packet_loss: expected a probability in [0, 1)") })
    }

    @Test func theDropoutIsReadAndAnImpossibleOneRefused() throws {
        #expect(try parse(validYAML).radio.dropout == 0, "none unless set")
        #expect(try parse(validYAML.replacingOccurrences(of: "sigma: 4}", with: "sigma: 4, dropout: 0.25}")).radio.dropout == 0.25)
        for bad in ["1", "-0.1", "1.5"] {
            let e = errors(validYAML.replacingOccurrences(of: "sigma: 4}", with: "sigma: 4, dropout: \(bad)}"))
            #expect(e.contains { $0.contains("radio.dropout: expected a probability in [0, 1)") }, "\(e)")
        }
    }

    @Test func theModelErrorIsReadAndANegativeOneRefused() throws {
        #expect(try parse(validYAML).radio.modelError == 0, "none unless set")
        #expect(try parse(validYAML.replacingOccurrences(of: "sigma: 4}", with: "sigma: 4, model_error: 3.5}")).radio.modelError == 3.5)
        let e = errors(validYAML.replacingOccurrences(of: "sigma: 4}", with: "sigma: 4, model_error: -1}"))
        #expect(e.contains { $0.contains("radio.model_error: expected 0–30 dB, found -1") }, "\(e)")
        // Values no receiver or venue has are refused like the other radio ranges (1e308 left trackers with nothing).
        for (yaml, message) in [("sigma: 4, model_error: 1e308}", "radio.model_error: expected 0–30 dB"),
                                ("sigma: 4, receiver_height: 1e308}", "radio.receiver_height: expected 0–100 m"),
                                ("sigma: 4, sensitivity: 1e308}", "radio.sensitivity: expected -150–20 dBm")] {
            let e = errors(validYAML.replacingOccurrences(of: "sigma: 4}", with: yaml))
            #expect(e.contains { $0.contains(message) }, "\(yaml): \(e)")
        }
    }

    @Test func syntaxErrorGivesTheLine() {
        let e = errors("name: x\nbounds: {width: 10, depth: 8\nbeacons: []\n")
        #expect(e.count == 1)
        #expect(e.first?.hasPrefix("test.yaml:") == true)
        #expect(e.first?.contains("YAML syntax error") == true)
    }

    @Test func emptyAndNonMappingFilesAreRejected() {
        #expect(errors("").first?.contains("empty") == true)
        #expect(errors("- 1\n- 2\n").first?.contains("expected a mapping") == true)
    }

    @Test func severalProblemsAreReportedTogether() {
        let broken = validYAML
            .replacingOccurrences(of: "sigma: 4}", with: "sigma: -1}")
            .replacingOccurrences(of: "{id: B2,", with: "{id: B1,")
        #expect(errors(broken).count == 2)
    }

    @Test func missingFileIsAClearError() throws {
        let e = try #require(throws: InputErrors.self) { try ScenarioLoader.load(path: "/nonexistent/x.yaml") }
        #expect(e.errors == [InputError(file: "/nonexistent/x.yaml", "no such file; expected a scenario file (.yaml)")])
    }

    static let bundled: [String] = {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scenarios")
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
            .filter { $0.hasSuffix(".yaml") }.sorted().map { dir.appendingPathComponent($0).path }
    }()

    @Test func thereAreFiveBundledScenarios() {
        #expect(Self.bundled.map { URL(fileURLWithPath: $0).lastPathComponent } ==
                ["esoc-office.yaml", "killian-court.yaml", "museum-gallery.yaml", "open-hall.yaml", "smart-home.yaml"])
    }

    @Test(arguments: bundled)
    func bundledScenarioIsValid(path: String) throws {
        let s = try ScenarioLoader.load(path: path)
        #expect(!s.beacons.isEmpty)
        #expect(!s.walks.isEmpty)
    }

    /// The large venue is found by name, loads without a warning, is over 10,000 m² with walls of several materials,
    /// and stays out of the tournament's default set.
    @Test func theLargeVenueIsFoundByNameButNotInTheDefaultSet() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scenarios").path
        let path = dir + "/large/exhibition-centre.yaml"
        let s = try ScenarioLoader.load(path: path)
        #expect(s.warnings.isEmpty, "\(s.warnings)")
        #expect(s.rooms.map(\.polygon.area).reduce(0, +) >= 10_000)
        #expect(Set(s.walls.compactMap(\.material)).count >= 5)
        #expect(!s.walks.isEmpty && s.rooms.count >= 15)
        #expect(BundledScenarios.resolve("exhibition-centre").hasSuffix("/Scenarios/large/exhibition-centre.yaml"))
        #expect(!BundledScenarios.paths().isEmpty && !BundledScenarios.paths().contains { $0.contains("exhibition-centre") })
        #expect(BundledScenarios.largePaths().map { URL(fileURLWithPath: $0).lastPathComponent } == ["exhibition-centre.yaml"])
    }

    @Test func killianCourtHasTheTenFriezes() throws {
        let path = try #require(Self.bundled.first { $0.hasSuffix("killian-court.yaml") })
        let s = try ScenarioLoader.load(path: path)
        #expect(Set(s.friezes.map(\.name)) == ["Aristotle", "Newton", "Franklin", "Pasteur", "Lavoisier", "Faraday",
                                                "Archimedes", "da Vinci", "Darwin", "Copernicus"])
    }
}

/// `radio.field`: each key read, defaults kept for keys left out, bad values named by their field path.
@Suite struct FieldValidationTests {
    @Test func walkMotionAndTheStepDetectorParse() throws {
        let yaml = validYAML
            .replacingOccurrences(of: "speed: 1.2", with: "speed: 1.3\n    speed_sigma: 0.15\n    turn_distance: 0.5\n    pauses: [{at: 0, seconds: 5}]")
            .replacingOccurrences(of: "compass: {sigma: 8, bias: 2}", with: "compass: {sigma: 8, bias: 2}\npdr: {cadence: 1.9, heading_sigma: 6}")
        let s = try parse(yaml)
        #expect(s.walks[0].speed == 1.3 && s.walks[0].speedSigma == 0.15 && s.walks[0].turnDistance == 0.5)
        #expect(s.walks[0].pauses == [Pause(waypoint: 0, seconds: 5)])
        #expect(s.pdr == PDRModel(cadence: 1.9, headingSigma: 6), "keys left out keep their defaults")
        #expect(try parse(validYAML).pdr == nil, "no step detector unless asked for")
        #expect(try parse(validYAML).walks[0].speedSigma == 0 && parse(validYAML).walks[0].pauses.isEmpty)
    }

    @Test(arguments: [
        ("speed: 1.2", "speed: 1.2\n    speed_sigma: 5", "walks[0].speed_sigma: expected at most 1.2 (the walk's speed), found 5"),
        ("speed: 1.2", "speed: 1.2\n    turn_distance: -1", "walks[0].turn_distance: expected a number ≥ 0, found -1.0"),
        ("speed: 1.2", "speed: 1.2\n    pauses: [{at: 7, seconds: 3}]", "walks[0].pauses[0].at: expected a waypoint index in 0..<2, found 7"),
        ("speed: 1.2", "speed: 1.2\n    pauses: [{at: 1, seconds: 0}]", "walks[0].pauses[0].seconds: expected a positive number, found 0.0"),
        ("compass: {sigma: 8, bias: 2}", "compass: {sigma: 8, bias: 2}\npdr: {cadance: 2}", "unknown key 'cadance' (did you mean 'cadence'?)"),
        ("compass: {sigma: 8, bias: 2}", "compass: {sigma: 8, bias: 2}\npdr: {heading_sigma: 400}", "pdr.heading_sigma: expected at most 180 (180°), found 400"),
        ("compass: {sigma: 8, bias: 2}", "compass: {sigma: 8, bias: 2}\npdr: [1, 2]", "pdr: expected a mapping"),
    ])
    func badWalkMotionAndStepDetectorValuesAreNamed(from: String, to: String, message: String) {
        let found = errors(validYAML.replacingOccurrences(of: from, with: to))
        #expect(found.contains { $0.contains(message) }, "\(found)")
    }

    func withField(_ field: String) -> String {
        validYAML.replacingOccurrences(of: "radio: {p0: -59, exponent: 2.0, sigma: 4}", with: "radio: {p0: -59, exponent: 2.0, sigma: 4, field: \(field)}")
    }

    @Test func keysLeftOutKeepTheRealisticDefaults() throws {
        #expect(try parse(validYAML).radio.field == .realistic)
        let f = try parse(withField("{device_offset: {sigma: 12}, outliers: {rate: 0.1, scale: 8}, body_shadowing: {loss: 0}}")).radio.field
        #expect(f.deviceOffsetSigma == 12 && f.deviceOffset == 0 && f.outlierRate == 0.1 && f.outlierScale == 8 && f.bodyLoss == 0)
        #expect(f.beaconP0Sigma == FieldImpairments.realistic.beaconP0Sigma)
        #expect(try parse(withField("{device_offset: -17}")).radio.field.deviceOffset == -17)
        // A mean alone keeps the default σ (it was set to 0, a fixed offset, against what the format says).
        let mean = try parse(withField("{device_offset: {mean: 3}}")).radio.field
        #expect(mean.deviceOffset == 3 && mean.deviceOffsetSigma == FieldImpairments.realistic.deviceOffsetSigma)
        // Inside a block too (a half angle alone was refused for want of a loss).
        let half = try parse(withField("{body_shadowing: {half_angle: 90}, outliers: {rate: 0.1}}")).radio.field
        #expect(half.bodyHalfAngle == 90 && half.bodyLoss == FieldImpairments.realistic.bodyLoss)
        #expect(half.outlierRate == 0.1 && half.outlierScale == FieldImpairments.realistic.outlierScale)
    }

    /// A wall must lie in the venue (one from [-5, -5] to [50, 50] in a 10 m room was taken), and a wall shorter than a
    /// nanometre is said to be that, not "the same point".
    @Test func wallsOutsideTheBoundsOrOfNoLengthAreRefused() {
        let out = errors(validYAML.replacingOccurrences(of: "{from: [5, 0], to: [5, 3], material: drywall}", with: "{from: [-5, -5], to: [50, 50], material: drywall}"))
        #expect(out.contains { $0.contains("walls[0].from: (-5.00, -5.00) lies outside the bounds") }, "\(out)")
        #expect(out.contains { $0.contains("walls[0].to: (50.00, 50.00) lies outside the bounds") }, "\(out)")
        let short = errors(validYAML.replacingOccurrences(of: "to: [5, 3], material", with: "to: [5, 1e-12], material"))
        #expect(short.contains { $0.contains("walls[0]: wall has no length: 'from' and 'to' are less than a nanometre apart") }, "\(short)")
    }

    @Test(arguments: [
        ("{outliers: {rate: 1.5, scale: 3}}", "radio.field.outliers.rate: expected a probability in [0, 1), found 1.5"),
        ("{body_shadowing: {loss: 6, half_angle: 200}}", "radio.field.body_shadowing.half_angle: expected an angle in [0, 180] degrees, found 200.0"),
        ("{devce_offset: 3}", "unknown key 'devce_offset' (did you mean 'device_offset'?)"),
        ("{beacon_p0_sigma: -2}", "radio.field.beacon_p0_sigma: expected a number ≥ 0, found -2.0"),
        ("{device_offset: {mean: 1, sigma: -4}}", "radio.field.device_offset.sigma: expected a number ≥ 0, found -4.0"),
    ])
    func badFieldValuesAreNamed(field: String, message: String) {
        let found = errors(withField(field))
        #expect(found.contains { $0.contains(message) }, "\(found)")
    }
}
