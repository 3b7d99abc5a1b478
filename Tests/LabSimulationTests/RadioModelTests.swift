import Foundation
import Testing
import LabCore
@testable import LabSimulation
import LabScenarioIO

/// A venue with one beacon at the origin, for checking the radio model alone.
func oneBeacon(radio: RadioModel, walls: [Wall] = []) -> Scenario {
    Scenario(name: "one", bounds: Rect(minX: 0, minY: 0, maxX: 100, maxY: 100), walls: walls, radio: radio,
             beacons: [Beacon(id: "B", position: Point(0, 0))])
}

func stats(_ xs: [Double]) -> (mean: Double, sd: Double) {
    let m = xs.reduce(0, +) / Double(xs.count)
    let v = xs.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(xs.count - 1)
    return (m, v.squareRoot())
}

@Suite struct RadioModelTests {
    @Test(arguments: [1.0, 4.0, 10.0, 25.0])
    func rssiMeanAndSigmaMatchTheModel(distance: Double) throws {
        let radio = RadioModel(p0: -59, exponent: 2.2, sigma: 5, sensitivity: -200, quantize: false,
                               advertisingInterval: 0.1, scanWindow: 1.0, packetLoss: 0)
        let sim = try Simulator(scenario: oneBeacon(radio: radio))
        let rng = RandomSource(seed: 42)
        var out: [RSSIReading] = []
        var shadow: Simulator.ShadowState? = nil
        for _ in 0..<2000 { sim.scan(at: Point(distance, 0), startTime: 0, rng: rng, shadow: &shadow, into: &out) }
        let (mean, sd) = stats(out.map(\.rssi))
        let n = Double(out.count)
        let expected = -59 - 22 * log10(distance)
        #expect(out.count == 20000)
        // 5 standard errors: a false alarm about once in 3 million runs.
        #expect(abs(mean - expected) < 5 * 5 / n.squareRoot())
        // sd of the sample sd ≈ σ/√(2n)
        #expect(abs(sd - 5) < 5 * 5 / (2 * n).squareRoot())
    }

    @Test func eachWallCrossedAddsItsLossOnce() throws {
        let walls = [Wall(segment: Segment(Point(5, -10), Point(5, 10)), material: "concrete", loss: 6.9),
                     Wall(segment: Segment(Point(8, -10), Point(8, 10)), material: "glass", loss: 2.0),
                     Wall(segment: Segment(Point(20, 1), Point(30, 1)), material: "drywall", loss: 3.4)]
        let open = PathLoss(scenario: oneBeacon(radio: RadioModel()))
        let walled = PathLoss(scenario: oneBeacon(radio: RadioModel(), walls: walls))
        let free = open.meanRSSI(beacon: 0, at: Point(10, 0))
        #expect(abs(free - (-59 - 20 * log10(10))) < 1e-12)
        #expect(abs(walled.meanRSSI(beacon: 0, at: Point(10, 0)) - (free - 8.9)) < 1e-12)
        #expect(abs(walled.meanRSSI(beacon: 0, at: Point(6, 0)) - (open.meanRSSI(beacon: 0, at: Point(6, 0)) - 6.9)) < 1e-12)
        #expect(walled.meanRSSI(beacon: 0, at: Point(4, 0)) == open.meanRSSI(beacon: 0, at: Point(4, 0)))
        // A line of sight that never reaches the third wall is not attenuated by it.
        #expect(walled.wallLoss(beacon: 0, to: Point(25, 0.5)) == 8.9)
    }

