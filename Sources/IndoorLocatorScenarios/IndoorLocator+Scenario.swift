import Foundation
import IndoorLocator
internal import LabCore
internal import LabScenarioIO

/// Loading a locator from an IndoorLab scenario file. A separate product, so that an app that configures
/// the locator in code does not compile the YAML reader (Yams and its C library).
extension IndoorLocator {
    /// Creates a locator from an IndoorLab scenario file: its beacons (an iBeacon identity where the scenario
    /// gives uuid, major and minor; otherwise the beacon's `id` as a string identity), radio model, bounds,
    /// walls, rooms and friezes.
    /// - Throws: ``LocatorError`` naming the file, line and field of any problem.
    /// - Parameter seed: the stream's particles draw from it (``IndoorLocator/init(beacons:pathLoss:friezes:walls:rooms:area:radioMap:seed:)``).
    public convenience init(scenarioAt path: String, seed: UInt64 = 0) throws {
        let s: Scenario
        do { s = try ScenarioLoader.load(path: path) } catch { throw LocatorError("\(error)") }
        var placements: [BeaconPlacement] = []
        for (i, b) in s.beacons.enumerated() {
            let identity: BeaconIdentity
            if let text = b.uuid {
                guard let u = UUID(uuidString: text), let major = b.major, let minor = b.minor else {
                    throw LocatorError("\(path): beacons[\(i)] ('\(b.id)'): an iBeacon identity needs uuid, major and minor")
                }
                identity = BeaconIdentity(uuid: u, major: UInt16(major), minor: UInt16(minor))
            } else {
                identity = BeaconIdentity(name: b.id)
            }
            placements.append(BeaconPlacement(identity: identity,
                                              position: Position(x: b.position.x, y: b.position.y), height: b.height, measuredPower: b.p0))
        }
        let r = s.radio
        try self.init(beacons: placements,
                      pathLoss: PathLossModel(measuredPower: r.p0, exponent: r.exponent, shadowingSigma: r.sigma,
                                              receiverHeight: r.receiverHeight, scanWindow: r.scanWindow, sensitivity: r.sensitivity,
                                              correlationDistance: r.correlationDistance, modelError: r.modelError,
                                              advertisingInterval: r.advertisingInterval, packetLoss: r.packetLoss, dropout: r.dropout),
                      friezes: s.friezes.map { Frieze(name: $0.name, position: Position(x: $0.position.x, y: $0.position.y), facing: $0.facing) },
                      walls: s.walls.map { WallSegment(from: Position(x: $0.segment.a.x, y: $0.segment.a.y), to: Position(x: $0.segment.b.x, y: $0.segment.b.y), loss: $0.loss) },
                      rooms: s.rooms.map { Room(name: $0.name, outline: $0.polygon.vertices.map { Position(x: $0.x, y: $0.y) }) },
                      area: (s.bounds.maxX, s.bounds.maxY), seed: seed)
    }
}
