import Foundation
import LabCore
import Yams

extension ScenarioLoader {
    // MARK: - Reading (types and shapes)

    static let topKeys = ["name", "description", "bounds", "materials", "radio", "rooms", "walls", "beacons",
                          "landmarks", "checkpoints", "walks", "compass", "pdr", "test_grid"]

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

    static func read(_ root: YAMLField) -> (scenario: Scenario, places: ListPlaces)? {
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
        // Ranges a radio can have (an exponent of 0.001 would send fixes to 10¹⁰⁹ m, a σ of 10²⁰⁰ dB make them NaN).
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
}
