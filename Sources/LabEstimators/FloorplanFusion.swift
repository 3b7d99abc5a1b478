import LabCore
import LocatorEngine

/// Fusion that knows the floorplan: the RSSI model includes the loss of every wall between beacon and
/// phone (as the venue's walls say), and bearings to friezes join as in ``FusionEstimator``.
///
/// Wall losses make the likelihood piecewise smooth (a jump wherever a line of sight crosses a wall), so
/// one Levenberg–Marquardt descent can stop in the wrong room. With walls the solver starts from three
/// points — the free-space fusion fix, the weighted centroid and the strongest beacon (pulled 1 m toward
/// the centroid) — and keeps the solution with the lowest cost. (It does not stop early when the first fit
/// passes a χ² test: wrong rooms often fit well enough to pass it.) Without walls it is ``FusionEstimator``.
public final class FloorplanFusionEstimator: PositionEstimator {
    public static let name = "floorplan-fusion"
    public static let summary = "fusion whose RSSI model includes the walls crossed (multi-start)"
    public static let inputs = EstimatorInputs(uses: [.rssi, .headings, .walls], minimumBeacons: 3, minimumHeadings: 2)
    let venue: Venue
    let freeSpace: FusionEstimator
    let solver: FixProblem
    private var scratch: [Point] = []

    public init(venue: Venue) {
        self.venue = venue
        freeSpace = FusionEstimator(venue: venue)
        solver = FixProblem(venue: venue, domain: .rssi, walls: venue.walls)
    }

    public func locate(_ observation: Observation) -> EstimateOutcome {
        let first = freeSpace.locate(observation)
        guard !venue.walls.isEmpty, case .fix(let plain) = first else { return first }
        let obs = observation.beacons
        let headings = venue.friezes.isEmpty ? [] : observation.headings
        solver.reset()
        solver.addRSSI(obs, venue: venue)
        for h in headings {
            guard let f = h.frieze ?? FriezeMatcher.bestFrieze(for: h.heading, from: plain.position, venue: venue) else { continue }
            solver.addBearing(landmark: venue.landmarks[f].position, headingDegrees: h.heading, sigmaDegrees: h.accuracy)
        }
        var starts = [plain.position]
        if !obs.isEmpty {
            let centroid = ClosedForm.centroid(venue: venue, beacons: obs, weighted: true)
            let strongest = venue.beaconPositions[obs[0].beacon]
            let toward = centroid - strongest
            let d = toward.length
            starts.append(centroid)
            starts.append(d > 1 ? strongest + toward / d : centroid)
        }
        var best: FixProblem.Solution?
        for s in starts {
            guard case .success(let sol) = solver.solve(from: venue.bounds.clamp(s)) else { continue }
            if best == nil || sol.cost < best!.cost { best = sol }
        }
        guard let best else { return first }
        let p = venue.bounds.clamp(best.position)
        return .fix(Fix(position: p, uncertainty: best.covariance?.drms,
                        beaconsUsed: plain.beaconsUsed,
                        frieze: headings.last.flatMap { $0.frieze ?? FriezeMatcher.bestFrieze(for: $0.heading, from: p, venue: venue) }))
    }
}

extension EstimatorKind {
    public static let floorplanFusion = EstimatorKind(FloorplanFusionEstimator.self)
}
