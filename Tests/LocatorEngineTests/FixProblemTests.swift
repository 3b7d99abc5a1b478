import Foundation
import Testing
import LabCore
import LocatorEngine
@testable import LabEstimators   // FixProblem(venue:domain:…) with GSL's solver, as the lab builds it

@Suite struct DegenerateInputTests {
    /// The one-scan fit keeps its collinearity check's last answer for the next scan that hears the same beacons: scans
    /// that alternate between beacons in a line and beacons around the phone each get their own answer, and a range to a
    /// beacon off the line (which the kept answer is not for) makes a fix.
    @Test func collinearityIsJudgedForEachSetOfBeacons() {
        let venue = makeVenue([Point(0, 0), Point(10, 0), Point(20, 0), Point(10, 12)])
        var options = OffsetFreeFit.Options.learning
        options.answersFewBeacons = false   // (with it, a scan of beacons in a line is answered where it determines a position)
        let fit = OffsetFreeFit(venue: venue, options: options, solver: LevenbergMarquardt(finishesWithNewton: true))
        let all = exactObservation(venue, at: Point(8, 5)).beacons
        func heard(_ beacons: [Int]) -> Observation { Observation(beacons: all.filter { beacons.contains($0.beacon) }) }
        let range = MeasuredRange(beacon: 3, distance: Point(8, 5).distance(to: Point(10, 12)), sigma: 0.3)
        for (k, (beacons, ranges, collinear)) in [([0, 1, 2], [], true), ([0, 1, 3], [], false), ([0, 1, 2], [], true),
                                                 ([0, 1, 2], [range], false), ([0, 1, 2], [], true), ([0, 1, 2, 3], [], false),
                                                 ([0, 1, 3], [], false)].enumerated() {
            let outcome = fit.locate(heard(beacons), ranges: ranges)
            if collinear {
                guard case .noFix(.degenerateGeometry) = outcome else { Issue.record("scan \(k), beacons \(beacons): \(outcome)"); continue }
            } else {
                #expect(outcome.fix != nil, "scan \(k), beacons \(beacons), \(ranges.count) ranges: \(outcome)")
            }
        }
    }
}

@Suite struct JacobianTests {
    /// The analytic Jacobian of every residual kind matches central finite differences.
    @Test(arguments: [FixProblem.Domain.rssi, .range])
    func analyticJacobianMatchesFiniteDifferences(domain: FixProblem.Domain) {
        let venue = makeVenue(square, friezes: friezePositions, heights: [1.8, 1.2, 2.5, 1.2, 3.0])
        let solver = FixProblem(venue: venue, domain: domain)
        var r = TestRandom(5)
        for i in 0..<5 {
            solver.addRSSI(position: venue.beaconPositions[i], heightOffset: venue.beaconHeightOffset[i], p0: -59,
                           rssi: -60 - 20 * r.next(), count: 1 + i)
        }
        for k in 0..<3 { solver.addBearing(landmark: friezePositions[k], headingDegrees: 360 * r.next(), sigmaDegrees: 5) }
        for _ in 0..<20 {
            let p = Point(r.uniform(1, 19), r.uniform(1, 14))
            let J = solver.jacobian(at: p)
            let h = 1e-6
            let fxp = solver.residuals(at: p + Point(h, 0)), fxm = solver.residuals(at: p - Point(h, 0))
            let fyp = solver.residuals(at: p + Point(0, h)), fym = solver.residuals(at: p - Point(0, h))
            for row in J.indices {
                let dx = (fxp[row] - fxm[row]) / (2 * h), dy = (fyp[row] - fym[row]) / (2 * h)
                #expect(abs(J[row][0] - dx) <= 1e-5 * max(1, abs(dx)), "row \(row) ∂x at \(p): \(J[row][0]) vs \(dx)")
                #expect(abs(J[row][1] - dy) <= 1e-5 * max(1, abs(dy)), "row \(row) ∂y at \(p): \(J[row][1]) vs \(dy)")
            }
        }
    }

