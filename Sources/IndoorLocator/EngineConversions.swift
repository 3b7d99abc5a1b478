import Foundation
internal import LabCore
internal import LocatorEngine

extension UncertaintyEllipse {
    /// The 95% ellipse of a 2-D Gaussian with covariance `c`: semi-axes √(χ²₂(0.95)·λ), λ the eigenvalues.
    init?(covariance c: Covariance2) {
        // χ²₂ at confidenceLevel (both are the engine's stated level)
        guard let (a, b, u) = c.ellipse(chiSquare: OffsetFreeFit.chiSquare95) else { return nil }
        var bearing = atan2(u.x, u.y) * 180 / .pi
        bearing = bearing.truncatingRemainder(dividingBy: 180)
        if bearing < 0 { bearing += 180 }
        self.init(semiMajor: a, semiMinor: b, orientation: bearing)
    }
}

extension LocationUnavailable {
    /// The public reason for the engine's.
    init(_ reason: NoFixReason, heard: Int) {
        switch reason {
        case .tooFewBeacons(let h, let n): self = .tooFewBeacons(heard: h, needed: n)
        case .tooFewHeadings(let h, let n): self = .tooFewHeadings(have: h, needed: n)
        case .degenerateGeometry: self = .collinearBeacons(count: heard)
        case .ambiguous(let s): self = .ambiguous(s)
        case .invalidInput(let s), .solverFailed(let s): self = .solverFailed(s)
        }
    }
}
