import Foundation
import LabCore
import Yams

/// Reads a scenario from YAML and checks it, reporting every problem with file, line and field path.
public enum ScenarioLoader {
    /// Loads and validates the scenario at `path`. Throws ``InputErrors`` listing every problem found.
    public static func load(path: String) throws -> Scenario {
        try parse(yaml: try readText(path, expecting: "a scenario file (.yaml)"), file: path)
    }

    /// The UTF-8 text of the file at `path`: a missing file, a directory, an unreadable file or bytes that
    /// are not UTF-8 (with the line and column of the first bad byte) are input errors naming the file.
    public static func readText(_ path: String, expecting what: String) throws -> String {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw InputErrors([InputError(file: path, "no such file; expected \(what)")])
        }
        if isDir.boolValue { throw InputErrors([InputError(file: path, "is a directory; expected \(what)")]) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputErrors([InputError(file: path, "cannot read the file (permissions?)")])
        }
        if let text = String(data: data, encoding: .utf8) { return text }
        let (offset, line, column) = firstInvalidUTF8(data)
        throw InputErrors([InputError(InputLocation(file: path, line: line, column: column),
                                      "the file is not UTF-8 text: byte 0x\(String(data[offset], radix: 16, uppercase: true)) cannot start or continue a character")])
    }

    /// The offset of the first byte that breaks UTF-8, with its 1-based line and column.
    static func firstInvalidUTF8(_ data: Data) -> (offset: Int, line: Int, column: Int) {
        let bytes = [UInt8](data)
        var i = 0, line = 1, lineStart = 0
        while i < bytes.count {
            let b = bytes[i]
            let n = b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0
            guard n > 0, i + n <= bytes.count, String(decoding: bytes[i..<i + n], as: UTF8.self).unicodeScalars.allSatisfy({ $0 != "\u{FFFD}" }) else { break }
            if b == 0x0A { line += 1; lineStart = i + 1 }
            i += n
        }
        return (min(i, max(bytes.count - 1, 0)), line, i - lineStart + 1)
    }

    /// Parses and validates scenario YAML; `file` names the source in error messages.
    public static func parse(yaml: String, file: String) throws -> Scenario {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            throw InputErrors([syntaxError(error, file: file)])
        }
        guard let root else { throw InputErrors([InputError(file: file, "the file is empty; expected a scenario mapping")]) }
        let diagnostics = YAMLDiagnostics(file: file)
        let read = read(YAMLField(node: root, path: "", diagnostics: diagnostics))
        if let read { validate(read.scenario, places: read.places, root: root, diagnostics: diagnostics) }
        if !diagnostics.errors.isEmpty { throw InputErrors(diagnostics.errors) }
        guard let scenario = read?.scenario else { throw InputErrors([InputError(file: file, "not a scenario")]) }
        return scenario
    }

    static func syntaxError(_ error: YamlError, file: String) -> InputError {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return InputError(InputLocation(file: file, line: mark.line, column: mark.column), "YAML syntax error: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            // YAML marks the key's first place; the user's mistake is the second one: find it (same key, same column,
            // a later line of a block mapping), and give both.
            let first = context.mark.line
            if duplicates.count == 1, let key = duplicates.first, let again = repeatedKeyLine(key, after: first, column: context.mark.column, in: context.text) {
                return InputError(InputLocation(file: file, line: again, column: context.mark.column),
                                  "the key '\(abbreviated(key))' appears twice in one mapping (first at line \(first))")
            }
            return InputError(InputLocation(file: file, line: context.mark.line, column: context.mark.column),
                              "a key appears twice in one mapping: \(duplicates.joined(separator: ", "))")
        case .reader(let problem, let offset, _, let yaml):
            // libyaml's reader gives a byte offset: turn it into file:line: like the others.
            let line = offset.map { o in yaml.utf8.prefix(o).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) } }
            return InputError(InputLocation(file: file, line: line), "YAML error: \(problem)")
        default:
            return InputError(file: file, "YAML syntax error: \(abbreviated("\(error)", limit: 200))")
        }
    }

    /// The line (1-based) after `line` where `key` starts another entry of the block mapping whose key at `line`,
    /// `column` (both 1-based) is `key`; nil when that key is not in a block mapping (a flow mapping, `{a: 1, a: 2}`)
    /// or the mapping ends (a line indented less) before the key comes again.
    static func repeatedKeyLine(_ key: String, after line: Int, column: Int, in text: String) -> Int? {
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        let indent = max(column - 1, 0)
        guard line >= 1, line <= lines.count else { return nil }
        // A block mapping's key has only indentation before it, or a sequence item's dash ("  - name: Room").
        let lead = lines[line - 1].prefix(indent)
        guard lead.count == indent, lead.allSatisfy({ $0 == " " || $0 == "-" }) else { return nil }
        for i in line..<lines.count {
            let l = lines[i]
            let blank = l.allSatisfy { $0 == " " || $0 == "\t" }
            let spaces = l.prefix { $0 == " " }.count
            if blank || l.dropFirst(spaces).first == "#" { continue }
            if spaces < indent { return nil }          // the mapping has ended
            guard spaces == indent else { continue }     // deeper: a value's own lines
            let rest = l.dropFirst(indent)
            for spelled in [key, "\"\(key)\"", "'\(key)'"] where rest.hasPrefix(spelled) {
                if rest.dropFirst(spelled.count).drop(while: { $0 == " " }).first == ":" { return i + 1 }
            }
        }
        return nil
    }

    static let topKeys = ["name", "description", "bounds", "materials", "radio", "rooms", "walls", "beacons",
                          "landmarks", "checkpoints", "walks", "compass", "pdr", "test_grid"]

    // MARK: - Reading (types and shapes)

    /// Where each entry of the scenario's lists stands in the file. An entry that could not be read is left out of its
    /// list, so the checks after reading name the others by their place in the file (`beacons[3]`, its line), not by
    /// their place in the list that was read.
    struct ListPlaces {
        /// Per top-level list (`beacons`, `walks`, …), the file's index of each entry read.
        var lists: [String: [Int]] = [:]
        /// The lists an entry was left out of (its error already reported): checks that look across lists skip what
        /// would only repeat it (a look at a frieze whose landmark could not be read).
        var shortened: Set<String> = []

        /// The file's index of entry `i` of the list under top-level key `list` (`i` itself for a key that is not a list).
        func place(_ list: String, _ i: Int) -> Int {
            guard let places = lists[list], places.indices.contains(i) else { return i }
            return places[i]
        }
    }

    /// The entries of top-level list `f` that `read` could read, noting in `places` each one's index in the file and
    /// whether one was left out.
    private static func readList<T>(_ f: YAMLField?, places: inout ListPlaces, _ read: (YAMLField) -> T?) -> [T] {
        guard let f else { return [] }
        guard let entries = f.sequence() else { places.shortened.insert(f.path); return [] }   // not a list: reported
        var items: [T] = [], indices: [Int] = []
        for (i, entry) in entries.enumerated() {
            guard let item = read(entry) else { continue }
            items.append(item); indices.append(i)
        }
        places.lists[f.path] = indices
        if items.count < entries.count { places.shortened.insert(f.path) }
        return items
    }

    private static func read(_ root: YAMLField) -> (scenario: Scenario, places: ListPlaces)? {
        guard let top = root.mapping(allowed: topKeys) else { return nil }
        let name = top.required("name")?.string()
        let description = top.optional("description")?.string() ?? ""

        var bounds: Rect?
        if let b = top.required("bounds")?.mapping(allowed: ["width", "depth"]) {
            if let w = b.required("width")?.positive(), let d = b.required("depth")?.positive() {
                bounds = Rect(minX: 0, minY: 0, maxX: w, maxY: d)
            }
        }

        var materials = Scenario.defaultMaterials
        if let m = top.optional("materials"), case .mapping(let map) = m.node {
            for (k, v) in map {
                guard let key = k.string else { continue }
                let f = YAMLField(node: v, path: "materials.\(key)", diagnostics: root.diagnostics)
                if let loss = f.nonNegative() { materials[key] = loss }
            }
        } else if let m = top.optional("materials") {
            m.fail("expected a mapping of material name to loss in dB")
        }

        let radio = top.optional("radio").flatMap(readRadio) ?? RadioModel()
        var places = ListPlaces()
        let rooms = readList(top.optional("rooms"), places: &places, readRoom)
        let walls = readList(top.optional("walls"), places: &places) { readWall($0, materials: materials) }
        let beacons = readList(top.required("beacons"), places: &places, readBeacon)
        let landmarks = readList(top.optional("landmarks"), places: &places, readLandmark)
        let checkpoints = readList(top.optional("checkpoints"), places: &places, readCheckpoint)
        let walks = readList(top.optional("walks"), places: &places, readWalk)
        var compass = CompassModel()
        if let c = top.optional("compass")?.mapping(allowed: ["sigma", "bias", "bias_sigma"]) {
            if let v = c.optional("sigma")?.nonNegative() { compass.sigma = v }
            if let v = c.optional("bias")?.double() { compass.bias = v }
            if let v = c.optional("bias_sigma")?.nonNegative() { compass.biasSigma = v }
        }
        let pdr = top.optional("pdr").flatMap(readPDR)
        let grid = top.optional("test_grid")?.positive() ?? 2

        guard let name, let bounds else { return nil }
        return (Scenario(name: name, description: description, bounds: bounds, materials: materials, rooms: rooms,
                         walls: walls, radio: radio, beacons: beacons, landmarks: landmarks, checkpoints: checkpoints,
                         walks: walks, compass: compass, pdr: pdr, testGridSpacing: grid), places)
    }

    static let radioKeys = ["p0", "exponent", "sigma", "sensitivity", "quantize", "advertising_interval", "scan_window",
                            "packet_loss", "dropout", "correlation_distance", "receiver_height", "model_error", "field"]

    private static func readRadio(_ f: YAMLField) -> RadioModel? {
        guard let m = f.mapping(allowed: radioKeys) else { return nil }
        var r = RadioModel()
        // Ranges a radio can have (an exponent of 0.001 sent fixes to 10¹⁰⁹ m, a σ of 10²⁰⁰ dB made them NaN).
        if let v = m.optional("p0")?.within(RadioModel.plausibleP0, "dBm") { r.p0 = v }
        if let v = m.optional("exponent")?.within(RadioModel.plausibleExponent, "") { r.exponent = v }
        if let v = m.optional("sigma")?.within(RadioModel.plausibleSigma, "dB") { r.sigma = v }
        if let v = m.optional("sensitivity")?.within(RadioModel.plausibleRSSI, "dBm") { r.sensitivity = v }
        if let v = m.optional("quantize")?.bool() { r.quantize = v }
        if let v = m.optional("advertising_interval")?.positive() { r.advertisingInterval = v }
        if let v = m.optional("scan_window")?.positive() { r.scanWindow = v }
        if let f = m.optional("packet_loss"), let v = f.double() {
            if v < 0 || v >= 1 { f.fail("expected a probability in [0, 1), found \(v)") } else { r.packetLoss = v }
        }
        if let f = m.optional("dropout"), let v = f.double() {
            if v < 0 || v >= 1 { f.fail("expected a probability in [0, 1), found \(v)") } else { r.dropout = v }
        }
        if let v = m.optional("correlation_distance")?.positive() { r.correlationDistance = v }
        if let v = m.optional("receiver_height")?.within(RadioModel.plausibleHeight, "m") { r.receiverHeight = v }
        if let v = m.optional("model_error")?.within(RadioModel.plausibleModelError, "dB") { r.modelError = v }
        if let f = m.optional("field") { r.field = readField(f) }
        return r
    }

    static let fieldKeys = ["device_offset", "beacon_p0_sigma", "outliers", "body_shadowing"]

    /// `radio.field`: keys given replace the realistic defaults, keys left out keep them; 0 switches one off.
    private static func readField(_ f: YAMLField) -> FieldImpairments {
        var x = FieldImpairments.realistic
        guard let m = f.mapping(allowed: fieldKeys) else { return x }
        if let d = m.optional("device_offset") {
            if case .mapping = d.node {
                // A key left out keeps its default, as in the other blocks.
                if let dm = d.mapping(allowed: ["mean", "sigma"]) {
                    if let v = dm.optional("mean")?.double() { x.deviceOffset = v }
                    if let v = dm.optional("sigma")?.nonNegative() { x.deviceOffsetSigma = v }
                }
            } else if let v = d.double() {
                x.deviceOffset = v; x.deviceOffsetSigma = 0
            }
        }
        if let v = m.optional("beacon_p0_sigma")?.nonNegative() { x.beaconP0Sigma = v }
        if let o = m.optional("outliers")?.mapping(allowed: ["rate", "scale"]) {
            // Inside a block too, a key left out keeps its default.
            if let r = o.optional("rate"), let v = r.double() {
                if v < 0 || v >= 1 { r.fail("expected a probability in [0, 1), found \(v)") } else { x.outlierRate = v }
            }
            if let v = o.optional("scale")?.nonNegative() { x.outlierScale = v }
        }
        if let b = m.optional("body_shadowing")?.mapping(allowed: ["loss", "half_angle"]) {
            if let v = b.optional("loss")?.nonNegative() { x.bodyLoss = v }
            if let h = b.optional("half_angle"), let v = h.double() {
                if v < 0 || v > 180 { h.fail("expected an angle in [0, 180] degrees, found \(v)") } else { x.bodyHalfAngle = v }
            }
        }
        return x
    }

    private static func readRoom(_ f: YAMLField) -> Room? {
        guard let m = f.mapping(allowed: ["name", "area", "polygon"]) else { return nil }
        let name = m.required("name")?.string()
        let area = m.optional("area")?.string() ?? ""
        let poly = m.required("polygon")?.sequence()?.map { $0.point() }
        guard let name, let poly, !poly.contains(where: { $0 == nil }) else { return nil }
        return Room(name: name, area: area, polygon: Polygon(poly.compactMap { $0 }))
    }

    private static func readWall(_ f: YAMLField, materials: [String: Double]) -> Wall? {
        guard let m = f.mapping(allowed: ["from", "to", "material", "loss"]) else { return nil }
        let a = m.required("from")?.point(), b = m.required("to")?.point()
        let material = m.optional("material")
        let lossField = m.optional("loss")
        var loss: Double?
        var materialName: String?
        if let lossField {
            loss = lossField.nonNegative()
        }
        if let material, let name = material.string() {
            materialName = name
            if let l = materials[name] {
                if loss == nil { loss = l }
            } else {
                material.fail("unknown material '\(name)'; known: \(materials.keys.sorted().joined(separator: ", ")) (add it under 'materials')")
                return nil
            }
        }
        if material == nil && lossField == nil { f.fail("a wall needs a 'material' or a 'loss' in dB"); return nil }
        guard let a, let b, let loss else { return nil }
        return Wall(segment: Segment(a, b), material: materialName, loss: loss)
    }

    private static func readBeacon(_ f: YAMLField) -> Beacon? {
        guard let m = f.mapping(allowed: ["id", "uuid", "major", "minor", "position", "height", "p0"]) else { return nil }
        let id = m.required("id")?.string()
        var uuid: String?
        if let u = m.optional("uuid"), let s = u.string() {
            if UUID(uuidString: s) == nil { u.fail("expected an iBeacon UUID like B9407F30-F5F8-466E-AFF9-25556B57FE6D, found '\(s)'") }
            else { uuid = s.uppercased() }
        }
        let major = m.optional("major")?.uint16()
        let minor = m.optional("minor")?.uint16()
        let position = m.required("position")?.point()
        let height = m.optional("height")?.within(RadioModel.plausibleHeight, "m")
        let p0 = m.optional("p0")?.within(RadioModel.plausibleP0, "dBm")
        guard let id, let position else { return nil }
        return Beacon(id: id, uuid: uuid, major: major, minor: minor, position: position, height: height, p0: p0)
    }

    private static func readLandmark(_ f: YAMLField) -> Landmark? {
        guard let m = f.mapping(allowed: ["name", "kind", "position", "facing", "width"]) else { return nil }
        let name = m.required("name")?.string()
        var kind: Landmark.Kind?
        if let k = m.required("kind"), let s = k.string() {
            kind = Landmark.Kind(rawValue: s)
            if kind == nil { k.fail("expected one of \(Landmark.Kind.allCases.map(\.rawValue).joined(separator: ", ")), found '\(s)'") }
        }
        let position = m.required("position")?.point()
        var facing: Double?
        if let ff = m.optional("facing"), let v = ff.double() {
            if v < 0 || v >= 360 { ff.fail("expected a compass heading in [0, 360) degrees, found \(v)") } else { facing = v }
        }
        let width = m.optional("width")?.positive() ?? 1
        guard let name, let kind, let position else { return nil }
        return Landmark(name: name, kind: kind, position: position, facing: facing, width: width)
    }

    private static func readCheckpoint(_ f: YAMLField) -> Checkpoint? {
        guard let m = f.mapping(allowed: ["id", "position"]) else { return nil }
        guard let id = m.required("id")?.string(), let p = m.required("position")?.point() else { return nil }
        return Checkpoint(id: id, position: p)
    }

    private static func readWalk(_ f: YAMLField) -> Walk? {
        guard let m = f.mapping(allowed: ["name", "waypoints", "speed", "speed_sigma", "turn_distance", "looks", "pauses"]) else { return nil }
        let name = m.required("name")?.string()
        let points = m.required("waypoints")?.sequence()?.map { $0.point() }
        let speed = m.optional("speed")?.positive() ?? 1.0
        let speedSigma = m.optional("speed_sigma")?.atMost(speed, "the walk's speed") ?? 0
        let turnDistance = m.optional("turn_distance")?.atMost(WorkBudget.maximumExtent, "the largest venue side") ?? 0
        // A look or a pause that cannot be read leaves the walk unread, as a waypoint does: the checks after reading then
        // never see a shortened list, whose indices would not be the file's.
        let looks = m.optional("looks")?.sequence()?.map { l -> LookEvent? in
            guard let lm = l.mapping(allowed: ["at", "friezes", "identified"]) else { return nil }
            let at = lm.required("at")?.int()
            let friezes = lm.required("friezes")?.sequence()?.map { $0.string() }
            let identified = lm.optional("identified")?.bool() ?? true
            guard let at, let friezes, !friezes.contains(where: { $0 == nil }) else { return nil }
            return LookEvent(waypoint: at, friezes: friezes.compactMap { $0 }, identified: identified)
        } ?? []
        let pauses = m.optional("pauses")?.sequence()?.map { p -> Pause? in
            guard let pm = p.mapping(allowed: ["at", "seconds"]) else { return nil }
            guard let at = pm.required("at")?.int(), let seconds = pm.required("seconds")?.positive() else { return nil }
            return Pause(waypoint: at, seconds: seconds)
        } ?? []
        guard let name, let points, !points.contains(where: { $0 == nil }), !looks.contains(where: { $0 == nil }),
              !pauses.contains(where: { $0 == nil }) else { return nil }
        return Walk(name: name, waypoints: points.compactMap { $0 }, speed: speed, speedSigma: speedSigma,
                    turnDistance: turnDistance, looks: looks.compactMap { $0 }, pauses: pauses.compactMap { $0 })
    }

    static var pdrKeys: [String] { ["cadence"] + PDRModel.limits.map(\.key) }

    private static func readPDR(_ f: YAMLField) -> PDRModel? {
        guard let m = f.mapping(allowed: pdrKeys) else { return nil }
        var pdr = PDRModel()
        if let v = m.optional("cadence")?.positive() { pdr.cadence = v }   // its range is WorkBudget's: it sizes work
        for l in PDRModel.limits {
            if let v = m.optional(l.key)?.atMost(l.limit, l.what) { pdr[keyPath: l.path] = v }
        }
        return pdr
    }

    // MARK: - Validation (meaning and consistency)

    /// Checks what was read; every list index in a path or a message is the entry's index in the list read, which
    /// `places` turns into its index in the file.
    private static func validate(_ s: Scenario, places: ListPlaces, root: Node, diagnostics d: YAMLDiagnostics) {
        func node(_ path: [Any]) -> Node? {
            var n: Node? = root
            for step in path {
                if let key = step as? String { n = n?[key] } else if let i = step as? Int { n = n?[i] }
            }
            return n
        }
        /// `list[i]` for entry `i` of the list read: its place in the file.
        func entry(_ list: String, _ i: Int) -> String { "\(list)[\(places.place(list, i))]" }
        func report(_ path: [Any], _ field: String, _ message: String) {
            var path = path, field = field
            if path.count >= 2, let list = path[0] as? String, let i = path[1] as? Int {
                let place = places.place(list, i)
                path[1] = place
                let read = "\(list)[\(i)]"
                if field.hasPrefix(read) { field = "\(list)[\(place)]" + field.dropFirst(read.count) }
            }
            d.report(node(path), field, message)
        }

        func checkDuplicates(_ ids: [String], list: String, key: String) {
            var seen: [String: Int] = [:]
            for (i, id) in ids.enumerated() {
                if id.utf8.contains(0) {
                    report([list, i, key], "\(list)[\(i)].\(key)", "the \(key) holds a NUL character (\\0), which recordings, CSV and plots cannot carry")
                }
                if let first = seen[id] {
                    report([list, i, key], "\(list)[\(i)].\(key)", "duplicate \(key) '\(id)' (first used by \(entry(list, first)))")
                } else { seen[id] = i }
            }
        }
        // Names go into file names (the scenario's) and unquoted CSV fields (every name and id).
        if !isFileSafe(s.name) {
            report(["name"], "name", "'\(abbreviated(s.name))' \(fileSafeRule)")
        }
        func checkCSVSafe(_ names: [String], list: String, key: String) {
            for (i, name) in names.enumerated() where name.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) {
                report([list, i, key], "\(list)[\(i)].\(key)", "'\(abbreviated(name))' holds a comma, a quote or a line break, which the lab's CSV files cannot carry")
            }
        }
        checkCSVSafe(s.beacons.map(\.id), list: "beacons", key: "id")
        checkCSVSafe(s.rooms.map(\.name), list: "rooms", key: "name")
        checkCSVSafe(s.landmarks.map(\.name), list: "landmarks", key: "name")
        checkCSVSafe(s.checkpoints.map(\.id), list: "checkpoints", key: "id")
        checkCSVSafe(s.walks.map(\.name), list: "walks", key: "name")
        checkDuplicates(s.beacons.map(\.id), list: "beacons", key: "id")
        checkDuplicates(s.rooms.map(\.name), list: "rooms", key: "name")
        checkDuplicates(s.landmarks.map(\.name), list: "landmarks", key: "name")
        checkDuplicates(s.checkpoints.map(\.id), list: "checkpoints", key: "id")
        checkDuplicates(s.walks.map(\.name), list: "walks", key: "name")

        var identities: [String: Int] = [:]
        for (i, b) in s.beacons.enumerated() {
            if !s.bounds.contains(b.position) {
                report(["beacons", i, "position"], "beacons[\(i)].position", "beacon '\(b.id)' at \(b.position) lies outside the bounds \(boundsText(s.bounds))")
            }
            if let uuid = b.uuid, let major = b.major, let minor = b.minor {
                let key = "\(uuid)/\(major)/\(minor)"
                if let first = identities[key] {
                    report(["beacons", i, "minor"], "beacons[\(i)]", "iBeacon identity \(key) is already used by \(entry("beacons", first))")
                } else { identities[key] = i }
            }
        }
        if case .sequence(let listed)? = root["beacons"], listed.isEmpty {
            report(["beacons"], "beacons", "a scenario needs at least one beacon")
        }
        for (i, r) in s.rooms.enumerated() {
            let p = r.polygon
            if p.vertices.count < 3 || p.area < 1e-6 {
                report(["rooms", i, "polygon"], "rooms[\(i)].polygon", "room '\(r.name)' is degenerate: expected at least 3 points enclosing a non-zero area")
            } else if p.isSelfIntersecting {
                report(["rooms", i, "polygon"], "rooms[\(i)].polygon", "room '\(r.name)' crosses itself: list the corners in order around the room")
            }
            for (j, v) in p.vertices.enumerated() where !s.bounds.contains(v) {
                report(["rooms", i, "polygon", j], "rooms[\(i)].polygon[\(j)]", "corner \(v) lies outside the bounds \(boundsText(s.bounds))")
            }
        }
        for (i, w) in s.walls.enumerated() {
            if w.segment.length < 1e-9 {
                report(["walls", i], "walls[\(i)]", "wall has no length: 'from' and 'to' are less than a nanometre apart")
            }
            for (key, p) in [("from", w.segment.a), ("to", w.segment.b)] where !s.bounds.contains(p) {
                report(["walls", i, key], "walls[\(i)].\(key)", "\(p) lies outside the bounds \(boundsText(s.bounds))")
            }
        }
        for (i, l) in s.landmarks.enumerated() where !s.bounds.contains(l.position) {
            report(["landmarks", i, "position"], "landmarks[\(i)].position", "landmark '\(l.name)' at \(l.position) lies outside the bounds \(boundsText(s.bounds))")
        }
        for (i, c) in s.checkpoints.enumerated() where !s.bounds.contains(c.position) {
            report(["checkpoints", i, "position"], "checkpoints[\(i)].position", "checkpoint '\(c.id)' lies outside the bounds \(boundsText(s.bounds))")
        }
        let budget = WorkBudget.problems(s)
        for problem in budget {
            let steps: [Any] = problem.path.map { step -> Any in
                switch step { case .key(let k): return k; case .index(let i): return i }
            }
            report(steps, problem.field, problem.message)
        }
        // Something to score: a walk, or a test point inside a room (a compare of none ran, then plotted nothing).
        if budget.isEmpty, s.walks.isEmpty, places.shortened.isDisjoint(with: ["walks", "rooms"]),
           s.walkableGrid(spacing: s.testGridSpacing).isEmpty {
            report(["test_grid"], "test_grid", "no walk, and no test point of the \(Format.number(s.testGridSpacing)) m grid falls inside a room: nothing to simulate (add a walk, larger rooms or a finer test_grid)")
        }
        let friezeNames = Set(s.friezes.map(\.name))
        for (i, w) in s.walks.enumerated() {
            if w.name == "grid" {
                report(["walks", i, "name"], "walks[\(i)].name", "'grid' is reserved for the static test points; choose another walk name")
            }
            if w.waypoints.isEmpty { report(["walks", i, "waypoints"], "walks[\(i)].waypoints", "a walk needs at least one waypoint") }
            for (j, p) in w.waypoints.enumerated() where !s.bounds.contains(p) {
                report(["walks", i, "waypoints", j], "walks[\(i)].waypoints[\(j)]", "waypoint \(p) lies outside the bounds \(boundsText(s.bounds))")
            }
            for (j, pause) in w.pauses.enumerated() where pause.waypoint < 0 || pause.waypoint >= w.waypoints.count {
                report(["walks", i, "pauses", j, "at"], "walks[\(i)].pauses[\(j)].at", "expected a waypoint index in 0..<\(w.waypoints.count), found \(pause.waypoint)")
            }
            for (j, look) in w.looks.enumerated() {
                if look.waypoint < 0 || look.waypoint >= w.waypoints.count {
                    report(["walks", i, "looks", j, "at"], "walks[\(i)].looks[\(j)].at", "expected a waypoint index in 0..<\(w.waypoints.count), found \(look.waypoint)")
                }
                for (k, name) in look.friezes.enumerated() where !friezeNames.contains(name) && !places.shortened.contains("landmarks") {
                    let known = friezeNames.isEmpty ? "the scenario has no friezes" : "known friezes: \(friezeNames.sorted().joined(separator: ", "))"
                    report(["walks", i, "looks", j, "friezes", k], "walks[\(i)].looks[\(j)].friezes[\(k)]", "no frieze named '\(name)'; \(known)")
                }
            }
        }
    }

    private static func boundsText(_ r: Rect) -> String {
        "[0, \(Format.metres(r.maxX))] × [0, \(Format.metres(r.maxY))] m"
    }
}

extension YAMLField {
    func positive() -> Double? {
        guard let v = double() else { return nil }
        if v <= 0 { fail("expected a positive number, found \(v)"); return nil }
        return v
    }
    /// A number in `range`, else a message naming it (with `unit`).
    func within(_ range: ClosedRange<Double>, _ unit: String) -> Double? {
        guard let v = double() else { return nil }
        if let problem = Format.outside(range, v, unit: unit) {
            fail(problem)
            return nil
        }
        return v
    }
    func nonNegative() -> Double? {
        guard let v = double() else { return nil }
        if v < 0 { fail("expected a number ≥ 0, found \(v)"); return nil }
        return v
    }
    /// A number in [0, limit]; `what` names the limit in the message.
    func atMost(_ limit: Double, _ what: String) -> Double? {
        guard let v = nonNegative() else { return nil }
        if v > limit { fail("expected at most \(Format.number(limit)) (\(what)), found \(Format.number(v))"); return nil }
        return v
    }
    func uint16() -> Int? {
        guard let v = int() else { return nil }
        if v < 0 || v > 65535 { fail("expected a whole number in 0…65535, found \(v)"); return nil }
        return v
    }
}
