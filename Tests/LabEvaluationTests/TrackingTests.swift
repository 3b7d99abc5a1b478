import Foundation
import Testing
import LabCore
import LabSimulation
import LabEstimators
@testable import LabEvaluation
import LabStore
import LabScenarioIO
import LocatorEngine
import LabResults

@Suite struct TrackMetricsTests {
    /// Two rooms side by side with a wall between them (a door gap at y 4–6), the walker going from the left room
    /// into the right one.
    static let venue = Venue(name: "two rooms", bounds: Rect(minX: 0, minY: 0, maxX: 20, maxY: 10), radio: RadioModel(),
                             beaconIDs: ["a", "b", "c"], beaconPositions: [Point(1, 1), Point(19, 1), Point(10, 9)],
                             beaconP0: [-59, -59, -59], beaconHeightOffset: [0, 0, 0],
                             rooms: [Room(name: "left", polygon: Polygon([Point(0, 0), Point(10, 0), Point(10, 10), Point(0, 10)])),
                                     Room(name: "right", polygon: Polygon([Point(10, 0), Point(20, 0), Point(20, 10), Point(10, 10)]))],
                             walls: [Wall(segment: Segment(Point(10, 0), Point(10, 4)), loss: 3),
                                     Wall(segment: Segment(Point(10, 6), Point(10, 10)), loss: 3)])

    static func result(_ k: Int, truth: Point, fix: Point?) -> EpochResult {
        EpochResult(scenario: "s", seed: 1, estimator: .ekf, walk: "w", epoch: k, t: Double(k), truth: truth, fix: fix,
                    uncertainty: nil, reason: fix == nil ? "too-few-beacons" : nil, error: fix.map { $0.distance(to: truth) },
                    crlb: 1, beaconsHeard: 3, roomHit: nil, exhibitHit: nil, friezeLooks: 0, friezeHits: 0)
    }

    @Test func wallCrossingsRoomDelayJitterAndFirstFix() throws {
        let truths = [Point(8, 5), Point(8, 5), Point(9.5, 5), Point(11, 5), Point(12, 5), Point(13, 5)]
        let fixes: [Point?] = [nil, Point(8, 2), Point(8.5, 2.5), Point(9.5, 3), Point(11, 2), Point(12, 5)]
        var results = zip(truths.indices, zip(truths, fixes)).map { Self.result($0, truth: $1.0, fix: $1.1) }
        results.append(EpochResult(scenario: "s", seed: 1, estimator: .ekf, walk: "grid", epoch: 0, t: 0, truth: Point(1, 1),
                                   fix: Point(19, 9), uncertainty: nil, reason: nil, error: 25, crlb: 1, beaconsHeard: 3,
                                   roomHit: nil, exhibitHit: nil, friezeLooks: 0, friezeHits: 0))
        let m = TrackMetrics(results: results, venue: Self.venue)
        #expect(m.epochs == 6 && m.fixes == 5, "grid epochs are left out")
        // Pairs with both fixes: 1–2, 2–3, 3–4 (crosses the wall below the door), 4–5.
        #expect(m.wallCrossingRate == 0.25)
        // The walker enters the right room at epoch 3 (t 3); the fixes are there at epoch 4 (t 4).
        #expect(m.roomEntries == 1 && m.missedRoomEntries == 0)
        #expect(m.roomEntryDelay == 1)
        // Standing still between epochs 0 and 1, but epoch 0 has no fix: no jitter pair.
        #expect(m.stillJitter == nil)
        #expect(m.timeToFirstFix == 1)
        // Standing: epoch 1 (where epoch 0 was), 3 m off; walking: epochs 2–5 (epoch 0 has no fix).
        #expect(m.standingP75 == 3)
        let walking = [Point(8.5, 2.5).distance(to: Point(9.5, 5)), Point(9.5, 3).distance(to: Point(11, 5)), Point(11, 2).distance(to: Point(12, 5)), 1]
        #expect(m.walkingP75 == ErrorStatistics(errors: walking, attempts: 4).p75)
        // No PCRB in these results: no efficiency.
        #expect(m.pcrbRMSE == nil && m.pcrbEfficiency == nil)
    }
}

@Suite struct PosteriorBoundTests {
    static let venue = Venue(name: "square", bounds: Rect(minX: 0, minY: 0, maxX: 20, maxY: 15), radio: RadioModel(sigma: 4),
                             beaconIDs: ["a", "b", "c", "d"], beaconPositions: [Point(0, 0), Point(20, 0), Point(20, 15), Point(0, 15)],
                             beaconP0: [-59, -59, -59, -59], beaconHeightOffset: [0, 0, 0, 0])

