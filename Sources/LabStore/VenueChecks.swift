import Foundation
import LabCore

extension RecordedVenue {
    /// Every problem with this venue as a recording stores it, each with its table and field: the same checks
    /// guard writing (importers, `record`) and reading (a recording is input like any other, and a file can
    /// be edited with any SQLite tool).
    public func problems() -> [(field: String, message: String)] {
        var out: [(field: String, message: String)] = []
        func add(_ field: String, _ message: String) { out.append((field, message)) }
        func finite(_ p: Point) -> Bool { p.x.isFinite && p.y.isFinite }
        func number(_ v: Double) -> String { Format.number(v) }

        let b = bounds
        if ![b.minX, b.minY, b.maxX, b.maxY].allSatisfy(\.isFinite) {
            add("recordings.bounds", "expected finite bounds, found [\(number(b.minX)), \(number(b.maxX))] × [\(number(b.minY)), \(number(b.maxY))]")
        } else if !(b.maxX > b.minX && b.maxY > b.minY) {
            add("recordings.bounds", "expected min_x < max_x and min_y < max_y, found [\(number(b.minX)), \(number(b.maxX))] × [\(number(b.minY)), \(number(b.maxY))]")
        } else if b.width > WorkBudget.maximumExtent || b.height > WorkBudget.maximumExtent {
            add("recordings.bounds", "expected a venue at most \(number(WorkBudget.maximumExtent)) m across, found \(number(b.width)) × \(number(b.height)) m")
        }

        let r = radio
        // The ranges a scenario's radio block takes (RadioModel's plausible ranges).
        if let p = Format.outside(RadioModel.plausibleP0, r.p0, unit: "dBm") { add("radio.p0", p) }
        if let p = Format.outside(RadioModel.plausibleExponent, r.exponent) { add("radio.exponent", p) }
        if let p = Format.outside(RadioModel.plausibleSigma, r.sigma, unit: "dB") { add("radio.sigma", p) }
        if let p = Format.outside(RadioModel.plausibleRSSI, r.sensitivity, unit: "dBm") { add("radio.sensitivity", p) }
        if !WorkBudget.advertisingIntervalRange.contains(r.advertisingInterval) {
            add("radio.advertising_interval", "expected \(number(WorkBudget.advertisingIntervalRange.lowerBound))–\(number(WorkBudget.advertisingIntervalRange.upperBound)) s, found \(number(r.advertisingInterval))")
        }
        if !WorkBudget.scanWindowRange.contains(r.scanWindow) {
            add("radio.scan_window", "expected \(number(WorkBudget.scanWindowRange.lowerBound))–\(number(WorkBudget.scanWindowRange.upperBound)) s, found \(number(r.scanWindow))")
        }
        if !(r.packetLoss >= 0 && r.packetLoss < 1) { add("radio.packet_loss", "expected a probability in [0, 1), found \(number(r.packetLoss))") }
        if !(r.dropout >= 0 && r.dropout < 1) { add("radio.dropout", "expected a probability in [0, 1), found \(number(r.dropout))") }
        if let c = r.correlationDistance, !(c > 0 && c.isFinite) { add("radio.correlation_distance", "expected a positive distance or none, found \(number(c))") }
        if let p = Format.outside(RadioModel.plausibleHeight, r.receiverHeight, unit: "m") { add("radio.receiver_height", p) }
        if let p = Format.outside(RadioModel.plausibleModelError, r.modelError, unit: "dB") { add("radio.model_error", p) }

        func text(_ field: String, _ value: String?) { if let p = textProblem(value) { add(field, p) } }
        text("recordings.venue", name)
        for (i, beacon) in beacons.enumerated() {
            text("beacons[\(i)].id", beacon.id); text("beacons[\(i)].uuid", beacon.uuid); text("beacons[\(i)].address", beacon.address)
        }
        for (i, l) in landmarks.enumerated() { text("landmarks[\(i)].name", l.name) }
        for (i, room) in rooms.enumerated() { text("rooms[\(i)].name", room.name); text("rooms[\(i)].area", room.area) }
        for (i, w) in walls.enumerated() { text("walls[\(i)].material", w.material) }

        if beacons.isEmpty { add("beacons", "a recording needs at least one beacon") }
        var seen: [String: Int] = [:]
        for (i, beacon) in beacons.enumerated() {
            if beacon.id.isEmpty { add("beacons[\(i)].id", "expected a beacon id, found an empty one") }
            if let first = seen[beacon.id] { add("beacons[\(i)].id", "duplicate beacon id '\(beacon.id)' (first used by beacons[\(first)])") } else { seen[beacon.id] = i }
            if !finite(beacon.position) { add("beacons[\(i)].position", "beacon '\(beacon.id)' has no finite position") }
            else if b.maxX > b.minX, !b.contains(beacon.position) {
                add("beacons[\(i)].position", "beacon '\(beacon.id)' at \(beacon.position) lies outside the bounds")
            }
            if let h = beacon.height, let p = Format.outside(RadioModel.plausibleHeight, h, unit: "m") { add("beacons[\(i)].height", p) }
            for (name, v) in [("major", beacon.major), ("minor", beacon.minor)] {
                if let v, !(0...65535).contains(v) { add("beacons[\(i)].\(name)", "expected an iBeacon \(name) 0–65535, found \(v)") }
            }
            if let p0 = beacon.p0, let p = Format.outside(RadioModel.plausibleP0, p0, unit: "dBm") { add("beacons[\(i)].p0", p) }
        }
        for (i, l) in landmarks.enumerated() {
            if !finite(l.position) { add("landmarks[\(i)].position", "landmark '\(l.name)' has no finite position") }
            if !(l.width > 0 && l.width.isFinite) { add("landmarks[\(i)].width", "expected a positive width, found \(number(l.width))") }
            if let f = l.facing, !f.isFinite { add("landmarks[\(i)].facing", "expected a finite heading, found \(number(f))") }
        }
        if rooms.reduce(0, { $0 + $1.polygon.vertices.count }) > WorkBudget.maximumCorners {
            add("rooms", "the rooms have \(rooms.reduce(0) { $0 + $1.polygon.vertices.count }) corners in all; the budget is \(WorkBudget.maximumCorners)")
        }
        for (i, room) in rooms.enumerated() {
            if room.polygon.vertices.count < 3 { add("rooms[\(i)].polygon", "room '\(room.name)' needs at least 3 corners") }
            if !room.polygon.isWithinCornerBudget {
                add("rooms[\(i)].polygon", "room '\(room.name)' has \(room.polygon.vertices.count) corners; the budget is \(WorkBudget.maximumCornersPerRoom) per room")
            }
            if let j = room.polygon.vertices.firstIndex(where: { !finite($0) }) {
                add("rooms[\(i)].polygon[\(j)]", "room '\(room.name)' has a corner that is not finite")
            } else if b.maxX > b.minX, let j = room.polygon.vertices.firstIndex(where: { !b.contains($0, tolerance: 1e-6) }) {
                add("rooms[\(i)].polygon[\(j)]", "room '\(room.name)' has a corner at \(room.polygon.vertices[j]), outside the bounds")
            }
        }
        for (i, w) in walls.enumerated() {
            if !finite(w.segment.a) || !finite(w.segment.b) { add("walls[\(i)]", "wall endpoints must be finite") }
            if !(w.loss >= 0 && w.loss.isFinite) { add("walls[\(i)].loss", "expected a loss ≥ 0 dB, found \(number(w.loss))") }
        }
        return out
    }

    /// Throws every problem of ``problems()`` as ``InputErrors`` naming `file`.
    public func check(file: String) throws {
        let p = problems()
        if !p.isEmpty { throw InputErrors(p.map { InputError(file: file, field: $0.field, $0.message) }) }
    }
}

extension RecordingInfo {
    /// Text a recording cannot store faithfully or show safely, with its field: the same rule as the venue's (notes and
    /// the scenario's YAML are free text, with line breaks).
    public func problems() -> [(field: String, message: String)] {
        [("recordings.name", name, false), ("recordings.notes", notes, true), ("recordings.walk", walk, false),
         ("recordings.scenario_yaml", scenarioYAML, true)]
            .compactMap { field, value, free in textProblem(value, freeText: free).map { (field, $0) } }
    }
}

/// What is wrong with text a recording stores, or nil: a control character (``controlCharacterProblem(in:allowingLineBreaks:)``:
/// it would act on a terminal that shows the text; a NUL would also cut SQLite's text short: an id read back empty).
func textProblem(_ value: String?, freeText: Bool = false) -> String? {
    guard let value else { return nil }
    return controlCharacterProblem(in: value, allowingLineBreaks: freeText)
}
