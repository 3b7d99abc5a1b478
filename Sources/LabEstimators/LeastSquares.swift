import LabCore
import LocatorEngine

/// Least squares over all heard beacons with GSL's trust-region Levenberg–Marquardt
/// (`gsl_multifit_nlinear`), analytic Jacobian, started from linearised trilateration (or the weighted
/// centroid when that is singular). Residuals in the RSSI domain are the maximum-likelihood estimator
/// under log-normal shadowing. The covariance (JᵀJ)⁻¹ gives the uncertainty radius; the fix is kept
/// inside the venue's bounds.
public final class LeastSquaresEstimator: PositionEstimator {
    public static let name = "least-squares"
    public static let summary = "GSL Levenberg–Marquardt, RSSI-domain residuals (maximum likelihood)"
    public static let inputs = EstimatorInputs(uses: [.rssi], minimumBeacons: 3)
    let fit: RSSILeastSquares

    public init(venue: Venue) { fit = RSSILeastSquares(venue: venue, domain: .rssi) }

    public func locate(_ observation: Observation) -> EstimateOutcome { fit.locate(observation) }
}

/// ``LeastSquaresEstimator`` with range-domain residuals (RSSI turned into ranges first, each weighted by
/// its first-order variance): the common alternative to the maximum-likelihood form.
public final class LeastSquaresRangeEstimator: PositionEstimator {
    public static let name = "least-squares-range"
    public static let summary = "GSL Levenberg–Marquardt, range-domain residuals"
    public static let inputs = EstimatorInputs(uses: [.rssi], minimumBeacons: 3)
    let fit: RSSILeastSquares

    public init(venue: Venue) { fit = RSSILeastSquares(venue: venue, domain: .range) }

    public func locate(_ observation: Observation) -> EstimateOutcome { fit.locate(observation) }
}

/// The venue, solver and scratch space of one least-squares estimator, in either residual domain.
final class RSSILeastSquares {
    let venue: Venue
    let solver: FixProblem
    private var scratch: [Point] = []

    init(venue: Venue, domain: FixProblem.Domain) {
        self.venue = venue
        solver = FixProblem(venue: venue, domain: domain)
        scratch.reserveCapacity(venue.beaconCount)
    }

    func locate(_ observation: Observation) -> EstimateOutcome {
        if let problem = observation.problem(beaconCount: venue.beaconCount) { return .noFix(.invalidInput(problem)) }
        return RSSIFit.solve(venue: venue, beacons: observation.beacons, solver: solver, scratch: &scratch)
    }
}

extension EstimatorKind {
    public static let leastSquares = EstimatorKind(LeastSquaresEstimator.self)
    public static let leastSquaresRange = EstimatorKind(LeastSquaresRangeEstimator.self)
}

/// The RSSI-only least-squares fit shared by the least-squares, bearing and fusion estimators.
enum RSSIFit {
    static func solve(venue: Venue, beacons obs: [BeaconObservation], solver: FixProblem, scratch: inout [Point]) -> EstimateOutcome {
        guard obs.count >= 3 else { return .noFix(.tooFewBeacons(heard: obs.count, needed: 3)) }
        if let reason = GeometryChecks.collinearity(venue: venue, beacons: obs, scratch: &scratch) { return .noFix(reason) }
        let start = venue.bounds.clamp(ClosedForm.linearTrilateration(venue: venue, beacons: obs)
                                       ?? ClosedForm.centroid(venue: venue, beacons: obs, weighted: true))
        solver.reset()
        solver.addRSSI(obs, venue: venue)
        switch solver.solve(from: start) {
        case .failure(let reason): return .noFix(reason)
        case .success(let s):
            let p = venue.bounds.clamp(s.position)
            let radius = s.covariance?.drms
            return .fix(Fix(position: p, uncertainty: radius, beaconsUsed: BeaconSet(obs.lazy.map(\.beacon))))
        }
    }
}