    /// The posterior bound of a walker standing still never exceeds the one-scan bound of the same readings (the
    /// earlier scans add information) and settles where the motion model's diffusion balances the readings; with
    /// almost no process noise it is the variance of a straight-line fit's end; it is larger with the phone's offset
    /// unknown.
    @Test func trackingBoundBeatsTheSnapshotBoundAndFalls() throws {
        let known = CramerRaoBound(venue: Self.venue)
        let unknown = CramerRaoBound(venue: Self.venue, offset: .unknown)
        let epochs = (0..<30).map { k in (truth: Point(6, 5), t: Double(k), beacons: [(beacon: 0, readings: 10.0), (1, 10), (2, 10), (3, 10)],
                                          bearings: [(landmark: Point, sigmaDegrees: Double)]()) }
        let snapshot = known.information(at: Point(6, 5), beacons: epochs[0].beacons).traceOfInverse
        let pcrb = PosteriorBound(bound: known).bounds(walk: epochs)
        #expect(pcrb.count == 30)
        #expect(pcrb.allSatisfy { $0 <= snapshot * (1 + 1e-9) })
        #expect(abs(pcrb[29] - pcrb[28]) < 1e-3 * pcrb[29], "settled")
        var still = MotionModel()
        still.acceleration = 1e-9
        let static30 = PosteriorBound(bound: known, motion: still).bounds(walk: epochs).last!
        // With a constant but unknown velocity the last position is the end of a straight-line fit over the scans:
        // variance σ²·(4N − 2)/(N(N + 1)) for N scans of variance σ² (the velocity's prior helps a little).
        let lineEnd = snapshot * (4 * 30 - 2) / (30 * 31)
        #expect(static30 <= lineEnd && static30 > 0.95 * lineEnd, "\(static30) vs \(lineEnd)")
        let withOffset = PosteriorBound(bound: unknown).bounds(walk: epochs)
        #expect(zip(withOffset, pcrb).allSatisfy { $0 >= $1 * (1 - 1e-9) })
        #expect(withOffset.last! <= unknown.information(at: Point(6, 5), beacons: epochs[0].beacons).traceOfInverse)
    }

    /// With a step detector the compass bias b and the step-length scale s are states of the bound: the reported
    /// displacement Σ ℓ(1 − s)·u(θ − b) moves by −Σℓ·u′(θ)·π/180 per degree of b and −Σℓ·u(θ) per unit of s. A
    /// walk east hearing little: the bound grows with either prior's σ; without the walks' detector it takes the
    /// trackers' allowances.
    @Test func theStepBiasAndScaleAreStatesOfTheBound() {
        let east = StepReading(t: 1, length: 0.7, heading: 90, lengthAccuracy: 0.05, headingAccuracy: 8)
        let g = MotionModel.stepSensitivity([east, east])
        #expect(abs(g.scale.x + 1.4) < 1e-12 && abs(g.scale.y) < 1e-12)
        #expect(abs(g.bias.x) < 1e-12 && abs(g.bias.y - 1.4 * .pi / 180) < 1e-12, "a larger bias: truly more to the north")
        let walk = (0..<12).map { k in (truth: Point(2 + 1.4 * Double(k), 7), t: Double(k), beacons: [(beacon: 0, readings: 1.0), (1, 1), (2, 1), (3, 1)],
                                        bearings: [(landmark: Point, sigmaDegrees: Double)]()) }
        let steps: [[StepReading]?] = (0..<12).map { $0 == 0 ? [] : [east, east] }
        func mean(bias: Double, scale: Double) -> Double {
            let b = PosteriorBound(bound: CramerRaoBound(venue: Self.venue), pdr: PDRModel(scaleSigma: scale, biasSigma: bias, biasDrift: 0))
                .bounds(walk: walk, steps: steps)
            return b.reduce(0, +) / Double(b.count)
        }
        let told = mean(bias: 0, scale: 0)
        #expect(mean(bias: 10, scale: 0) > 1.02 * told && mean(bias: 0, scale: 0.1) > 1.02 * told)
        #expect(mean(bias: 20, scale: 0.05) > mean(bias: 10, scale: 0.05))
        let defaults = PosteriorBound(bound: CramerRaoBound(venue: Self.venue))
        #expect(defaults.stepBiasSigma == MotionModel().stepBiasSigma && defaults.stepScaleSigma == MotionModel().stepScaleError)
    }

    /// In the tournament every walk epoch carries the bound and grid epochs do not.
    @Test func tournamentWalkEpochsCarryTheBound() throws {
        let s = try LabScenarioIOFixtures.museum()
        let results = try Tournament(scenarios: [s], seeds: [2], estimators: [.ekf], conditions: [.field]).run()
        #expect(results.filter { $0.walk == "grid" }.allSatisfy { $0.pcrb == nil })
        let walk = results.filter { $0.walk != "grid" }
        #expect(!walk.isEmpty && walk.allSatisfy { ($0.pcrb ?? -1) > 0 })
        // The results file keeps it.
        let back = try ResultsFile.decode(ResultsFile.encode(walk), file: "r.csv")
        #expect(zip(back, walk).allSatisfy { abs(($0.pcrb ?? 0) - ($1.pcrb ?? 0)) <= 1e-6 * max(1, $1.pcrb ?? 0) })
    }
}

enum LabScenarioIOFixtures {
    static func museum() throws -> Scenario { try LabScenarioIO.ScenarioLoader.load(path: scenariosDir + "/museum-gallery.yaml") }
}
