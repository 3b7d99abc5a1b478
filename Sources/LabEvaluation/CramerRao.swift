import Foundation
import LabCore
import LabSimulation
import LabResults

/// The Cramér–Rao lower bound of a venue (Patwari et al., IEEE TSP 2003; 2-D), through
/// ``FisherInformation``: E‖p̂ − p‖² ≥ trace(F⁻¹), with kᵢ independent readings of beacon i and bearings
/// toward landmarks.
///
/// Two forms: P0 and n known (the ideal condition: estimators are told the truth), or the phone's offset δ
/// unknown, a nuisance parameter estimated with the position (``OffsetFisherInformation``: the field
/// condition, where no estimator knows the phone). `perReadingInformation` is the information one reading
/// carries about its mean: 1/σ² for Gaussian shadowing, less for heavy-tailed noise
/// (``NoiseInformation/contaminatedNormal(sigma:outlierRate:outlierScale:)``). `beaconSpread` is the σ of each
/// beacon's true P0 around the configured one, which no estimator is told: a beacon's k readings then count as
/// ``NoiseInformation/effectiveReadings(_:perReading:spread:)``, so many readings of one beacon cannot beat
/// its own bias.
public struct CramerRaoBound: Sendable {
    public enum Offset: String, Sendable { case known, unknown }

    public let venue: Venue
    public let offset: Offset
    public let perReadingInformation: Double
    /// σ of the beacons' P0 around their configured values, dB (0: the configured P0 is the truth).
    public let beaconSpread: Double
    let scale: Double

    public init(venue: Venue, offset: Offset = .known, perReadingInformation: Double? = nil, beaconSpread: Double = 0) {
        self.venue = venue
        self.offset = offset
        self.beaconSpread = max(beaconSpread, 0)
        let sigma = max(venue.radio.sigma, FisherInformation.minimumSigmaDB)
        self.perReadingInformation = perReadingInformation ?? 1 / (sigma * sigma)
        let a = 10 * venue.radio.exponent / log(10)
        // The Gaussian case keeps b = (10·n/(σ·ln 10))² exactly as written in the paper.
        scale = perReadingInformation.map { a * a * $0 } ?? FisherInformation.rssiScale(exponent: venue.radio.exponent, sigma: venue.radio.sigma)
    }

    /// The bound a scan is judged against: known offset and Gaussian noise when ideal; in the field, unknown
    /// offset, the contaminated normal's information per reading and the beacon spread. Body shadowing is left
    /// out: it is a step in the bearing (no derivative), so the bound is the one of an estimator told the
    /// walker's heading, which stays a bound for one that is not.
    public static func judging(_ condition: SimulationCondition, venue: Venue, impairments: FieldImpairments) -> CramerRaoBound {
        switch condition {
        case .ideal: return CramerRaoBound(venue: venue)
        case .field:
            let j = NoiseInformation.contaminatedNormal(sigma: venue.radio.sigma, outlierRate: impairments.outlierRate,
                                                        outlierScale: impairments.outlierScale)
            return CramerRaoBound(venue: venue, offset: .unknown, perReadingInformation: j, beaconSpread: impairments.beaconP0Sigma)
        }
    }

    /// This bound without the beacon spread: the bound of an estimator told each beacon's true P0.
    public var withoutBeaconSpread: CramerRaoBound {
        CramerRaoBound(venue: venue, offset: offset, perReadingInformation: perReadingInformation)
    }

    /// The information about the position at `p` from the given beacons (index, independent readings) and
    /// bearing landmarks (position, σθ in degrees), with the offset known or not as this bound says.
    public func information(at p: Point, beacons: [(beacon: Int, readings: Double)],
                            bearings: [(landmark: Point, sigmaDegrees: Double)] = []) -> FisherInformation {
        var f = FisherInformation.zero
        switch offset {
        case .known:
            for (i, k) in beacons where k > 0 {
                let c = venue.beaconPositions[i]
                f += .rssi(dx: p.x - c.x, dy: p.y - c.y, dz: venue.beaconHeightOffset[i], readings: effectiveReadings(k), scale: scale)
            }
        case .unknown:
            f = offsetInformation(at: p, beacons: beacons).positionWithUnknownOffset
        }
        for (l, s) in bearings {
            let d = l.distance(to: p)
            let u = d > 0 ? (l - p) / d : Point(0, 1)
            f += .bearing(lineOfSight: u, distance: d, sigmaRadians: max(s, FisherInformation.minimumSigmaDB) * .pi / 180)
        }
        return f
    }

    /// The readings' information about (x, y, δ) at `p` (δ the phone's offset), each reading carrying
    /// ``perReadingInformation``: what the unknown-offset bound and the posterior bound of walks build on.
    public func offsetInformation(at p: Point, beacons: [(beacon: Int, readings: Double)]) -> OffsetFisherInformation {
        var g = OffsetFisherInformation()
        for (i, k) in beacons where k > 0 {
            let c = venue.beaconPositions[i]
            g.addRSSI(dx: p.x - c.x, dy: p.y - c.y, dz: venue.beaconHeightOffset[i], readings: effectiveReadings(k),
                      exponent: venue.radio.exponent, perReading: perReadingInformation)
        }
        return g
    }

    /// What `k` independent readings of one beacon are worth under this bound's beacon spread.
    func effectiveReadings(_ k: Double) -> Double {
        NoiseInformation.effectiveReadings(k, perReading: perReadingInformation, spread: beaconSpread)
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

    /// The map on a grid 0.5 m apart (or 100 cells along the longer side for large venues), with the bound the
    /// condition is judged against (``CramerRaoBound/judging(_:venue:impairments:)``).
    public static func map(_ s: Scenario, condition: SimulationCondition = .ideal) -> BoundMap {
        let b = s.bounds
        let step = max(0.5, max(b.width, b.height) / 100)
        let nx = max(2, Int((b.width / step).rounded()) + 1), ny = max(2, Int((b.height / step).rounded()) + 1)
        let bound = CramerRaoBound.judging(condition, venue: Venue(s), impairments: condition.impairments(s.radio))
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
        return BoundMap(scenario: condition.label(s.name), bounds: b, nx: nx, ny: ny, values: values,
                        readingsPerBeacon: s.radio.advertisementsPerWindow,
                        model: modelText + (condition == .ideal ? "" : "; phone offset unknown, outlier noise, beacon spread"))
    }
}
