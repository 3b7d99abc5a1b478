import Foundation
import Testing
import LabCore
@testable import LabSimulation
import LabScenarioIO

/// Pedestrian motion on walks (speed that varies, pauses, rounded turns) and the phone's step detector.
@Suite struct WalkMotionTests {
    /// A 200 m corridor walked to the end and back, beacons along it.
    static func corridor(speedSigma: Double = 0, turn: Double = 0, pauses: [Pause] = [], pdr: PDRModel? = nil) -> Scenario {
        Scenario(name: "corridor", bounds: Rect(minX: 0, minY: 0, maxX: 210, maxY: 30),
                 beacons: (0..<8).map { Beacon(id: "B\($0)", position: Point(5 + 28 * Double($0), 10)) },
                 walks: [Walk(name: "w", waypoints: [Point(5, 5), Point(205, 5), Point(205, 25), Point(5, 25)], speed: 1.3,
                              speedSigma: speedSigma, turnDistance: turn, pauses: pauses)],
                 pdr: pdr)
    }

    @Test func speedVariesAboutItsMeanWithinItsBounds() throws {
        let s = Self.corridor(speedSigma: 0.2)
        var advances: [Double] = []
        for seed in 1...20 as ClosedRange<UInt64> {
            let epochs = try Simulator(scenario: s).simulate(walk: s.walks[0], seed: seed)
            // Steps within the first leg (straight): the distance between epochs is that window's speed.
            for (a, b) in zip(epochs, epochs.dropFirst()) where b.truth.y == 5 && b.truth.x < 204 {
                advances.append(a.truth.distance(to: b.truth))
            }
        }
        let (mean, sd) = stats(advances)
        #expect(abs(mean - 1.3) < 0.05, "mean speed \(mean)")
        // Kept within ±50% of the mean, the process's spread is a little under its σ.
        #expect(sd > 0.14 && sd < 0.22, "speed sd \(sd)")
        #expect(advances.allSatisfy { $0 >= 0.65 - 1e-9 && $0 <= 1.95 + 1e-9 })
        // Correlated from window to window (τ = 10 s, 1 s windows: ρ ≈ 0.9).
        let centred = advances.map { $0 - mean }
        let lag1 = zip(centred, centred.dropFirst()).reduce(0) { $0 + $1.0 * $1.1 } / centred.reduce(0) { $0 + $1 * $1 }
        #expect(lag1 > 0.7, "lag-1 correlation \(lag1)")
    }

    @Test func aPauseHoldsTheWalkerAtItsWaypoint() throws {
        let s = Self.corridor(pauses: [Pause(waypoint: 1, seconds: 7.5)])
        let epochs = try Simulator(scenario: s).simulate(walk: s.walks[0], seed: 1)
        let there = epochs.filter { $0.truth == Point(205, 5) }
        #expect(there.count == 8, "⌈7.5 s / 1 s⌉ windows at the waypoint")
        #expect(zip(there, there.dropFirst()).allSatisfy { abs($1.t - $0.t - 1) < 1e-12 }, "consecutive windows")
        let plain = try Simulator(scenario: Self.corridor()).simulate(walk: Self.corridor().walks[0], seed: 1)
        // The rest of the walk takes as many windows as before, give or take the one the regular windows lose or
        // gain by restarting a full step after the waypoint.
        #expect(abs(epochs.count - (plain.count + 8)) <= 1, "\(epochs.count) vs \(plain.count) + 8")
    }

