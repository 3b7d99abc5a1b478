import Foundation
import LabCore

/// Cramér–Rao lower bound for RSS positioning (Patwari et al., IEEE TSP 2003), P0 and n known, 2-D:
///
///     F = b · Σᵢ kᵢ · (p − cᵢ)(p − cᵢ)ᵀ / dᵢ⁴,   b = (10·n / (σ·ln 10))²
///     E‖p̂ − p‖² ≥ trace(F⁻¹)
///
/// with kᵢ independent readings of beacon i and dᵢ the 3-D distance. Bearings add
/// Σ u⊥u⊥ᵀ / (σθ²·dₖ²) (σθ in radians, u⊥ ⟂ the line of sight to landmark k).
public struct CramerRaoBound: Sendable {
    public let venue: Venue

    public init(venue: Venue) { self.venue = venue }

    /// trace(F⁻¹) in m² at `p` for the given beacons (index, reading count) and bearing landmarks
    /// (position, σθ in degrees); +∞ when the geometry gives no 2-D information.
    public func bound(at p: Point, beacons: [(beacon: Int, count: Int)], bearings: [(landmark: Point, sigmaDegrees: Double)] = []) -> Double {
        let sigma = max(venue.radio.sigma, 1e-9)
        let b = pow(10 * venue.radio.exponent / (sigma * log(10)), 2)
        var f11 = 0.0, f12 = 0.0, f22 = 0.0
        for (i, k) in beacons {
            let c = venue.beaconPositions[i]
            let dx = p.x - c.x, dy = p.y - c.y, dz = venue.beaconHeightOffset[i]
            let d2 = max(dx * dx + dy * dy + dz * dz, 1e-12)
            let w = b * Double(k) / (d2 * d2)
            f11 += w * dx * dx; f12 += w * dx * dy; f22 += w * dy * dy
        }
        for (l, s) in bearings {
            let dx = l.x - p.x, dy = l.y - p.y
            let d2 = max(dx * dx + dy * dy, 1e-12)
            let st = max(s, 1e-6) * .pi / 180
            // u⊥ = (dy, −dx)/d
            let w = 1 / (st * st * d2 * d2)
            f11 += w * dy * dy; f12 -= w * dx * dy; f22 += w * dx * dx
        }
        let det = f11 * f22 - f12 * f12
        guard det > 1e-15 * max(f11 * f22, 1e-300) else { return .infinity }
        return (f11 + f22) / det
    }

    /// The bound at `p` for every beacon of the venue, each heard `readingsPerBeacon` times
    /// (beacons below the receiver's sensitivity at their mean RSSI are left out).
    public func bound(at p: Point, readingsPerBeacon k: Int, meanRSSI: ((Int, Point) -> Double)? = nil) -> Double {
        var heard: [(Int, Int)] = []
        heard.reserveCapacity(venue.beaconCount)
        for i in 0..<venue.beaconCount {
            if let meanRSSI, meanRSSI(i, p) < venue.radio.sensitivity { continue }
            heard.append((i, k))
        }
        return bound(at: p, beacons: heard)
    }
}
