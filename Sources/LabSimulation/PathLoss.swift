import Foundation
import LabCore

/// The deterministic part of the radio model for one venue: mean RSSI from each beacon at a point,
/// including every wall the line of sight crosses. Precomputes what it can once per venue.
public struct PathLoss: Sendable {
    public let radio: RadioModel
    @usableFromInline let beaconX: [Double], beaconY: [Double]
    let beaconDZ: [Double], beaconP0: [Double]
    let walls: WallIndex

    public init(scenario s: Scenario) {
        radio = s.radio
        beaconX = s.beacons.map(\.position.x)
        beaconY = s.beacons.map(\.position.y)
        beaconDZ = s.beacons.map { s.radio.heightOffset(beaconHeight: $0.height) }
        beaconP0 = s.beacons.map { s.radio.p0(beacon: $0.p0) }
        walls = WallIndex(s.walls, origins: s.beacons.map(\.position))   // beacon i's fan is origin i
    }

    public var beaconCount: Int { beaconX.count }

    /// Beacon `i`'s position on the floorplan.
    @inlinable public func beaconPosition(_ i: Int) -> Point { Point(beaconX[i], beaconY[i]) }

    /// 3-D distance from beacon `i` to a phone at `p`, metres.
    public func distance(beacon i: Int, to p: Point) -> Double {
        let dx = p.x - beaconX[i], dy = p.y - beaconY[i], dz = beaconDZ[i]
        return (dx * dx + dy * dy + dz * dz).squareRoot()
    }

    /// Total loss of the walls crossed by the straight line from beacon `i` to `p`, dB. Each wall counts once.
    public func wallLoss(beacon i: Int, to p: Point) -> Double {
        walls.loss(fromOrigin: i, to: p)
    }

    /// Mean RSSI of beacon `i` heard at `p` (no shadowing), dBm.
    public func meanRSSI(beacon i: Int, at p: Point) -> Double {
        radio.meanRSSI(distance: distance(beacon: i, to: p), p0: beaconP0[i]) - wallLoss(beacon: i, to: p)
    }
}