    /// The same with the offset δ as a third unknown, censored terms (beacons not heard), walls, a prior on δ and a
    /// Gaussian prior on (x, y, δ) (a tracker's prediction); with and without a window dropout in the censored terms.
    @Test(arguments: [0.0, 0.3])
    func offsetCensoredAndPriorJacobianMatchesFiniteDifferences(dropout: Double) {
        let base = makeVenue(square, friezes: friezePositions, heights: [1.8, 1.2, 2.5, 1.2, 3.0])
        let venue = Venue(name: "walled", bounds: base.bounds, radio: RadioModel(sigma: 4, sensitivity: -80, packetLoss: 0.1, dropout: dropout),
                          beaconIDs: base.beaconIDs, beaconPositions: base.beaconPositions, beaconP0: base.beaconP0,
                          beaconHeightOffset: base.beaconHeightOffset, landmarks: base.landmarks,
                          walls: [Wall(segment: Segment(Point(30, -5), Point(30, 25)), loss: 5)])
        let solver = FixProblem(venue: venue, domain: .rssi, walls: venue.walls, estimatesOffset: true)
        var r = TestRandom(11)
        for i in 0..<3 {
            solver.addRSSI(position: venue.beaconPositions[i], heightOffset: venue.beaconHeightOffset[i], p0: -59,
                           rssi: -60 - 20 * r.next(), count: 1 + i)
        }
        solver.addCensored(venue: venue, heard: BeaconSet([0, 1, 2]), advertisements: 10)
        solver.addBearing(landmark: friezePositions[0], headingDegrees: 360 * r.next(), sigmaDegrees: 5)
        solver.offsetPrior = (mean: -3, sigma: 4)
        solver.statePrior = StatePrior(x: 8, y: 6, delta: -2, covariance: Symmetric3(xx: 4, xy: 1, xd: 0.5, yy: 3, yd: -0.3, dd: 9))
        #expect(solver.statePrior != nil)
        #expect(solver.residualCount == 3 + 2 + 1 + 1 + 3)
        for _ in 0..<20 {
            let p = Point(r.uniform(1, 19), r.uniform(1, 14)), delta = r.uniform(-15, 15)
            let J = solver.jacobian(at: p, offset: delta)
            let h = 1e-6
            let fx = (solver.residuals(at: p + Point(h, 0), offset: delta), solver.residuals(at: p - Point(h, 0), offset: delta))
            let fy = (solver.residuals(at: p + Point(0, h), offset: delta), solver.residuals(at: p - Point(0, h), offset: delta))
            let fd = (solver.residuals(at: p, offset: delta + h), solver.residuals(at: p, offset: delta - h))
            for row in J.indices {
                let numeric = [(fx.0[row] - fx.1[row]) / (2 * h), (fy.0[row] - fy.1[row]) / (2 * h), (fd.0[row] - fd.1[row]) / (2 * h)]
                for k in 0..<3 {
                    #expect(abs(J[row][k] - numeric[k]) <= 1e-5 * max(1, abs(numeric[k])), "row \(row) col \(k) at \(p), δ \(delta): \(J[row][k]) vs \(numeric[k])")
                }
            }
        }
    }
}

