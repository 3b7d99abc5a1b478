import Foundation
import Testing
import LabCore
@testable import LabSimulation
import LabScenarioIO

/// The field condition against its definition (FieldImpairments). The field's draws come from streams of
/// their own, so field minus ideal, reading by reading, is exactly what the impairments add; checks of
/// random quantities allow 5 standard errors (a false alarm about once in 3.5 million runs).
@Suite struct FieldImpairmentTests {
    /// Four beacons around a 40 m hall, no walls; readings never censored or rounded, no packet loss.
    static func hall(_ field: FieldImpairments) -> Scenario {
        let radio = RadioModel(p0: -59, exponent: 2, sigma: 4, sensitivity: -300, quantize: false, packetLoss: 0, field: field)
        return Scenario(name: "hall", bounds: Rect(minX: 0, minY: 0, maxX: 40, maxY: 40), radio: radio,
                        beacons: [Beacon(id: "W", position: Point(2, 20)), Beacon(id: "E", position: Point(38, 20)),
                                  Beacon(id: "S", position: Point(20, 2)), Beacon(id: "N", position: Point(20, 38))],
                        walks: [Walk(name: "east", waypoints: [Point(10, 20), Point(30, 20)], speed: 1)])
    }

    /// Field − ideal for every reading of the walk (same beacon, same time).
    static func differences(_ field: FieldImpairments, seed: UInt64) throws -> [(beacon: Int, diff: Double)] {
        let s = hall(field)
        let ideal = try Simulator(scenario: s, condition: .ideal).simulate(walk: s.walks[0], seed: seed)
        let real = try Simulator(scenario: s, condition: .field).simulate(walk: s.walks[0], seed: seed)
        return zip(ideal, real).flatMap { a, b in zip(a.readings, b.readings).map { ($0.beacon, $1.rssi - $0.rssi) } }
    }

    /// The model error the field gives estimators, √(σ_b² + L²·p·(1 − p)) with p = half-angle / 180°, is the
    /// spread of what the beacon spread and the body add to a window's readings, field minus ideal, when the
    /// bearings are uniform (static points draw a uniform heading each): 2 dB and 6 dB over ±60° give √12 dB.
    @Test func theFieldsModelErrorIsTheSpreadTheSpreadAndTheBodyAdd() throws {
        let f = FieldImpairments(beaconP0Sigma: 2, bodyLoss: 6, bodyHalfAngle: 60)
        #expect(abs(f.modelError - 12.0.squareRoot()) < 1e-12)
        #expect(FieldImpairments(beaconP0Sigma: 2).modelError == 2)
        #expect(FieldImpairments(bodyLoss: 6, bodyHalfAngle: 180).modelError == 0, "a body behind every beacon is a common offset")
        #expect(FieldImpairments(deviceOffset: 5, deviceOffsetSigma: 8, outlierRate: 0.1, outlierScale: 10).modelError == 0)
        let s = Self.hall(f)
        let points = (0..<8).map { Point(8 + 3 * Double($0), 12 + Double($0 % 3) * 6) }
        var diffs: [Double] = []
        for seed in 1...400 as ClosedRange<UInt64> {
            let ideal = try Simulator(scenario: s, condition: .ideal).simulate(points: points, seed: seed)
            let field = try Simulator(scenario: s, condition: .field).simulate(points: points, seed: seed)
            for (a, b) in zip(ideal, field) {
                // One value per (point, beacon): a window's readings share the spread and the body.
                var seen = Set<Int>()
                for (x, y) in zip(a.readings, b.readings) where seen.insert(x.beacon).inserted { diffs.append(y.rssi - x.rssi) }
            }
        }
        let (_, sd) = stats(diffs)
        // 1,600 beacon draws carry σ_b²'s sampling error, ±0.14 dB² for one standard error; 5 of them, in dB.
        #expect(abs(sd * sd - 12) < 0.8, "variance \(sd * sd) dB²")
        // And the venue the estimators get in the field carries it; the ideal one only what the scenario sets.
        var configured = s
        configured.radio.modelError = 2
        #expect(Venue(s, condition: .ideal).radio.modelError == 0)
        #expect(abs(Venue(s, condition: .field).radio.modelError - 12.0.squareRoot()) < 1e-12)
        #expect(abs(Venue(configured, condition: .field).radio.modelError - 4) < 1e-12, "√(2² + 12)")
        #expect(Venue(configured, condition: .ideal).radio.modelError == 2)
        // The body's size, never the heading, is what the field's venue knows besides.
        #expect(Venue(s, condition: .field).body == BodyShadowing(loss: 6, halfAngle: 60) && Venue(s, condition: .ideal).body.isNone)
    }

