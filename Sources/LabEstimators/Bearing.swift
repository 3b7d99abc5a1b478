import LabCore
import LocatorEngine

/// AR bearing matching (the campus app's method). The user points the phone at friezes; each compass
/// heading puts the user on a line through that frieze. With ≥ 2 headings the fix is the weighted
/// least-squares intersection of the lines (weights 1/(σθ²·d²), d from the previous iterate).
/// Headings whose frieze is not identified are matched to the visible frieze whose bearing from the
/// current position agrees best — from an RSSI least-squares fix at first, then from the refined
/// position, until the matching is stable. The fix names the frieze in view (that of the last heading).
public final class BearingEstimator: PositionEstimator {
    public static let name = "bearing"
    public static let summary = "bearing lines to friezes intersected; unidentified headings matched"
    public static let inputs = EstimatorInputs(uses: [.headings, .rssi], minimumBeacons: 0, minimumHeadings: 2)
    let venue: Venue
    let solver: FixProblem
    private var scratch: [Point] = []
    private var matches: [Int] = []

    public init(venue: Venue) {
        self.venue = venue
        solver = FixProblem(venue: venue, domain: .rssi)
    }

    public func locate(_ observation: Observation) -> EstimateOutcome {
        if let problem = observation.problem(beaconCount: venue.beaconCount) { return .noFix(.invalidInput(problem)) }
        let headings = observation.headings
        guard headings.count >= 2 else { return .noFix(.tooFewHeadings(have: headings.count, needed: 2)) }
        guard !venue.friezes.isEmpty else { return .noFix(.invalidInput("the venue has no friezes to take bearings to")) }
        for h in headings {
            if let f = h.frieze, !venue.friezes.contains(f) { return .noFix(.invalidInput("heading names landmark #\(f), which is not a frieze")) }
        }
        let identified = headings.filter { $0.frieze != nil }
        var position: Point
        if let p = intersect(headings: identified, matched: identified.map { $0.frieze! }, around: nil) {
            position = p.position
        } else {
            switch RSSIFit.solve(venue: venue, beacons: observation.beacons, solver: solver, scratch: &scratch) {
            case .fix(let f): position = f.position
            case .noFix(let reason):
                return .noFix(.degenerateGeometry(identified.count >= 2
                    ? "the identified bearing lines are parallel and there is no RSSI fix to match the others (\(reason))"
                    : "fewer than 2 identified headings and no RSSI fix to match the others (\(reason))"))
            }
        }
        var result: (position: Point, covariance: Covariance2?)?
        var used: [Int] = []
        for _ in 0..<5 {
            let m = match(headings, from: position)
            let solved = intersect(headings: headings, matched: m, around: position)
            guard let solved else { break }
            result = solved
            let stable = m == used
            used = m
            position = solved.position
            if stable { break }
        }
        guard let result else {
            return .noFix(.degenerateGeometry("the bearing lines are parallel: the friezes lie in one direction"))
        }
        let radius = result.covariance?.drms
        // Lines that meet far outside the venue are near-parallel: keep the fix inside, as least squares does.
        return .fix(Fix(position: venue.bounds.clamp(result.position), uncertainty: radius.flatMap { $0.isFinite ? $0 : nil }, frieze: used.last))
    }

    /// For each heading, its identified frieze, or the visible frieze whose bearing from `p` is closest.
    func match(_ headings: [HeadingReading], from p: Point) -> [Int] {
        headings.map { h in
            if let f = h.frieze { return f }
            return FriezeMatcher.bestFrieze(for: h.heading, from: p, venue: venue) ?? venue.friezes[0]
        }
    }

    /// Weighted intersection of the bearing lines and its covariance (nil when singular); nil when degenerate.
    func intersect(headings: [HeadingReading], matched: [Int], around p: Point?) -> (position: Point, covariance: Covariance2?)? {
        guard headings.count >= 2 else { return nil }
        var lines: [(landmark: Point, heading: Double, weight: Double)] = []
        lines.reserveCapacity(headings.count)
        for (h, f) in zip(headings, matched) {
            let l = venue.landmarks[f].position
            let sigma = max(h.accuracy, 0.5) * .pi / 180
            let d = p.map { max($0.distance(to: l), 1) } ?? 1
            lines.append((l, h.heading, 1 / (sigma * sigma * d * d)))
        }
        guard let pos = ClosedForm.bearingIntersection(lines: lines) else { return nil }
        // Covariance of the weighted linear problem: the inverse of the bearings' Fisher information, with
        // distances from the solution (the lines' directions are the measured headings).
        var information = FisherInformation.zero
        for (h, f) in zip(headings, matched) {
            let sigma = max(h.accuracy, 0.5) * .pi / 180
            let d = max(pos.distance(to: venue.landmarks[f].position), 1)
            information += .bearing(lineOfSight: Bearing.unitVector(h.heading), distance: d, sigmaRadians: sigma)
        }
        return (pos, information.inverse)
    }
}

extension EstimatorKind {
    public static let bearing = EstimatorKind(BearingEstimator.self)
}