extension JacobianTests {
    /// A problem with every kind of term, in a venue with a wall at x = 30 (sensitivity −80 dBm): three RSSI terms (the
    /// third, −79 dBm, with its heard mean truncated near the sensitivity), a measured range, censored terms, a bearing,
    /// an offset prior and a state prior.
    func everyKindOfTerm(_ r: inout TestRandom) -> (FixProblem, Venue) {
        let base = makeVenue(square, friezes: friezePositions, heights: [1.8, 1.2, 2.5, 1.2, 3.0])
        let venue = Venue(name: "walled", bounds: base.bounds, radio: RadioModel(sigma: 4, sensitivity: -80, packetLoss: 0.1),
                          beaconIDs: base.beaconIDs, beaconPositions: base.beaconPositions, beaconP0: base.beaconP0,
                          beaconHeightOffset: base.beaconHeightOffset, landmarks: base.landmarks,
                          walls: [Wall(segment: Segment(Point(30, -5), Point(30, 25)), loss: 5)])
        let problem = FixProblem(venue: venue, domain: .rssi, walls: venue.walls, estimatesOffset: true)
        problem.truncatedMeans = true
        for i in 0..<3 {
            problem.addRSSI(position: venue.beaconPositions[i], heightOffset: venue.beaconHeightOffset[i], p0: -59,
                            rssi: i == 2 ? -79 : -60 - 10 * r.next(), count: 1 + i)
        }
        problem.addMeasuredRange(position: venue.beaconPositions[3], heightOffset: venue.beaconHeightOffset[3], distance: 6, sigma: 0.3)
        problem.addCensored(venue: venue, heard: BeaconSet([0, 1, 2, 3]), advertisements: 10)
        problem.addBearing(landmark: friezePositions[0], headingDegrees: 360 * r.next(), sigmaDegrees: 5)
        problem.offsetPrior = (mean: -3, sigma: 4)
        problem.statePrior = StatePrior(x: 8, y: 6, delta: -2, covariance: Symmetric3(xx: 4, xy: 1, xd: 0.5, yy: 3, yd: -0.3, dd: 9))
        return (problem, venue)
    }

    /// The library's solver sums the normal equations as it evaluates the terms, two RSSI terms at a time
    /// (``FixModel/normalEquations(unknowns:_:_:scratchF:scratchJ:curvature:)``): they are JᵀJ, Jᵀf and ‖f‖² of the
    /// residuals and Jacobian the lab's callbacks give, over an odd number of RSSI terms (one of them truncated), walls,
    /// a measured range, censored terms, a bearing and both priors.
    @Test func normalEquationsAreTheResidualsAndJacobiansSums() {
        var r = TestRandom(5)
        let (problem, _) = everyKindOfTerm(&r)
        let n = problem.residualCount
        let scratchF = UnsafeMutablePointer<Double>.allocate(capacity: n), scratchJ = UnsafeMutablePointer<Double>.allocate(capacity: 3 * n)
        defer { scratchF.deallocate(); scratchJ.deallocate() }
        for _ in 0..<20 {
            let p = Point(r.uniform(1, 39), r.uniform(1, 14)), delta = r.uniform(-15, 15)
            let f = problem.residuals(at: p, offset: delta), J = problem.jacobian(at: p, offset: delta)
            let model = problem.model
            let u = model.unknowns(x: p.x, y: p.y, delta: delta)
            let e = model.normalEquations(unknowns: u.0, u.1, u.2, scratchF: scratchF, scratchJ: scratchJ, curvature: false)
            func sum(_ term: (Int) -> Double) -> Double { (0..<n).reduce(0) { $0 + term($1) } }
            let expected = [sum { J[$0][0] * J[$0][0] }, sum { J[$0][0] * J[$0][1] }, sum { J[$0][0] * J[$0][2] },
                            sum { J[$0][1] * J[$0][1] }, sum { J[$0][1] * J[$0][2] }, sum { J[$0][2] * J[$0][2] },
                            sum { J[$0][0] * f[$0] }, sum { J[$0][1] * f[$0] }, sum { J[$0][2] * f[$0] }, sum { f[$0] * f[$0] }]
            let got = [e.a00, e.a01, e.a02, e.a11, e.a12, e.a22, e.g0, e.g1, e.g2, e.ff]
            for (k, (a, b)) in zip(got, expected).enumerated() {
                #expect(abs(a - b) <= 1e-10 * max(1, abs(b)), "entry \(k) at \(p), δ \(delta): \(a) vs \(b)")
            }
        }
    }