    @Test func theIdealConditionIgnoresTheImpairments() throws {
        let s = Self.hall(.realistic)
        let a = try Simulator(scenario: s, condition: .ideal).simulate(walk: s.walks[0], seed: 3)
        let b = try Simulator(scenario: Self.hall(.none), condition: .field).simulate(walk: s.walks[0], seed: 3)
        #expect(a == b, "the ideal condition, and the field without impairments, are the ideal model")
    }

    @Test func aFixedDeviceOffsetShiftsEveryReading() throws {
        let d = try Self.differences(FieldImpairments(deviceOffset: -7), seed: 1)
        #expect(!d.isEmpty && d.allSatisfy { abs($0.diff + 7) < 1e-9 })
    }

    @Test func theDeviceOffsetIsOneDrawPerPhoneWithTheStatedSpread() throws {
        let f = FieldImpairments(deviceOffset: 2, deviceOffsetSigma: 8)
        var offsets: [Double] = []
        for seed in 1...400 as ClosedRange<UInt64> {
            let d = try Self.differences(f, seed: seed)
            #expect(d.allSatisfy { abs($0.diff - d[0].diff) < 1e-9 }, "one offset for the whole walk")
            offsets.append(d[0].diff)
        }
        let (mean, sd) = stats(offsets)
        let n = Double(offsets.count)
        #expect(abs(mean - 2) < 5 * 8 / n.squareRoot(), "mean \(mean)")
        #expect(abs(sd - 8) < 5 * 8 / (2 * (n - 1)).squareRoot(), "sd \(sd)")
    }

    @Test func beaconSpreadIsOneDrawPerBeaconAndSeed() throws {
        let f = FieldImpairments(beaconP0Sigma: 3)
        var shifts: [Double] = []
        for seed in 1...200 as ClosedRange<UInt64> {
            let d = try Self.differences(f, seed: seed)
            for b in 0..<4 {
                let mine = d.filter { $0.beacon == b }.map(\.diff)
                #expect(mine.allSatisfy { abs($0 - mine[0]) < 1e-9 })
                shifts.append(mine[0])
            }
        }
        let (mean, sd) = stats(shifts)
        let n = Double(shifts.count)
        #expect(abs(mean) < 5 * 3 / n.squareRoot() && abs(sd - 3) < 5 * 3 / (2 * (n - 1)).squareRoot(), "mean \(mean), sd \(sd)")
    }

    @Test func outliersComeAtTheirRateWithTheirScale() throws {
        let f = FieldImpairments(outlierRate: 0.1, outlierScale: 12)
        var all: [Double] = []
        for seed in 1...60 as ClosedRange<UInt64> { all += try Self.differences(f, seed: seed).map(\.diff) }
        let outliers = all.filter { $0 != 0 }
        let n = Double(all.count), rate = Double(outliers.count) / n
        #expect(abs(rate - 0.1) < 5 * (0.1 * 0.9 / n).squareRoot(), "rate \(rate) over \(all.count) readings")
        let rms = (outliers.reduce(0) { $0 + $1 * $1 } / Double(outliers.count)).squareRoot()
        #expect(abs(rms - 12) < 5 * 12 / (2 * Double(outliers.count)).squareRoot(), "outlier scale \(rms)")
    }

    @Test func theBodyShadowsTheBeaconBehindTheWalker() throws {
        // Walking east: the west beacon (bearing ≈ 270°) is behind; the east one is ahead; north and south are
        // at 90° from behind, outside a ±60° sector.
        let d = try Self.differences(FieldImpairments(bodyLoss: 6, bodyHalfAngle: 60), seed: 5)
        for (b, want) in [(0, -6.0), (1, 0), (2, 0), (3, 0)] {
            let mine = d.filter { $0.beacon == b }.map(\.diff)
            #expect(!mine.isEmpty && mine.allSatisfy { abs($0 - want) < 1e-9 }, "beacon \(b): \(Set(mine))")
        }
    }

    @Test func theSurveyIsTheSameVenueWithTheCalibrationPhone() throws {
        let f = FieldImpairments(deviceOffset: -15, beaconP0Sigma: 3)
        let s = Self.hall(f)
        let sim = try Simulator(scenario: s, condition: .field)
        let points = [Point(20, 20)]
        let ideal = try Simulator(scenario: s, condition: .ideal)
        // No device offset; the same beacon shifts as the seed's phones hear.
        let survey = sim.survey(points: points, seed: 9)
        let shifts = sim.beaconShifts(seed: 9)
        let mean = survey[0].readings.map(\.rssi).reduce(0, +) / Double(survey[0].readings.count)
        let model = (0..<4).map { ideal.pathLoss.meanRSSI(beacon: $0, at: points[0]) + shifts[$0] }.reduce(0, +) / 4
        #expect(abs(mean - model) < 5 * 4 / Double(survey[0].readings.count).squareRoot(), "survey mean \(mean), model \(model)")
    }
}
