import Foundation
import FuzzSupport
import IndoorLocator

// The IndoorLocator library as an app would drive it, with whatever a phone, a misconfigured venue or a hostile
// caller could hand it: the input is read as a list of choices — a venue (beacons, path-loss model, walls, rooms,
// friezes, area), then up to 48 calls (one-scan fixes, the stream, assumed offsets, resets) with any numbers,
// NaN, ±∞ and the extremes included. A finding is a crash or trap, an error other than `LocatorError` from the
// initialiser, or a fix that is not a number: a `.located` whose position is not finite or lies outside the area the
// locator was given, an ellipse or offset that is NaN, a velocity or snapshot that is not finite.

/// The input as a stream of choices; past its end every read gives 0 (so every input decodes to something).
struct Choices {
    let data: UnsafePointer<UInt8>?, size: Int
    var at = 0
    mutating func byte() -> UInt8 {
        guard let data, at < size else { return 0 }
        defer { at += 1 }
        return data[at]
    }
    var exhausted: Bool { at >= size }
    mutating func below(_ n: Int) -> Int { Int(byte()) % n }
    mutating func flag() -> Bool { byte() & 1 == 1 }
    /// Mostly a value that breaks code or a plausible one, sometimes a small grid value, sometimes any double.
    mutating func number() -> Double {
        let b = byte()
        if b < 192 { return Choices.values[Int(b) % Choices.values.count] }
        if b < 240 { return Double(Int(byte()) - 100) / 4 }
        var bits: UInt64 = 0
        for _ in 0..<8 { bits = bits << 8 | UInt64(byte()) }
        return Double(bitPattern: bits)
    }
    /// A value for an optional setting: nil (its default) half the time.
    mutating func maybe() -> Double? { flag() ? number() : nil }
    static let values: [Double] = [
        0, -0.0, 1, -1, 0.5, 2, 3, 4, 5, 6, 10, 12, 20, 30, 100, 1e3, 1e6, 1e9, 1e15, 1e300, -1e300,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude, 1e-9,
        .nan, .infinity, -.infinity, -30, -40, -59, -65, -70, -80, -90, -100, -120, -127, -127.5, -200,
        0.25, 0.1, 0.99, 180, 360, 359.999, -180, 7.5, 15,
    ]
}

let uuid = UUID(uuidString: "B9407F30-F5F8-466E-AFF9-25556B57FE6D")!

/// One of a few identities, so that samples often name a placed beacon and sometimes one that is not.
func identity(_ c: inout Choices) -> BeaconIdentity {
    let k = c.byte()
    switch k % 3 {
    case 0: return BeaconIdentity(uuid: uuid, major: 1, minor: UInt16(k / 3 % 10))
    case 1: return BeaconIdentity(name: "b\(k / 3 % 10)")
    default: return (try? BeaconIdentity(eddystoneNamespace: "00112233445566778899", instance: String(format: "%012x", Int(k / 3 % 10))))
        ?? BeaconIdentity(name: "eddystone")
    }
}

func date(_ c: inout Choices) -> Date { Date(timeIntervalSinceReferenceDate: c.number()) }

func check(_ outcome: LocationOutcome, area: (width: Double, depth: Double)?, _ call: String) {
    guard case .located(let l) = outcome else { return }
    guard l.position.x.isFinite, l.position.y.isFinite else { finding("locator", "\(call): a position not finite: \(l.position)") }
    if let a = area {
        let slack = 1e-9 * max(a.width, a.depth, 1)
        if l.position.x < -slack || l.position.x > a.width + slack || l.position.y < -slack || l.position.y > a.depth + slack {
            finding("locator", "\(call): \(l.position) outside the area \(a.width) × \(a.depth)")
        }
    }
    if let e = l.uncertainty, e.semiMajor.isNaN || e.semiMinor.isNaN || e.orientation.isNaN || e.semiMajor < 0 || e.semiMinor < 0 {
        finding("locator", "\(call): an ellipse that is not a number: \(e)")
    }
    if let o = l.deviceOffset, o.decibels.isNaN || o.sigma.isNaN { finding("locator", "\(call): an offset that is NaN: \(o)") }
    for (name, p) in [("velocity", l.velocity), ("snapshot", l.snapshot)] {
        if let p, !(p.x.isFinite && p.y.isFinite) { finding("locator", "\(call): a \(name) not finite: \(p)") }
    }
}

