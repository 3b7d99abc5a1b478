import Foundation
import Testing
import IndoorLocator

// An app's own types with the library's names, as many apps have: in this file they shadow the library's, as an app's
// own types do in the app's code. The library's are then named through the class: `IndoorLocator.Location`.
private struct Location { let exhibit: String }
private struct Position { let latitude: Double, longitude: Double }
private struct Room { let number: Int }

@Suite struct AppTypeNamesTests {
    @Test func anAppWithItsOwnLocationPositionAndRoomNamesTheLibrarysThroughTheClass() throws {
        let beacons = (0..<4).map { i in
            IndoorLocator.BeaconPlacement(identity: IndoorLocator.BeaconIdentity(name: "corner-\(i)"),
                                          position: IndoorLocator.Position(x: Double(i % 2) * 10, y: Double(i / 2) * 10))
        }
        let hall = IndoorLocator.Room(name: "hall", outline: [.init(x: 0, y: 0), .init(x: 10, y: 0), .init(x: 10, y: 10), .init(x: 0, y: 10)])
        let pathLoss = IndoorLocator.PathLossModel(measuredPower: -59, exponent: 2)
        let locator = try IndoorLocator(beacons: beacons, pathLoss: pathLoss, rooms: [hall], area: (width: 10, depth: 10))
        let truth = IndoorLocator.Position(x: 3, y: 6)
        let scan: [IndoorLocator.RSSISample] = beacons.map { b in
            IndoorLocator.RSSISample(beacon: b.identity, rssi: pathLoss.measuredPower - 20 * log10(truth.distance(to: b.position)))
        }
        let outcome: IndoorLocator.LocationOutcome = locator.locate(rssi: scan)
        let fix: IndoorLocator.Location = try #require(outcome.location)
        let ellipse: IndoorLocator.UncertaintyEllipse = try #require(fix.uncertainty)
        // The app's own types stay its own beside the library's.
        let mine = Location(exhibit: "the corner-0 case"), here = Position(latitude: 42.36, longitude: -71.09), room = Room(number: 7)
        #expect(fix.position.distance(to: truth) < 1e-4)
        #expect(fix.room == "hall" && ellipse.semiMajor > 0)
        #expect(mine.exhibit.hasPrefix("the") && here.latitude > 0 && room.number == 7)
        guard case .unavailable(let reason, _) = locator.locate(rssi: Array(scan.prefix(2))) else { Issue.record("two beacons gave a fix"); return }
        let typed: IndoorLocator.LocationUnavailable = reason
        if case .ambiguous = typed {} else { Issue.record("two beacons in the hall's middle: \(typed)") }
    }

    /// Every public type the module declares at its top level has its name in the class, and that name is the type itself.
    @Test func everyPublicTypeOfTheModuleIsNamedInTheClass() throws {
        let sources = packageRoot.appendingPathComponent("Sources/IndoorLocator")
        var declared: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: sources.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("public ") {
                let words = line.split(separator: " ")
                guard words.count > 2, ["struct", "enum", "class", "protocol", "actor"].contains(words[words[1] == "final" ? 2 : 1]) else { continue }
                let name = words[words[1] == "final" ? 3 : 2].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                if name != "IndoorLocator" { declared.append(String(name)) }
            }
        }
        let names = try String(contentsOf: sources.appendingPathComponent("Names.swift"), encoding: .utf8)
        #expect(declared.count >= 20, "found \(declared)")
        for name in declared {
            #expect(names.contains("    public typealias \(name) = _IndoorLocator\(name)\n"), "IndoorLocator.\(name) is missing")
            #expect(names.contains("public typealias _IndoorLocator\(name) = \(name)\n"), "_IndoorLocator\(name) is missing")
        }
        // The names are the types (this file's own Location, Position and Room aside, checked through the library's API above).
        func same<T>(_: T.Type, _: T.Type) {}
        same(IndoorLocator.RSSISample.self, RSSISample.self); same(IndoorLocator.RangeSample.self, RangeSample.self)
        same(IndoorLocator.BeaconIdentity.self, BeaconIdentity.self); same(IndoorLocator.WallSegment.self, WallSegment.self)
        same(IndoorLocator.LocationOutcome.self, LocationOutcome.self); same(IndoorLocator.DeviceOffset.self, DeviceOffset.self)
    }
}
