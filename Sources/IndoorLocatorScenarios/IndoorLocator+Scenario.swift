import Foundation
import IndoorLocator
internal import LabCore
internal import LabScenarioIO

/// Loading a locator from an IndoorLab scenario file. A separate product, so that an app that configures
/// the locator in code does not compile the YAML reader (Yams and its C library).
extension IndoorLocator {
    /// Creates a locator from an IndoorLab scenario file: its beacons (with iBeacon identities),
    /// radio model, bounds, walls and friezes.
    /// - Throws: ``LocatorError`` naming the file, line and field of any problem, or a beacon without
    ///   uuid/major/minor.
    public convenience init(scenarioAt path: String) throws {
        let s: Scenario
        do { s = try ScenarioLoader.load(path: path) } catch { throw LocatorError("\(error)") }
        var placements: [BeaconPlacement] = []
        for (i, b) in s.beacons.enumerated() {
            guard let u = b.uuid.flatMap(UUID.init(uuidString:)), let major = b.major, let minor = b.minor else {
                throw LocatorError("\(path): beacons[\(i)] ('\(b.id)') has no iBeacon identity (uuid, major, minor)")
            }
            placements.append(BeaconPlacement(identity: BeaconIdentity(uuid: u, major: UInt16(major), minor: UInt16(minor)),
                                              position: Position(x: b.position.x, y: b.position.y), height: b.height, measuredPower: b.p0))
        }
        let r = s.radio
        try self.init(beacons: placements,
                      pathLoss: PathLossModel(measuredPower: r.p0, exponent: r.exponent, shadowingSigma: r.sigma,
                                              receiverHeight: r.receiverHeight, scanWindow: r.scanWindow, sensitivity: r.sensitivity),
                      friezes: s.friezes.map { Frieze(name: $0.name, position: Position(x: $0.position.x, y: $0.position.y), facing: $0.facing) },
                      walls: s.walls.map { WallSegment(from: Position(x: $0.segment.a.x, y: $0.segment.a.y), to: Position(x: $0.segment.b.x, y: $0.segment.b.y), loss: $0.loss) },
                      area: (s.bounds.maxX, s.bounds.maxY))
    }
}
