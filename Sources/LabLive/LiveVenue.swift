import Foundation
import IndoorLocator
import LabCore
import LabScenarioIO
import LabStore

/// The venue a service serves: its scenario, the recording header every session's file gets, and how a phone's names
/// (beacon identities, friezes, checkpoints) map to the venue's indices.
public struct LiveVenue: Sendable {
    public let scenario: Scenario
    /// The scenario file (the locators are loaded from it, as an app would load them).
    public let scenarioPath: String
    public let scenarioYAML: String?
    public let recorded: RecordedVenue
    let beaconIndex: [BeaconIdentity: Int]
    let landmarkIndex: [String: Int]
    let checkpointIndex: [String: Point]

    /// Loads the scenario at `path` (a file or a bundled name).
    /// - Throws: the scenario's ``InputErrors``.
    public init(scenario path: String) throws {
        let resolved = BundledScenarios.resolve(path)
        scenario = try ScenarioLoader.load(path: resolved)
        scenarioPath = resolved
        scenarioYAML = try? String(contentsOfFile: resolved, encoding: .utf8)
        recorded = RecordedVenue(scenario: scenario)
        var index: [BeaconIdentity: Int] = [:]
        for (i, b) in scenario.beacons.enumerated() { index[LiveVenue.identity(of: b)] = i }
        beaconIndex = index
        landmarkIndex = Dictionary(scenario.landmarks.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { a, _ in a })
        checkpointIndex = Dictionary(scenario.checkpoints.map { ($0.id, $0.position) }, uniquingKeysWith: { a, _ in a })
    }

    public var name: String { scenario.name }
    public var scanWindow: Double { scenario.radio.scanWindow }

    /// A scenario beacon's identity as the library and the phones name it: iBeacon where it has uuid, major and minor,
    /// its id otherwise (as ``IndoorLocator/init(scenarioAt:seed:)`` does).
    static func identity(of b: Beacon) -> BeaconIdentity {
        if let text = b.uuid, let u = UUID(uuidString: text), let major = b.major, let minor = b.minor {
            return BeaconIdentity(uuid: u, major: UInt16(major), minor: UInt16(minor))
        }
        return BeaconIdentity(name: b.id)
    }

    /// How a phone names a scenario beacon in a message (``WireBeacon``), as JSON.
    public static func wireJSON(of b: Beacon) -> String {
        let wire: WireBeacon
        switch identity(of: b).kind {
        case .iBeacon(let u, let major, let minor): wire = WireBeacon(uuid: u.uuidString, major: Int(major), minor: Int(minor))
        case .eddystoneUID(let n, let i): wire = WireBeacon(namespace: n, instance: i)
        case .name(let s): wire = WireBeacon(name: s)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(wire)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The identity a phone named, and the venue's index of that beacon.
    func beacon(_ w: WireBeacon, at path: String) throws(MessageProblem) -> (identity: BeaconIdentity, index: Int) {
        let identity: BeaconIdentity
        switch (w.uuid, w.namespace, w.name) {
        case (let u?, nil, nil):
            guard let uuid = UUID(uuidString: u) else { throw MessageProblem(.invalidValue, "\(path).uuid: expected a UUID, found \"\(u.prefix(40))\"") }
            guard let major = w.major, let minor = w.minor, (0...65535).contains(major), (0...65535).contains(minor) else {
                throw MessageProblem(.invalidValue, "\(path): an iBeacon needs major and minor, each 0–65535")
            }
            identity = BeaconIdentity(uuid: uuid, major: UInt16(major), minor: UInt16(minor))
        case (nil, let n?, nil):
            do { identity = try BeaconIdentity(eddystoneNamespace: n, instance: w.instance ?? "") } catch {
                throw MessageProblem(.invalidValue, "\(path): \(error)")
            }
        case (nil, nil, let name?):
            identity = BeaconIdentity(name: name)
        default:
            throw MessageProblem(.malformed, "\(path): expected exactly one of uuid (with major, minor), namespace (with instance) or name")
        }
        guard let i = beaconIndex[identity] else {
            throw MessageProblem(.unknownBeacon, "\(path): \(identity) is not a beacon of \(scenario.name)")
        }
        return (identity, i)
    }

    /// The floorplan as JSON (`GET /v1/venue`): bounds, walls, rooms, beacons (with `wire`, how a message names each),
    /// landmarks, checkpoints, scan window.
    public func floorplanJSON() -> String {
        let e = LiveEncoder.self
        func point(_ p: Point) -> String { "[\(e.num(p.x)),\(e.num(p.y))]" }
        let b = scenario.bounds
        let walls = scenario.walls.map { "{\"from\":\(point($0.segment.a)),\"to\":\(point($0.segment.b)),\"loss\":\(e.num($0.loss))}" }
        let rooms = scenario.rooms.map { r in "{\"name\":\(e.str(r.name)),\"outline\":[\(r.polygon.vertices.map(point).joined(separator: ","))]}" }
        let beacons = scenario.beacons.map { bc in
            "{\"id\":\(e.str(bc.id)),\"identity\":\(e.str(LiveVenue.identity(of: bc).description)),\"wire\":\(LiveVenue.wireJSON(of: bc)),\"position\":\(point(bc.position))}"
        }
        let landmarks = scenario.landmarks.map { "{\"name\":\(e.str($0.name)),\"kind\":\(e.str($0.kind.rawValue)),\"position\":\(point($0.position))}" }
        let checkpoints = scenario.checkpoints.map { "{\"name\":\(e.str($0.id)),\"position\":\(point($0.position))}" }
        return "{\"schema\":\(LiveSchema.version),\"name\":\(e.str(scenario.name)),\"scanWindow\":\(e.num(scanWindow)),"
            + "\"bounds\":{\"minX\":\(e.num(b.minX)),\"minY\":\(e.num(b.minY)),\"maxX\":\(e.num(b.maxX)),\"maxY\":\(e.num(b.maxY))},"
            + "\"walls\":[\(walls.joined(separator: ","))],\"rooms\":[\(rooms.joined(separator: ","))],"
            + "\"beacons\":[\(beacons.joined(separator: ","))],\"landmarks\":[\(landmarks.joined(separator: ","))],"
            + "\"checkpoints\":[\(checkpoints.joined(separator: ","))]}"
    }
}