    /// With RSSI terms only (none truncated) and a prior on δ, JᵀJ plus the curvature the normal equations carry is the
    /// Hessian of ½‖f‖²: the finite differences of the gradient Jᵀf. What makes the library's Newton steps converge
    /// quadratically, and what lets its solver stop on a Newton step it need not evaluate (``NormalEquations/exactCurvature``).
    @Test func curvatureCompletesTheHessian() {
        let venue = makeVenue(square, friezes: friezePositions, heights: [1.8, 1.2, 2.5, 1.2, 3.0])
        let problem = FixProblem(venue: venue, domain: .rssi, estimatesOffset: true)
        var r = TestRandom(9)
        for i in 0..<5 {
            problem.addRSSI(position: venue.beaconPositions[i], heightOffset: venue.beaconHeightOffset[i], p0: -59,
                            rssi: -62 - 12 * r.next(), count: 1)
        }
        problem.offsetPrior = (mean: -3, sigma: 4)
        let n = problem.residualCount
        let scratchF = UnsafeMutablePointer<Double>.allocate(capacity: n), scratchJ = UnsafeMutablePointer<Double>.allocate(capacity: 3 * n)
        defer { scratchF.deallocate(); scratchJ.deallocate() }
        let model = problem.model
        func normal(_ x: Double, _ y: Double) -> NormalEquations {
            let u = model.unknowns(x: x, y: y, delta: -4)
            return model.normalEquations(unknowns: u.0, u.1, u.2, scratchF: scratchF, scratchJ: scratchJ, curvature: true)
        }
        for _ in 0..<20 {
            let x = r.uniform(1, 19), y = r.uniform(1, 14), h = 1e-6
            let e = normal(x, y)
            #expect(e.exactCurvature)
            let (px, mx, py, my) = (normal(x + h, y), normal(x - h, y), normal(x, y + h), normal(x, y - h))
            let hxx = (px.g0 - mx.g0) / (2 * h), hxy = (py.g0 - my.g0) / (2 * h), hyy = (py.g1 - my.g1) / (2 * h)
            for (a, b) in [(e.a00 + e.sxx, hxx), (e.a01 + e.sxy, hxy), (e.a11 + e.syy, hyy)] {
                #expect(abs(a - b) <= 1e-5 * max(1, abs(b)), "at (\(x), \(y)): \(a) vs \(b)")
            }
        }
    }

