import LabCore

/// Least squares over all heard beacons with GSL's trust-region Levenberg–Marquardt
/// (`gsl_multifit_nlinear`), analytic Jacobian, started from linearised trilateration (or the weighted
/// centroid when that is singular). Residuals in the RSSI domain are the maximum-likelihood estimator
/// under log-normal shadowing; the range domain is the common alternative. The covariance (JᵀJ)⁻¹ gives
/// the uncertainty radius; the fix is kept inside the venue's bounds.
public final class LeastSquaresEstimator: PositionEstimator {
    public let kind: EstimatorKind
    let venue: Venue
    let solver: FixSolver
    private var scratch: [Point]

    public enum Domain: Sendable { case rssi, range }

    public init(venue: Venue, domain: Domain) {
        self.venue = venue
        kind = domain == .rssi ? .leastSquares : .leastSquaresRange
        solver = FixSolver(venue: venue, domain: domain == .rssi ? .rssi : .range)
        scratch = []
        scratch.reserveCapacity(venue.beaconCount)
    }

    public func locate(_ observation: Observation) -> EstimateOutcome {
        if let problem = observation.problem(beaconCount: venue.beaconCount) { return .noFix(.invalidInput(problem)) }
        return RSSIFit.solve(venue: venue, beacons: observation.beacons, solver: solver, scratch: &scratch)
    }
}

/// The RSSI-only least-squares fit shared by the least-squares, bearing and fusion estimators.
enum RSSIFit {
    static func solve(venue: Venue, beacons obs: [BeaconObservation], solver: FixSolver, scratch: inout [Point]) -> EstimateOutcome {
        guard obs.count >= 3 else { return .noFix(.tooFewBeacons(heard: obs.count, needed: 3)) }
        if let reason = collinearity(venue: venue, beacons: obs, scratch: &scratch) { return .noFix(reason) }
        let start = venue.bounds.clamp(ClosedForm.linearTrilateration(venue: venue, beacons: obs)
                                       ?? ClosedForm.centroid(venue: venue, beacons: obs, weighted: true))
        solver.reset()
        solver.addRSSI(obs, venue: venue)
        switch solver.solve(from: start) {
        case .failure(let reason): return .noFix(reason)
        case .success(let s):
            let p = venue.bounds.clamp(s.position)
            let radius = s.covariance.map { ($0.xx + $0.yy).squareRoot() }
            return .fix(Fix(position: p, uncertainty: radius, beaconsUsed: BeaconSet(obs.lazy.map(\.beacon))))
        }
    }

    static func collinearity(venue: Venue, beacons obs: [BeaconObservation], scratch: inout [Point]) -> NoFixReason? {
        scratch.removeAll(keepingCapacity: true)
        for o in obs { scratch.append(venue.beaconPositions[o.beacon]) }
        if scratch.withUnsafeBufferPointer({ GeometryChecks.areCollinear($0) }) {
            return .degenerateGeometry("the \(obs.count) heard beacons are collinear: the fix and its mirror image fit equally well")
        }
        return nil
    }
}