runFuzzer { data, size in
    var c = Choices(data: data, size: size)
    // The venue.
    let beacons = (0..<(3 + c.below(6))).map { _ in
        BeaconPlacement(identity: identity(&c), position: Position(x: c.number(), y: c.number()), height: c.maybe(), measuredPower: c.maybe())
    }
    var model = PathLossModel()
    if c.flag() { model.measuredPower = c.number() }
    if c.flag() { model.exponent = c.number() }
    if c.flag() { model.shadowingSigma = c.number() }
    if c.flag() { model.receiverHeight = c.number() }
    if c.flag() { model.scanWindow = c.number() }
    if c.flag() { model.sensitivity = c.maybe() }
    if c.flag() { model.correlationDistance = c.maybe() }
    if c.flag() { model.modelError = c.number() }
    if c.flag() { model.advertisingInterval = c.number() }
    if c.flag() { model.packetLoss = c.number() }
    if c.flag() { model.beaconPowerSigma = c.number() }
    if c.flag() { model.bodyLoss = c.number() }
    if c.flag() { model.bodyHalfAngle = c.number() }
    if c.flag() { model.dropout = c.number() }
    let friezes = (0..<c.below(3)).map { k in Frieze(name: "f\(k)", position: Position(x: c.number(), y: c.number()), facing: c.maybe()) }
    let walls = (0..<c.below(4)).map { _ in
        WallSegment(from: Position(x: c.number(), y: c.number()), to: Position(x: c.number(), y: c.number()), loss: c.number())
    }
    let rooms = (0..<c.below(3)).map { k in Room(name: "r\(k)", outline: (0..<(3 + c.below(3))).map { _ in Position(x: c.number(), y: c.number()) }) }
    let area: (width: Double, depth: Double)? = c.flag() ? (c.number(), c.number()) : nil
    let locator: IndoorLocator
    do {
        locator = try IndoorLocator(beacons: beacons, pathLoss: model, friezes: friezes, walls: walls, rooms: rooms, area: area,
                                    seed: UInt64(c.byte()))
    } catch is LocatorError {
        return 0
    } catch {
        finding("locator", "the initialiser threw \(type(of: error)): \(error)")
    }
    // What an app calls, in any order.
    for call in 0..<48 where !c.exhausted {
        switch c.below(8) {
        case 0, 1:
            let samples = (0..<c.below(12)).map { _ in RSSISample(beacon: identity(&c), rssi: c.number(), timestamp: date(&c)) }
            let ranges = (0..<c.below(3)).map { _ in
                RangeSample(beacon: identity(&c), distance: c.number(), sigma: c.maybe(), technology: RangingTechnology.allCases[c.below(5)], timestamp: date(&c))
            }
            let headings = (0..<c.below(3)).map { _ in
                CompassHeading(degrees: c.number(), accuracy: c.number(), frieze: c.flag() ? "f\(c.below(4))" : nil, timestamp: date(&c))
            }
            check(locator.locate(rssi: samples, ranges: ranges, headings: headings), area: area, "call \(call): locate")
        case 2, 3:
            for _ in 0..<(1 + c.below(16)) {
                switch c.below(6) {
                case 0, 1, 2: locator.add(RSSISample(beacon: identity(&c), rssi: c.number(), timestamp: date(&c)))
                case 3: locator.add(RangeSample(beacon: identity(&c), distance: c.number(), sigma: c.maybe(), technology: .uwb, timestamp: date(&c)))
                case 4: locator.add(CompassHeading(degrees: c.number(), accuracy: c.number(), timestamp: date(&c)))
                default: locator.add(StepSample(length: c.number(), heading: c.number(), lengthAccuracy: c.number(), headingAccuracy: c.number(), timestamp: date(&c)))
                }
            }
        case 4:
            check(locator.currentLocation(at: date(&c)), area: area, "call \(call): currentLocation")
        case 5:
            let offset = DeviceOffset(decibels: c.number(), sigma: c.number())
            do { try locator.assumeDeviceOffset(offset) } catch is LocatorError {} catch {
                finding("locator", "call \(call): assumeDeviceOffset threw \(type(of: error)): \(error)")
            }
        case 6:
            switch c.below(3) {
            case 0: locator.forgetDevice()
            case 1: locator.reset()
            default: locator.restartTrack()
            }
        default:
            _ = locator.frieze(inViewFrom: Position(x: c.number(), y: c.number()), heading: c.number())
        }
        if let o = locator.deviceOffset, o.decibels.isNaN || o.sigma.isNaN { finding("locator", "call \(call): the learned offset is NaN: \(o)") }
    }
    return 0
}