    /// The library's solver ends its Newton's steps on one it does not evaluate, once that step is within the step tolerance
    /// or the step before it shows quadratic convergence (``LevenbergMarquardt/isLastNewtonStep(_:at:_:_:_:three:after:)``):
    /// its answer is then a minimum to within the step tolerance — the exact Newton step evaluated there is under it (the
    /// rule aims at a tenth of it; 7.1·10⁻⁶ of the unknowns at most here) — and the cost it gives is the cost there to 10⁻⁶. From random starts, with and without
    /// a prior on δ, and for the one-scan fit's informed fits inside the venue (a fix outside is reported clamped onto its
    /// edge), which start one Newton step from the scan fit and tell the solver that step's size.
    @Test func newtonsFinishEndsAtTheMinimum() {
        let venue = makeVenue(square, heights: [1.8, 1.2, 2.5, 1.2, 3.0])
        let solver = LevenbergMarquardt(finishesWithNewton: true)
        let problem = FixProblem(venue: venue, domain: .rssi, estimatesOffset: true, solver: solver)
        let scratchF = UnsafeMutablePointer<Double>.allocate(capacity: 16), scratchJ = UnsafeMutablePointer<Double>.allocate(capacity: 48)
        defer { scratchF.deallocate(); scratchJ.deallocate() }
        var worst = 0.0, checked = 0
        // The relative size of the exact Newton step at (p, δ) of `problem` as it stands, and its cost there.
        func remaining(_ problem: FixProblem, _ p: Point, _ delta: Double) -> (size: Double, cost: Double)? {
            let model = problem.model
            let u = model.unknowns(x: p.x, y: p.y, delta: delta)
            let e = model.normalEquations(unknowns: u.0, u.1, u.2, scratchF: scratchF, scratchJ: scratchJ, curvature: true)
            guard e.exactCurvature, let n = LevenbergMarquardt.newtonStep(e, three: true) else { return nil }
            return (LevenbergMarquardt.relativeSize(n.0, n.1, n.2, of: u.0, u.1, u.2, three: true), e.ff)
        }
        func check(_ problem: FixProblem, _ p: Point, _ delta: Double, cost stated: Double, _ label: String) {
            guard let (size, cost) = remaining(problem, p, delta) else { return }
            worst = max(worst, size); checked += 1
            #expect(size < LevenbergMarquardt.stepTolerance, "\(label): a Newton step of \(size) remains at \(p)")
            #expect(abs(stated - cost) <= 1e-6 * max(1, cost), "\(label): cost \(stated), \(cost) there")
        }
        var r = TestRandom(23)
        // A phone somewhere in the square, reading 6 dB either way of the calibration phone, with 3 dB of noise.
        func scan() -> [BeaconObservation] {
            let truth = Point(r.uniform(1, 19), r.uniform(1, 14)), offset = r.uniform(-6, 6)
            return exactObservation(venue, at: truth).beacons
                .map { BeaconObservation(beacon: $0.beacon, rssi: $0.rssi + offset + 3 * r.gaussian(), count: 1) }
                .sorted { $0.rssi > $1.rssi }
        }
        for trial in 0..<200 {
            problem.reset()
            problem.addRSSI(scan(), venue: venue)
            if trial % 2 == 1 { problem.offsetPrior = (mean: r.uniform(-6, 6), sigma: 2) }
            guard case .success(let s) = problem.solve(from: Point(r.uniform(1, 19), r.uniform(1, 14)), offset: r.uniform(-5, 5)) else { continue }
            check(problem, s.position, s.offset, cost: s.cost, "solve \(trial)")
        }
        // The one-scan fit, learning the phone: from its second scan on, the informed fit starts one Newton step from the
        // scan fit (its problem then holds the informed fit's terms and prior).
        let fit = OffsetFreeFit(venue: venue, options: .learning, solver: solver)
        fit.startDevice()
        var informed = 0
        for k in 0..<100 {
            guard case .fix(let f) = fit.locate(Observation(beacons: scan())), k > 0, fit.problem.offsetPrior != nil, let delta = f.offset,
                  let last = fit.problem.lastNormal, last.position == f.position   // not clamped
            else { continue }
            check(fit.problem, f.position, delta, cost: last.normal.ff, "informed fit \(k)")
            informed += 1
        }
        // (Scans with a beacon near the sensitivity are not checked: their curvature is not exact, and the solver evaluates
        // every step of theirs.)
        #expect(checked >= 180 && informed >= 90, "\(checked) answers checked, \(informed) informed fits")
        print("Newton's finish: the largest Newton step left at \(checked) answers, \(worst) of the unknowns")
    }

