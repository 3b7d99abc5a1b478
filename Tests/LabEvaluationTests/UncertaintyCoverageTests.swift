import Foundation
import Testing
import LabCore
import LabSimulation
import LabEstimators
import LabEvaluation
import LabScenarioIO

/// The shipped estimator's stated 95% ellipse (`indoorlab coverage`). Issue 12 asks for 93–97% in every
/// condition; what it reaches is in README ("Honest uncertainty") and these floors hold it there, on seeds the
/// floors were not read from (101–102; README's table uses 1–5). Field with correlated shadowing: 85.6% (seeds
/// 1–5) before walks paused at exhibits, 84.8% after (a pause's windows share one shadowing draw); 83.6% on 101–102.
@Suite struct UncertaintyCoverageTests {
    static let names = ["open-hall", "smart-home", "museum-gallery", "esoc-office", "killian-court"]

    @Test(arguments: [(SimulationCondition.ideal, false, 0.86), (.ideal, true, 0.86), (.field, false, 0.68), (.field, true, 0.82)])
    func theStatedEllipseHoldsTheTruthAsOftenAsMeasured(condition: SimulationCondition, correlated: Bool, floor: Double) throws {
        var inside = 0, fixes = 0
        for name in Self.names {
            let s = try ScenarioLoader.load(path: scenariosDir + "/\(name).yaml")
            let row = try UncertaintyCoverage.measure(scenario: s, condition: condition,
                                                  correlationDistance: correlated ? UncertaintyCoverage.defaultCorrelationDistance : nil,
                                                  seeds: [101, 102])
            #expect(row.fixes > 100, "\(name)")
            inside += row.inside; fixes += row.fixes
        }
        let coverage = Double(inside) / Double(fixes)
        #expect(coverage >= floor, "\(condition) correlated=\(correlated): \(coverage)")
        #expect(coverage <= 0.97, "timid: \(coverage)")
    }

    /// The likelihood-ratio widening: the stated region's half-length along each principal axis reaches where
    /// −2 log-likelihood (δ profiled out by a direct 1-D search, not the implementation's Gauss–Newton step) has
    /// risen by the threshold, or beyond, and it never states less than the linearised covariance.
    @Test func theRegionReachesTheLikelihoodRatioThresholdAndNeverShrinks() throws {
        // A venue without walls: behind a wall the likelihood can fall again, and "beyond" stops being monotonic.
        let s = try ScenarioLoader.load(path: scenariosDir + "/open-hall.yaml")
        let venue = Venue(s)
        let sim = try Simulator(scenario: s)
        let epochs = sim.simulate(points: sim.testPoints(), seed: 7).prefix(60)
        let problem = FixProblem(venue: venue, domain: .rssi, walls: venue.walls, estimatesOffset: true, solver: LevenbergMarquardt())
        let threshold = 5.991
        var widened = 0, checked = 0
        for e in epochs {
            let o = Observation(readings: e.readings, headings: [], beaconCount: venue.beaconCount)
            guard o.beacons.count >= 4 else { continue }
            problem.reset()
            problem.addRSSI(o.beacons, venue: venue)
            guard case .success(let sol) = problem.solve(from: ClosedForm.powerCentroid(venue: venue, beacons: o.beacons)),
                  let c = sol.covariance else { continue }
            let r = problem.likelihoodRegion(sol, covariance: c, threshold: threshold)
            // r − c is positive semi-definite.
            let dxx: Double = r.xx - c.xx, dxy: Double = r.xy - c.xy, dyy: Double = r.yy - c.yy
            let determinant: Double = dxx * dyy - dxy * dxy
            let tolerance: Double = 1e-9 * (c.xx * c.yy)
            #expect(dxx >= -1e-9 * c.xx, "epoch \(e.index)")
            #expect(dyy >= -1e-9 * c.yy, "epoch \(e.index)")
            #expect(determinant >= -tolerance, "epoch \(e.index)")
            if r.xx + r.yy > 1.01 * (c.xx + c.yy) { widened += 1 }
            // Along the principal axes of c (which r keeps), the boundary of r's threshold ellipse is at or beyond
            // the LR threshold.
            let angle: Double = 0.5 * atan2(2 * c.xy, c.xx - c.yy)
            let axes: [Point] = [Point(cos(angle), sin(angle)), Point(-sin(angle), cos(angle))]
            for axis in axes {
                let lambda: Double = axis.x * axis.x * r.xx + 2 * axis.x * axis.y * r.xy + axis.y * axis.y * r.yy
                for sign in [1.0, -1.0] {
                    let length: Double = sign * (threshold * lambda).squareRoot()
                    let p = sol.position + axis * length
                    let rise: Double = profiledCost(problem, at: p, around: sol.offset) - sol.cost
                    #expect(rise >= threshold * 0.98, "epoch \(e.index)")
                    checked += 1
                }
            }
        }
        #expect(checked >= 100)
        #expect(widened >= 5, "the widening never acted")
    }

    /// min over δ of the cost at `p`, by golden-section search over ±30 dB.
    func profiledCost(_ problem: FixProblem, at p: Point, around delta: Double) -> Double {
        func cost(_ d: Double) -> Double { problem.residuals(at: p, offset: d).reduce(0) { $0 + $1 * $1 } }
        var lo = delta - 30, hi = delta + 30
        let g = (5.0.squareRoot() - 1) / 2
        for _ in 0..<80 {
            let a = hi - g * (hi - lo), b = lo + g * (hi - lo)
            if cost(a) < cost(b) { hi = b } else { lo = a }
        }
        return cost((lo + hi) / 2)
    }
}
