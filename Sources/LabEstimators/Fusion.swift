import LabCore
import LocatorEngine

/// RSSI and bearings in one GSL least-squares problem: the RSSI-domain residuals of
/// ``LeastSquaresEstimator`` plus angular residuals (heading − bearing to the frieze) / σθ.
/// Unidentified headings are matched from the RSSI fix. Without headings it equals least squares;
/// with ≥ 2 headings it works even when fewer than 3 beacons are heard.
public final class FusionEstimator: PositionEstimator {
    public static let name = "fusion"
    public static let summary = "RSSI and bearings in one GSL least-squares problem"
    public static let inputs = EstimatorInputs(uses: [.rssi, .headings], minimumBeacons: 3, minimumHeadings: 2)
    let venue: Venue
    let rssiSolver: FixProblem
    let solver: FixProblem
    private var scratch: [Point] = []

    public init(venue: Venue) {
        self.venue = venue
        rssiSolver = FixProblem(venue: venue, domain: .rssi)
        solver = FixProblem(venue: venue, domain: .rssi)
    }

    public func locate(_ observation: Observation) -> EstimateOutcome {
        if let problem = observation.problem(beaconCount: venue.beaconCount) { return .noFix(.invalidInput(problem)) }
        let obs = observation.beacons
        let headings = venue.friezes.isEmpty ? [] : observation.headings
        let rssiFix = RSSIFit.solve(venue: venue, beacons: obs, solver: rssiSolver, scratch: &scratch)
        if headings.isEmpty { return rssiFix }

        // A starting point: the identified bearing lines' intersection, else the RSSI fix.
        let identified = headings.compactMap { h in h.frieze.map { (venue.landmarks[$0].position, h.heading, 1.0) } }
        guard let start = ClosedForm.bearingIntersection(lines: identified) ?? rssiFix.fix?.position else {
            if case .noFix(let reason) = rssiFix, headings.count < 2 { return .noFix(reason) }
            return .noFix(.degenerateGeometry("no RSSI fix and fewer than 2 identified headings to start from"))
        }
        var matched: [(heading: HeadingReading, frieze: Int)] = []
        for h in headings {
            guard let f = h.frieze ?? FriezeMatcher.bestFrieze(for: h.heading, from: start, venue: venue) else { continue }
            matched.append((h, f))
        }
        let rssiUsable = obs.count >= 3 && GeometryChecks.collinearity(venue: venue, beacons: obs, scratch: &scratch) == nil
        if !rssiUsable && matched.count < 2 {
            return .noFix(.tooFewBeacons(heard: obs.count, needed: 3))
        }
        solver.reset()
        solver.addRSSI(obs, venue: venue)
        for (h, f) in matched {
            solver.addBearing(landmark: venue.landmarks[f].position, headingDegrees: h.heading, sigmaDegrees: h.accuracy)
        }
        switch solver.solve(from: venue.bounds.clamp(start)) {
        case .failure(let reason): return .noFix(reason)
        case .success(let s):
            let p = venue.bounds.clamp(s.position)
            let inView = headings.last.flatMap { $0.frieze ?? FriezeMatcher.bestFrieze(for: $0.heading, from: p, venue: venue) }
            return .fix(Fix(position: p, uncertainty: s.covariance?.drms,
                            beaconsUsed: BeaconSet(obs.lazy.map(\.beacon)), frieze: inView))
        }
    }
}

extension EstimatorKind {
    public static let fusion = EstimatorKind(FusionEstimator.self)
}