    /// The stated region's cost (``ProfiledCost``: RSSI terms four at a time in single precision, truncated heard means
    /// from the table) is its definition — Σr² − (Σr·g)²/Σg², g = r(δ + 1) − r(δ), from the model's own residuals — to
    /// 2·10⁻⁴ of the cost: with walls, a truncated term, a range, censored terms, a bearing and both priors; with nine RSSI
    /// terms (a group of four partly empty) and the offset prior only; and with two unknowns (Σr²).
    @Test func profiledCostMatchesItsDefinition() {
        var r = TestRandom(17)
        let (mixed, walled): (FixProblem, Venue) = everyKindOfTerm(&r)
        let wide = Venue(name: "nine", bounds: Rect(minX: 0, minY: 0, maxX: 40, maxY: 30), radio: RadioModel(sigma: 4),
                         beaconIDs: (0..<9).map { "b\($0)" }, beaconPositions: (0..<9).map { Point(Double($0 % 3) * 18 + 2, Double($0 / 3) * 13 + 2) },
                         beaconP0: [Double](repeating: -59, count: 9), beaconHeightOffset: [Double](repeating: 1, count: 9))
        let rssiOnly = FixProblem(venue: wide, domain: .rssi, estimatesOffset: true), positionOnly = FixProblem(venue: wide, domain: .rssi)
        for problem in [rssiOnly, positionOnly] {
            var s = TestRandom(3)
            for i in 0..<9 {
                problem.addRSSI(position: wide.beaconPositions[i], heightOffset: 1, p0: -59, rssi: -60 - 25 * s.next(), count: 1 + i % 3)
            }
        }
        rssiOnly.offsetPrior = (mean: 2, sigma: 5)
        let storage = UnsafeMutablePointer<ProfiledCost.Quad>.allocate(capacity: ProfiledCost.storage(forTerms: 9))
        defer { storage.deallocate() }
        var truncatedSeen = false
        for (name, problem) in [("mixed", mixed), ("nine RSSI", rssiOnly), ("two unknowns", positionOnly)] {
            for _ in 0..<40 {
                let p = Point(r.uniform(-5, 45), r.uniform(-5, 30)), delta = problem.estimatesOffset ? r.uniform(-15, 15) : 0
                let origin = Point(r.uniform(0, 40), r.uniform(0, 30))
                let cost: Double = ProfiledCost(problem.model, delta: delta, origin: origin, storage: storage)(p)
                let r0: [Double] = problem.residuals(at: p, offset: delta)
                var expected: Double = r0.reduce(0) { $0 + $1 * $1 }
                if problem.estimatesOffset {
                    let g = zip(problem.residuals(at: p, offset: delta + 1), r0).map { $0 - $1 }
                    let rg = zip(r0, g).reduce(0) { $0 + $1.0 * $1.1 }, gg = g.reduce(0) { $0 + $1 * $1 }
                    expected -= rg * rg / gg
                }
                if problem === mixed {
                    // The weak term's model mean (beacon 2; the wall at x = 30 between when on the other side).
                    let b = walled.beaconPositions[2], dz = walled.beaconHeightOffset[2], d = (p.distance(to: b) * p.distance(to: b) + dz * dz).squareRoot()
                    let wall: Double = (p.x - 30) * (b.x - 30) < 0 ? 5 : 0
                    let mu: Double = -59 + delta - 10 * walled.radio.exponent * log10(d) - wall
                    if mu < walled.radio.sensitivity + TruncatedNormal.untruncatedBeyond * walled.radio.sigma { truncatedSeen = true }
                }
                #expect(abs(cost - expected) <= 2e-4 * max(1, abs(expected)), "\(name) at \(p), δ \(delta): \(cost) vs \(expected)")
            }
        }
        #expect(truncatedSeen, "no point put the weak term's heard mean in its truncated range")
    }
}

