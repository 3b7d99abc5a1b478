// A complete example of IndoorLocator as an app would use it: describe the venue, feed scans, read fixes.
// Run: swift run LocatorExample [SCENARIO.yaml]
import Foundation
import IndoorLocator
import IndoorLocatorScenarios  // only for init(scenarioAt:)

let venueUUID = UUID(uuidString: "B9407F30-F5F8-466E-AFF9-25556B57FE6D")!

func describe(_ outcome: LocationOutcome) -> String {
    switch outcome {
    case .located(let l):
        let radius = l.uncertainty.map { String(format: " ± %.2f m", $0) } ?? ""
        let frieze = l.friezeInView.map { ", looking at \($0)" } ?? ""
        return "located at \(l.position)\(radius) from \(l.beaconsUsed.count) beacons\(frieze)"
    case .unavailable(let reason):
        return "no fix: \(reason)"
    }
}

do {
    // 1. Describe the venue: four beacons in the corners of a 20 m × 12 m gallery and one in the middle.
    let corners = [(1.0, 1.0), (19.0, 1.0), (19.0, 11.0), (1.0, 11.0), (10.0, 6.0)]
    let beacons = corners.enumerated().map { i, c in
        BeaconPlacement(identity: BeaconIdentity(uuid: venueUUID, major: 1, minor: UInt16(i + 1)),
                        position: Position(x: c.0, y: c.1))
    }
    let model = PathLossModel(measuredPower: -59, exponent: 2.0, shadowingSigma: 4)
    let locator = try IndoorLocator(beacons: beacons, pathLoss: model, area: (width: 20, depth: 12))

    // 2. One scan: what a phone at (6, 4) would hear (noise-free here, to show the fix is exact).
    let truth = Position(x: 6, y: 4)
    let scan = beacons.map { b in
        RSSISample(beacon: b.identity, rssi: model.measuredPower - 10 * model.exponent * log10(truth.distance(to: b.position)))
    }
    print("one scan:   " + describe(locator.locate(scan)))

    // 3. A stream: samples arrive one by one; ask for the position over the last scan window.
    for (k, s) in scan.enumerated() {
        locator.add(RSSISample(beacon: s.beacon, rssi: s.rssi + (k.isMultiple(of: 2) ? 1 : -1), timestamp: 10 + 0.1 * Double(k)))
    }
    print("stream:     " + describe(locator.currentLocation(at: 10.5)))

    // 4. Too little to go on: a clear reason, never a crash.
    print("one beacon: " + describe(locator.locate(Array(scan.prefix(1)))))

    // 5. A real venue from a scenario file, with a heading toward a frieze.
    if CommandLine.arguments.count > 1 {
        let court = try IndoorLocator(scenarioAt: CommandLine.arguments[1])
        print("scenario:   \(court.beacons.count) beacons, friezes: \(court.friezes.map(\.name).joined(separator: ", "))")
        if let first = court.friezes.first {
            let here = Position(x: 50, y: 40)
            let bearing = atan2(first.position.x - here.x, first.position.y - here.y) * 180 / .pi
            print("frieze in view from \(here) at heading \(String(format: "%.0f", (bearing + 360).truncatingRemainder(dividingBy: 360)))°: "
                  + (court.frieze(inViewFrom: here, heading: (bearing + 360).truncatingRemainder(dividingBy: 360)) ?? "none"))
        }
    }
} catch {
    print("error: \(error)")
    exit(2)
}