    @Test func sensitivityAndQuantisationHold() throws {
        let radio = RadioModel(p0: -59, exponent: 3, sigma: 8, sensitivity: -90, quantize: true)
        let sim = try Simulator(scenario: oneBeacon(radio: radio))
        let rng = RandomSource(seed: 3)
        var out: [RSSIReading] = []
        var shadow: Simulator.ShadowState? = nil
        // Mean at 10 m is −89 dBm: about half the readings fall below −90.
        for _ in 0..<1000 { sim.scan(at: Point(10, 0), startTime: 0, rng: rng, shadow: &shadow, into: &out) }
        #expect(out.count > 3000 && out.count < 7000)
        #expect(out.allSatisfy { $0.rssi >= -90 })
        #expect(out.allSatisfy { $0.rssi == $0.rssi.rounded() })
    }

    @Test func packetLossDropsTheExpectedShare() throws {
        let radio = RadioModel(sigma: 1, sensitivity: -200, packetLoss: 0.3)
        let sim = try Simulator(scenario: oneBeacon(radio: radio))
        let rng = RandomSource(seed: 9)
        var out: [RSSIReading] = []
        var shadow: Simulator.ShadowState? = nil
        for _ in 0..<2000 { sim.scan(at: Point(3, 0), startTime: 0, rng: rng, shadow: &shadow, into: &out) }
        let kept = Double(out.count) / 20000
        #expect(abs(kept - 0.7) < 5 * (0.21 / 20000).squareRoot())
    }

    /// A window dropout removes a beacon's whole window (all or none of its advertisements) with its probability, and
    /// with none the simulator draws nothing for it: the readings are those of a radio without the key.
    @Test func dropoutRemovesWholeWindowsWithItsProbability() throws {
        let radio = RadioModel(sigma: 1, sensitivity: -200, packetLoss: 0, dropout: 0.4)
        let sim = try Simulator(scenario: oneBeacon(radio: radio))
        let rng = RandomSource(seed: 19)
        var shadow: Simulator.ShadowState? = nil
        var empty = 0, partial = 0
        let windows = 5000
        for _ in 0..<windows {
            var out: [RSSIReading] = []
            let heard = sim.scan(at: Point(3, 0), startTime: 0, rng: rng, shadow: &shadow, into: &out)
            if heard == 0 { empty += 1 } else if heard != 10 { partial += 1 }
        }
        #expect(partial == 0)
        let share = Double(empty) / Double(windows)
        #expect(abs(share - 0.4) < 5 * (0.24 / Double(windows)).squareRoot())
        // Without a dropout no draw is made for it: the same readings as the model without the field.
        let plain = try Simulator(scenario: oneBeacon(radio: RadioModel(sigma: 1, sensitivity: -200)))
        let zero = try Simulator(scenario: oneBeacon(radio: RadioModel(sigma: 1, sensitivity: -200, dropout: 0)))
        var a: [RSSIReading] = [], b: [RSSIReading] = []
        var s1: Simulator.ShadowState? = nil, s2: Simulator.ShadowState? = nil
        let r1 = RandomSource(seed: 5), r2 = RandomSource(seed: 5)
        for _ in 0..<50 {
            plain.scan(at: Point(3, 0), startTime: 0, rng: r1, shadow: &s1, into: &a)
            zero.scan(at: Point(3, 0), startTime: 0, rng: r2, shadow: &s2, into: &b)
        }
        #expect(a == b)
        // The expected readings the bound and the planner count lose the same share.
        #expect(abs(radio.expectedIndependentReadings(meanRSSI: -60) - 0.6 * 10) < 1e-9)
    }

    @Test func theSimulatorRefusesWorkBeyondTheBudget() throws {
        // 1e-300 s between advertisements used to trap converting 1e300 advertisements to Int; a 1e-9 m grid
        // or 1e-6 m/s walk used to exhaust memory.
        let interval = try #require(throws: InputErrors.self) { try Simulator(scenario: oneBeacon(radio: RadioModel(advertisingInterval: 1e-300))) }
        #expect(interval.description == "one: radio.advertising_interval: expected 0.02–10.24 s (the BLE advertising interval range), found 1e-300")
        var fine = oneBeacon(radio: RadioModel())
        fine.testGridSpacing = 1e-9
        let grid = try #require(throws: InputErrors.self) { try Simulator(scenario: fine) }
        #expect(grid.description == "one: test_grid: expected at least 0.1 m, found 1e-09")
        fine.testGridSpacing = 2
        fine.walks = [Walk(name: "w", waypoints: [Point(0, 0), Point(100, 100)], speed: 1e-6)]
        let walk = try #require(throws: InputErrors.self) { try Simulator(scenario: fine, condition: .field) }
        #expect(walk.description == "one: walks[0].speed: expected 0.01–10 m/s, found 1e-06")
    }