@Suite struct BearingTermTests {
    /// Bearing terms live in one block that grows with the headings of a scan: nine of them (two growths) each keep their
    /// landmark, heading and weight, and after a reset the same block serves the next scan.
    @Test func bearingTermsSurviveTheirBlockGrowing() {
        let venue = makeVenue(square, friezes: friezePositions, heights: [1.8, 1.2, 2.5, 1.2, 3.0])
        let problem = FixProblem(venue: venue, domain: .rssi)
        let at = Point(7, 5)
        for pass in 0..<2 {
            problem.reset()
            var expected: [Double] = []
            for k in 0..<9 {
                let landmark = Point(Double(3 * k), 20 - Double(k)), heading = 40 * Double(k) + Double(pass), sigma = 2 + Double(k)
                problem.addBearing(landmark: landmark, headingDegrees: heading, sigmaDegrees: sigma)
                var diff = heading * .pi / 180 - atan2(landmark.x - at.x, landmark.y - at.y)
                while diff > .pi { diff -= 2 * .pi }
                while diff <= -.pi { diff += 2 * .pi }
                expected.append(diff / (sigma * .pi / 180))
            }
            let r = problem.residuals(at: at)
            #expect(r.count == 9)
            for k in 0..<9 { #expect(abs(r[k] - expected[k]) < 1e-9, "pass \(pass), bearing \(k): \(r[k]) vs \(expected[k])") }
        }
    }
}

@Suite struct ModelErrorTests {
    /// Each beacon's mean of k readings counts with variance σ²/k + σ_m². With every beacon heard as often, the
    /// weights scale alike: the fix is the same and its covariance grows by (σ²/k + σ_m²)/(σ²/k). With unequal
    /// counts, a beacon heard 100 times weighs barely more than one heard 10 times, not √10 as much.
    @Test func aModelErrorWidensTheCovarianceAndCapsWhatAveragingBuys() throws {
        let sigma = 4.0, modelError = 3.0, k = 10
        func fit(_ m: Double, counts: [Int]) throws -> (FixProblem, FixProblem.Solution) {
            let venue = makeVenue(square, radio: RadioModel(p0: -59, exponent: 2, sigma: sigma, modelError: m))
            let problem = FixProblem(venue: venue, domain: .rssi)
            #expect(problem.modelError == m)
            let truth = Point(7, 5)
            for i in 0..<5 {
                let d = venue.beaconPositions[i].distance(to: truth)
                problem.addRSSI(position: venue.beaconPositions[i], heightOffset: 0, p0: -59,
                                rssi: -59 - 20 * log10(d) + [1.5, -2, 0.5, 2.5, -1][i], count: counts[i])
            }
            var solution: FixProblem.Solution?
            if case .success(let s) = problem.solve(from: Point(10, 7)) { solution = s }
            return (problem, try #require(solution))
        }
        let equal = [Int](repeating: k, count: 5)
        let (_, without) = try fit(0, counts: equal)
        let (problem, with) = try fit(modelError, counts: equal)
        #expect(with.position.distance(to: without.position) < 1e-6)
        let grow = (sigma * sigma / Double(k) + modelError * modelError) / (sigma * sigma / Double(k))
        let a = try #require(without.covariance), b = try #require(with.covariance)
        for (x, y) in [(a.xx, b.xx), (a.xy, b.xy), (a.yy, b.yy)] { #expect(abs(y - grow * x) <= 1e-6 * abs(grow * x) + 1e-12) }
        #expect(abs(problem.heard.weight[0] - 1 / (sigma * sigma / Double(k) + modelError * modelError).squareRoot()) < 1e-12)
        // Unequal counts: 100 readings against 10.
        let (uneven, _) = try fit(modelError, counts: [100, 10, 10, 10, 10])
        #expect(uneven.heard.weight[0] / uneven.heard.weight[1] < 1.1)
        let (plain, _) = try fit(0, counts: [100, 10, 10, 10, 10])
        #expect(abs(plain.heard.weight[0] / plain.heard.weight[1] - 10.0.squareRoot()) < 1e-9)
    }

    /// Under correlated shadowing a window's readings share one draw: k counts as 1 with or without a model error.
    @Test func correlatedShadowingCountsEachBeaconOnceWithAModelErrorToo() {
        let venue = makeVenue(square, radio: RadioModel(sigma: 4, correlationDistance: 3, modelError: 3))
        let problem = FixProblem(venue: venue, domain: .rssi)
        problem.addRSSI(position: square[0], heightOffset: 0, p0: -59, rssi: -70, count: 40)
        #expect(abs(problem.heard.weight[0] - 1 / 5.0) < 1e-12)
    }
}

@Suite struct BeaconSetTests {
    /// Each index below 128 counts once however often it is inserted, and iterates in increasing order; indices from
    /// 128 on (and negative ones) are only counted.
    @Test func countsEachBeaconOnce() {
        var s = BeaconSet([5, 0, 63, 64, 127, 5, 64])
        #expect(s.count == 5 && Array(s) == [0, 5, 63, 64, 127])
        #expect(s.contains(63) && s.contains(64) && !s.contains(1) && !s.contains(128) && !s.contains(-1))
        s.insert(127)
        #expect(s.count == 5)
        s.insert(200); s.insert(-3)
        #expect(s.count == 7 && Array(s) == [0, 5, 63, 64, 127] && !s.contains(200))
        #expect(BeaconSet([3, 70]) == BeaconSet([70, 3, 3]) && BeaconSet([3]) != BeaconSet([4]))
    }
}
