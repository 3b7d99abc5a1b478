import Foundation
import LabCore
import LabSimulation
import LabStore

/// The Cramér–Rao lower bound of a venue (Patwari et al., IEEE TSP 2003; P0 and n known, 2-D), through
/// ``FisherInformation``: E‖p̂ − p‖² ≥ trace(F⁻¹), with kᵢ independent readings of beacon i and bearings
/// toward landmarks.
public struct CramerRaoBound: Sendable {
    public let venue: Venue
    let scale: Double

    public init(venue: Venue) {
        self.venue = venue
        scale = FisherInformation.rssiScale(exponent: venue.radio.exponent, sigma: venue.radio.sigma)
    }

    /// The information at `p` from the given beacons (index, independent readings) and bearing landmarks
    /// (position, σθ in degrees).
    public func information(at p: Point, beacons: [(beacon: Int, readings: Double)],
                            bearings: [(landmark: Point, sigmaDegrees: Double)] = []) -> FisherInformation {
        var f = FisherInformation.zero
        for (i, k) in beacons where k > 0 {
            let c = venue.beaconPositions[i]
            f += .rssi(dx: p.x - c.x, dy: p.y - c.y, dz: venue.beaconHeightOffset[i], readings: k, scale: scale)
        }
        for (l, s) in bearings {
            let d = l.distance(to: p)
            let u = d > 0 ? (l - p) / d : Point(0, 1)
            f += .bearing(lineOfSight: u, distance: d, sigmaRadians: max(s, FisherInformation.minimumSigmaDB) * .pi / 180)
        }
        return f
    }

    /// trace(F⁻¹) in m² at `p` for the given beacons (index, reading count) and bearing landmarks
    /// (position, σθ in degrees); +∞ when the geometry gives no 2-D information.
    public func bound(at p: Point, beacons: [(beacon: Int, count: Int)], bearings: [(landmark: Point, sigmaDegrees: Double)] = []) -> Double {
        information(at: p, beacons: beacons.map { ($0.beacon, Double($0.count)) }, bearings: bearings).traceOfInverse
    }
}

/// The √CRLB over a venue's floorplan, for the crlb figure: at each grid point every beacon counts with
/// its expected independent readings per scan window (``RadioModel/expectedIndependentReadings(meanRSSI:)``:
/// packet loss, the probability of being heard at the mean RSSI with walls, and one reading per window
/// under correlated shadowing), as the planner counts them.
public enum BoundMapper {
    /// The model in words, stored with the map.
    public static let modelText = "expected independent readings per beacon: advertisements × (1 − packet loss) × P(heard), one per window with correlated shadowing"

    /// The map on a grid 0.5 m apart (or 100 cells along the longer side for large venues).
    public static func map(_ s: Scenario) -> BoundMap {
        let b = s.bounds
        let step = max(0.5, max(b.width, b.height) / 100)
        let nx = max(2, Int((b.width / step).rounded()) + 1), ny = max(2, Int((b.height / step).rounded()) + 1)
        let bound = CramerRaoBound(venue: Venue(s))
        let pathLoss = PathLoss(scenario: s)
        var beacons = [(beacon: Int, readings: Double)](repeating: (0, 0), count: pathLoss.beaconCount)
        var values = [Double](repeating: .nan, count: nx * ny)
        for iy in 0..<ny {
            let y = b.minY + b.height * Double(iy) / Double(ny - 1)
            for ix in 0..<nx {
                let p = Point(b.minX + b.width * Double(ix) / Double(nx - 1), y)
                for i in 0..<pathLoss.beaconCount {
                    beacons[i] = (i, s.radio.expectedIndependentReadings(meanRSSI: pathLoss.meanRSSI(beacon: i, at: p)))
                }
                values[iy * nx + ix] = bound.information(at: p, beacons: beacons).traceOfInverse.squareRoot()
            }
        }
        return BoundMap(scenario: s.name, bounds: b, nx: nx, ny: ny, values: values,
                        readingsPerBeacon: s.radio.advertisementsPerWindow, model: modelText)
    }
}
