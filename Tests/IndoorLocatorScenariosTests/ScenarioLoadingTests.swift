import Foundation
import Testing
import IndoorLocator
import IndoorLocatorScenarios

/// Loading a locator from a scenario file (the IndoorLocatorScenarios product): the venue it describes, and a bad file
/// refused with the problem named.
@Suite struct ScenarioLoadingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func aBundledScenarioGivesItsBeaconsRoomsAndFriezes() throws {
        let locator = try IndoorLocator(scenarioAt: Self.root.appendingPathComponent("Scenarios/smart-home.yaml").path)
        #expect(locator.beacons.count == 8)
        #expect(locator.rooms.count == 7)
        #expect(locator.pathLoss.exponent > 0)
        let killian = try IndoorLocator(scenarioAt: Self.root.appendingPathComponent("Scenarios/killian-court.yaml").path)
        #expect(killian.friezes.count == 10)
        #expect(killian.friezes.contains { $0.name == "Aristotle" })
    }

    @Test func aMissingOrBrokenFileIsRefusedWithItsPath() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("indoorlab-scenario-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("none.yaml").path
        let e1 = #expect(throws: LocatorError.self) { try IndoorLocator(scenarioAt: missing) }
        #expect(e1?.description.contains(missing) == true, "\(String(describing: e1))")
        let broken = dir.appendingPathComponent("broken.yaml")
        try "name: broken\nbounds: {width: 10, depth: 5}\nbeacons:\n  - {id: A, position: [1]}\n".write(to: broken, atomically: true, encoding: .utf8)
        let e2 = #expect(throws: LocatorError.self) { try IndoorLocator(scenarioAt: broken.path) }
        #expect(e2?.description.contains("beacons[0].position") == true, "the field is named: \(String(describing: e2))")
    }
}