    @Test func correlatedShadowingFollowsGudmundson() throws {
        // Steps of 2 m with d_corr = 4 m: lag-one correlation exp(−0.5) ≈ 0.607.
        let radio = RadioModel(sigma: 6, sensitivity: -200, quantize: false, advertisingInterval: 1, scanWindow: 1,
                               correlationDistance: 4)
        let sim = try Simulator(scenario: oneBeacon(radio: radio))
        let rng = RandomSource(seed: 11)
        var shadow: Simulator.ShadowState? = Simulator.ShadowState(beacons: 1)
        var xs: [Double] = []
        for k in 0..<20000 {
            var out: [RSSIReading] = []
            // Walk back and forth along a circle of radius 10 m, so the mean RSSI is constant.
            let a = Double(k) * 2 / 10
            sim.scan(at: Point(50 + 10 * cos(a), 50 + 10 * sin(a)), startTime: 0, rng: rng, shadow: &shadow, into: &out)
            xs.append(out[0].rssi)
        }
        let (m, sd) = stats(xs)
        var c = 0.0
        for i in 1..<xs.count { c += (xs[i] - m) * (xs[i - 1] - m) }
        // Chord between consecutive points on the circle is slightly under 2 m.
        let step = 2 * 10 * sin(0.1)
        let rho = c / Double(xs.count - 1) / (sd * sd)
        #expect(abs(rho - exp(-step / 4)) < 0.03)
        #expect(abs(sd - 6) < 0.3)
    }
}

@Suite struct WalkSimulationTests {
    let scenario: Scenario = {
        var s = Scenario(name: "walk", bounds: Rect(minX: 0, minY: 0, maxX: 20, maxY: 10),
                         radio: RadioModel(sigma: 4, advertisingInterval: 0.1, scanWindow: 1.0),
                         beacons: [Beacon(id: "A", position: Point(1, 1)), Beacon(id: "B", position: Point(19, 1)),
                                   Beacon(id: "C", position: Point(10, 9))],
                         landmarks: [Landmark(name: "N", kind: .frieze, position: Point(10, 10), facing: 180),
                                     Landmark(name: "E", kind: .frieze, position: Point(20, 5), facing: 270)],
                         checkpoints: [Checkpoint(id: "QR", position: Point(10, 5.5))],
                         walks: [Walk(name: "w", waypoints: [Point(2, 5), Point(18, 5)], speed: 2,
                                      looks: [LookEvent(waypoint: 1, friezes: ["N", "E"], identified: false)])],
                         compass: CompassModel(sigma: 0, bias: 3))
        return s
    }()

    @Test func epochsFollowTheWalkAtItsSpeed() throws {
        let epochs = try Simulator(scenario: scenario).simulate(walk: scenario.walks[0], seed: 1)
        let moving = epochs.filter { $0.headings.isEmpty }
        #expect(moving.first?.truth == Point(2, 5))
        for (a, b) in zip(moving, moving.dropFirst()) where b.truth != Point(18, 5) {
            #expect(abs(a.truth.distance(to: b.truth) - 2) < 1e-9)
        }
        #expect(zip(epochs, epochs.dropFirst()).allSatisfy { abs($1.t - $0.t - 1) < 1e-12 })
        #expect(epochs.allSatisfy { e in e.readings.allSatisfy { $0.t >= e.t - 0.5 && $0.t < e.t + 0.5 } })
    }