    @Test func turnsAreRoundedWithinTheTurnDistanceAndStopsStaySharp() throws {
        let s = Self.corridor(turn: 1.5)
        let path = WalkPath(s.walks[0])
        #expect(path.length < s.walks[0].length)
        #expect(!path.points.contains(Point(205, 5)) && !path.points.contains(Point(205, 25)), "both corners rounded")
        // A quarter turn started T = 1.5 m before the corner: the arc (−T(1−u)², T·u²) about the corner is at most
        // T/4 = 0.375 m from the legs, at its apex; its vertices (9 chords) come within 0.30 m of that.
        let legs = zip(s.walks[0].waypoints, s.walks[0].waypoints.dropFirst()).map { Segment($0, $1) }
        let offsets = path.points.map { p in legs.map { $0.distance(to: p) }.min()! }
        #expect(offsets.max()! <= 0.375 + 1e-9 && offsets.max()! > 0.29, "\(offsets.max()!)")
        let epochs = try Simulator(scenario: s).simulate(walk: s.walks[0], seed: 1)
        for (a, b) in zip(epochs, epochs.dropFirst()) { #expect(a.truth.distance(to: b.truth) <= 1.3 + 1e-9) }
        // A pause at a corner keeps it sharp: the walker reaches the waypoint.
        let paused = Self.corridor(turn: 1.5, pauses: [Pause(waypoint: 1, seconds: 2)])
        #expect(WalkPath(paused.walks[0]).points.contains(Point(205, 5)))
        #expect(!WalkPath(paused.walks[0]).points.contains(Point(205, 25)))
    }

    @Test func theBundledWalksCrossNoWall() throws {
        for path in BundledScenarios.paths() {
            let s = try ScenarioLoader.load(path: path)
            let walls = WallIndex(s.walls)
            for w in s.walks {
                let epochs = try Simulator(scenario: s).simulate(walk: w, seed: 1)
                for (a, b) in zip(epochs, epochs.dropFirst()) {
                    #expect(!walls.crosses(from: a.truth, to: b.truth), "\(s.name) \(w.name): \(a.truth) → \(b.truth)")
                }
            }
        }
    }

    @Test func theStepDetectorReportsTheWalkWithItsErrors() throws {
        let model = PDRModel(cadence: 2, lengthSigma: 0.05, scaleSigma: 0, headingSigma: 5, biasSigma: 0, biasDrift: 0)
        let s = Self.corridor(pdr: model)
        let epochs = try Simulator(scenario: s).simulate(walk: s.walks[0], seed: 3)
        let steps = epochs.flatMap { $0.steps ?? [] }
        #expect(epochs.allSatisfy { $0.steps != nil })
        #expect(epochs[0].steps == [])
        // 420 m at 1.3 m/s and 2 steps/s: steps of 0.65 m, 646 of them (the last part-step is not reported).
        #expect(steps.count == 646, "\(steps.count)")
        let lengths = stats(steps.map(\.length))
        #expect(abs(lengths.mean - 0.65) < 0.01 && abs(lengths.sd - 0.05) < 0.01, "\(lengths)")
        // Heading errors about the leg's direction: east, north, west (no bias here).
        let errors = steps.compactMap { st -> Double? in
            guard let e = epochs.first(where: { $0.t >= st.t }), e.truth.y == 5 || e.truth.y == 25 else { return nil }
            return Bearing.difference(st.heading, e.truth.y == 5 ? 90 : 270)
        }
        // (Steps around the corners are classified by a nearby epoch: leave out the few that turn.)
        let h = stats(errors.filter { abs($0) < 25 })
        #expect(errors.filter { abs($0) < 25 }.count > 600)
        #expect(abs(h.mean) < 1 && abs(h.sd - 5) < 0.7, "\(h)")
        #expect(steps.allSatisfy { $0.headingAccuracy == 5 && $0.lengthAccuracy == 0.05 && $0.isValid })
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.t < $1.t })
        // Each epoch holds the steps of the time since the previous one.
        for (a, b) in zip(epochs, epochs.dropFirst()) { #expect(b.steps!.allSatisfy { $0.t > a.t && $0.t <= b.t }) }
    }

    @Test func theCompassBiasDriftsAndTheScaleIsOnePerWalk() throws {
        let model = PDRModel(cadence: 2, lengthSigma: 0, scaleSigma: 0.1, headingSigma: 0, biasSigma: 10, biasDrift: 1)
        let s = Self.corridor(pdr: model)
        var scales: [Double] = [], startBias: [Double] = [], endDrift: [Double] = []
        for seed in 1...40 as ClosedRange<UInt64> {
            let steps = try Simulator(scenario: s).simulate(walk: s.walks[0], seed: seed).flatMap { $0.steps ?? [] }
            // No length noise: every step along a leg is 0.65 m × (1 + scale) (those that turn a corner are chords).
            let first = steps[0].length / 0.65 - 1
            #expect(steps.filter { abs($0.length / 0.65 - 1 - first) < 1e-9 }.count >= steps.count - 2)
            scales.append(first)
            let east = steps.prefix { $0.t < 100 }
            startBias.append(Bearing.difference(east.first!.heading, 90))
            endDrift.append(Bearing.difference(east.last!.heading, 90) - startBias.last!)
        }
        #expect(abs(stats(scales).sd - 0.1) < 0.04, "\(stats(scales))")
        #expect(abs(stats(startBias).sd - 10) < 4, "\(stats(startBias))")
        // A random walk of 1°/√s over about 99 s: σ ≈ 10°.
        #expect(abs(stats(endDrift).sd - 10) < 4, "\(stats(endDrift))")
    }

    @Test func motionAndStepsDrawFromStreamsOfTheirOwn() throws {
        // Switching the step detector on leaves every reading as it was; the speed process with σ = 0 draws nothing.
        let plain = try Simulator(scenario: Self.corridor()).simulate(walk: Self.corridor().walks[0], seed: 9)
        let withSteps = try Simulator(scenario: Self.corridor(pdr: PDRModel())).simulate(walk: Self.corridor().walks[0], seed: 9)
        #expect(plain.map(\.readings) == withSteps.map(\.readings))
        #expect(plain.allSatisfy { $0.steps == nil })
        let s = Self.corridor(speedSigma: 0.2, turn: 1, pauses: [Pause(waypoint: 2, seconds: 3)], pdr: PDRModel())
        let a = try Simulator(scenario: s).simulate(walk: s.walks[0], seed: 4)
        #expect(a == (try Simulator(scenario: s).simulate(walk: s.walks[0], seed: 4)))
        #expect(a != (try Simulator(scenario: s).simulate(walk: s.walks[0], seed: 5)))
    }
}
