// A complete example of IndoorLocator as an app would use it: describe the venue, feed scans (RSSI, and ranges
// from a UWB accessory), read fixes with their 95% ellipse, stream measurements, and as an AsyncSequence. Everything
// but step 7 uses only the IndoorLocator product; step 7 loads a scenario file with IndoorLocatorScenarios.
// Run: swift run LocatorExample [SCENARIO.yaml]
import Foundation
import IndoorLocator
import IndoorLocatorScenarios  // only for init(scenarioAt:)

let venueUUID = UUID(uuidString: "B9407F30-F5F8-466E-AFF9-25556B57FE6D")!

func describe(_ outcome: LocationOutcome) -> String {
    switch outcome {
    case .located(let l):
        let ellipse = l.uncertainty.map { String(format: " ± %.2f × %.2f m (95%%, long axis %.0f°)", $0.semiMajor, $0.semiMinor, $0.orientation) } ?? ""
        let room = l.room.map { " in \($0)" } ?? ""
        let frieze = l.friezeInView.map { ", looking at \($0)" } ?? ""
        let ignored = l.ignored.total > 0 ? " (\(l.ignored.total) samples ignored)" : ""
        return "located at \(l.position)\(ellipse)\(room) from \(l.beaconsUsed.count) beacons\(frieze)\(ignored)"
    case .unavailable(let reason, _):
        return "no fix: \(reason)"
    }
}

do {
    // 1. Describe the venue: four iBeacons in the corners of a 20 m × 12 m gallery, one in the middle, and a
    //    UWB anchor (any string identity) above the door; two rooms split by a drywall.
    let corners = [(1.0, 1.0), (19.0, 1.0), (19.0, 11.0), (1.0, 11.0), (10.0, 6.0)]
    var beacons = corners.enumerated().map { i, c in
        BeaconPlacement(identity: BeaconIdentity(uuid: venueUUID, major: 1, minor: UInt16(i + 1)), position: Position(x: c.0, y: c.1))
    }
    let anchor = BeaconIdentity(name: "uwb-anchor-door")
    beacons.append(BeaconPlacement(identity: anchor, position: Position(x: 10, y: 0.2)))
    let rooms = [Room(name: "west gallery", outline: [Position(x: 0, y: 0), Position(x: 10, y: 0), Position(x: 10, y: 12), Position(x: 0, y: 12)]),
                 Room(name: "east gallery", outline: [Position(x: 10, y: 0), Position(x: 20, y: 0), Position(x: 20, y: 12), Position(x: 10, y: 12)])]
    let model = PathLossModel(measuredPower: -59, exponent: 2.0, shadowingSigma: 4)
    let locator = try IndoorLocator(beacons: beacons, pathLoss: model, rooms: rooms, area: (width: 20, depth: 12))

    // 2. One scan: what a phone at (6, 4) would hear (noise-free here, to show the fix is exact).
    let truth = Position(x: 6, y: 4)
    let scan = beacons.prefix(5).map { b in
        RSSISample(beacon: b.identity, rssi: model.measuredPower - 10 * model.exponent * log10(truth.distance(to: b.position)))
    }
    print("one scan:    " + describe(locator.locate(scan)))

    // 3. RSSI and a UWB range in one fix: the range (σ 0.1 m) tightens the ellipse along its direction.
    let range = RangeSample(beacon: anchor, distance: truth.distance(to: Position(x: 10, y: 0.2)), technology: .uwb)
    print("with UWB:    " + describe(locator.locate(rssi: scan, ranges: [range])))

    // 4. A stream: samples arrive one by one; ask for the position over the last scan window.
    let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    for (k, s) in scan.enumerated() {
        locator.add(RSSISample(beacon: s.beacon, rssi: s.rssi + (k.isMultiple(of: 2) ? 1 : -1), timestamp: t0 + 0.1 * Double(k)))
    }
    print("stream:      " + describe(locator.currentLocation(at: t0 + 0.5)))

    // 5. The same as an AsyncSequence, as a scanner's callback would feed it: a phone walking east along y = 4 for
    //    three seconds, each beacon heard every 0.25 s. One outcome per scan window (1 s); a window's outcome comes
    //    when the first measurement after it arrives, or when the input finishes.
    let (measurements, feed) = AsyncStream<LocatorInput>.makeStream()
    let walker = try IndoorLocator(beacons: beacons, pathLoss: model, rooms: rooms, area: (width: 20, depth: 12), seed: 7)
    let tracked = Task {
        var lines: [String] = []
        for await outcome in walker.locations(from: measurements) { lines.append(describe(outcome)) }
        return lines
    }
    for k in 0..<12 {
        let here = Position(x: 4 + 0.25 * Double(k), y: 4)
        for b in beacons.prefix(5) {
            let rssi = model.measuredPower - 10 * model.exponent * log10(here.distance(to: b.position))
            feed.yield(.rssi(RSSISample(beacon: b.identity, rssi: rssi, timestamp: t0 + 10 + 0.25 * Double(k))))
        }
    }
    feed.finish()   // the input ends: the last window's outcome follows
    for (w, line) in await tracked.value.enumerated() { print("window \(w + 1):    " + line) }

    // 6. Too little to go on (one beacon, metres away: anywhere on a circle): a typed reason, never a crash; RSSI 0
    //    (CoreLocation's "unknown") is ignored and counted.
    let poor = [scan[0], RSSISample(beacon: scan[1].beacon, rssi: 0)]
    let outcome = locator.locate(poor)
    print("poor scan:   " + describe(outcome) + " — ignored: \(outcome.ignored.rssiUnknown) with RSSI 0")

    // 7. A real venue from a scenario file, with a heading toward a frieze.
    if CommandLine.arguments.count > 1 {
        let court = try IndoorLocator(scenarioAt: CommandLine.arguments[1])
        print("scenario:    \(court.beacons.count) beacons, friezes: \(court.friezes.map(\.name).joined(separator: ", "))")
        if let first = court.friezes.first {
            let here = Position(x: 50, y: 40)
            let bearing = (atan2(first.position.x - here.x, first.position.y - here.y) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
            print("frieze in view from \(here) at heading \(String(format: "%.0f", bearing))°: " + (court.frieze(inViewFrom: here, heading: bearing) ?? "none"))
        }
    }
} catch {
    print("error: \(error)")
    exit(2)
}