    @Test func lookEventsGiveHeadingsTowardTheFriezes() throws {
        let epochs = try Simulator(scenario: scenario).simulate(walk: scenario.walks[0], seed: 1)
        let looks = epochs.filter { !$0.headings.isEmpty }
        #expect(looks.count == 1)
        let h = looks[0].headings
        #expect(looks[0].truth == Point(18, 5))
        #expect(h.map(\.target) == [0, 1])
        #expect(h.allSatisfy { $0.frieze == nil })
        // σ = 0: heading = true bearing + bias exactly.
        #expect(abs(h[0].heading - Bearing.normalise(Bearing.degrees(from: Point(18, 5), to: Point(10, 10)) + 3)) < 1e-9)
        #expect(abs(h[1].heading - 93) < 1e-9)
    }

    /// Every heading of a look lies in its own scan window, however short the window or long the look (stamped 0.1 s
    /// apart they spilled into the next window, and a recording's replay moved them there).
    @Test func aLooksHeadingsStayInTheirWindow() throws {
        for (window, interval) in [(1.0, 0.1), (0.2, 0.02)] {
            var s = scenario
            s.radio.scanWindow = window; s.radio.advertisingInterval = interval
            s.walks[0].looks = [LookEvent(waypoint: 1, friezes: ["N", "E", "N", "E", "N", "E", "N"], identified: false)]
            let epochs = try Simulator(scenario: s).simulate(walk: s.walks[0], seed: 1)
            let looks = epochs.filter { !$0.headings.isEmpty }
            #expect(looks.first?.headings.count == 7)
            #expect(looks.allSatisfy { e in e.headings.allSatisfy { $0.t >= e.t - window / 2 && $0.t < e.t + window / 2 } }, "window \(window) s")
        }
    }

    /// A receiver saturates at +20 dBm: a loud beacon next to the walk reads no more (+41 dBm could not be recorded).
    @Test func readingsSaturateAtTheStrongestAReceiverReports() throws {
        var s = scenario
        s.radio.p0 = 20
        s.beacons[0].position = Point(2, 5)   // on the walk's first point
        let epochs = try Simulator(scenario: s).simulate(walk: s.walks[0], seed: 1)
        let loudest = epochs.flatMap(\.readings).map(\.rssi).max() ?? -.infinity
        #expect(loudest == RadioModel.plausibleRSSI.upperBound)
    }

    @Test func aCheckpointIsScannedOncePerPass() throws {
        let epochs = try Simulator(scenario: scenario).simulate(walk: scenario.walks[0], seed: 1)
        let scans = epochs.filter { $0.checkpoint != nil }
        #expect(scans.count == 1)
        #expect(scans.first.map { abs($0.truth.x - 10) <= 2 } == true)
    }

    @Test func sameSeedSameEpochsOtherSeedDiffers() throws {
        let sim = try Simulator(scenario: scenario)
        let a = sim.simulate(walk: scenario.walks[0], seed: 5)
        let b = sim.simulate(walk: scenario.walks[0], seed: 5)
        let c = sim.simulate(walk: scenario.walks[0], seed: 6)
        #expect(a == b)
        #expect(a != c)
        #expect(sim.simulate(points: sim.testPoints(), seed: 5) == sim.simulate(points: sim.testPoints(), seed: 5))
    }

    @Test func testPointsCoverTheRoomsOnly() throws {
        var s = scenario
        s.rooms = [Room(name: "left", polygon: Polygon([Point(0, 0), Point(10, 0), Point(10, 10), Point(0, 10)]))]
        let pts = try Simulator(scenario: s).testPoints(spacing: 2)
        #expect(pts.count == 25)
        #expect(pts.allSatisfy { $0.x < 10 })
        #expect(try Simulator(scenario: scenario).testPoints(spacing: 2).count == 50)
    }
}
