import Foundation
import LabCore
import LabSimulation
import Testing
@testable import LabStore
import LabScenarioIO
import LabEvaluation

@Suite struct CalibrationTests {
    @Test func noiseFreeSamplesGiveTheLawBack() throws {
        let d: [Double] = [0.5, 1, 2, 3, 5, 8, 13, 21]
        let x = d.map { 10 * log10($0) }
        let y = x.map { -61.5 - 2.7 * $0 }
        let f = try PathLossFit.fit(x: x, y: y)
        #expect(abs(f.p0 + 61.5) < 1e-9)
        #expect(abs(f.exponent - 2.7) < 1e-9)
        #expect(f.sigma < 1e-9 && f.p0Error < 1e-9 && f.exponentError < 1e-9)
        #expect(abs(f.minDistance - 0.5) < 1e-12 && abs(f.maxDistance - 21) < 1e-9)
    }

    @Test func degenerateInputIsACalibrationErrorNotACrash() {
        #expect(throws: CalibrationError.self) { try PathLossFit.fit(x: [1, 2], y: [-60, -61]) }
        #expect(throws: CalibrationError.self) { try PathLossFit.fit(x: [3, 3, 3, 3], y: [-60, -61, -62, -59]) }
    }

    /// Open hall: no walls, one radio model (P0 −59 dBm, n 2, σ 4 dB). The fit finds it within a few
    /// standard errors, up to the small bias of the −100 dBm sensitivity cut and whole-dBm rounding.
    @Test func aSimulatedRecordingCalibratesToItsScenario() throws {
        let s = try scenario("open-hall")
        let r = SimulatedRecording.make(scenario: s, walk: s.walks[0], seed: 11)
        let c = try Calibration(r, perBeacon: true)
        #expect(!c.threeDimensional)
        #expect(c.global.samples == r.rssi.count)
        #expect(abs(c.global.p0 - s.radio.p0) < max(4 * c.global.p0Error, 0.5), "P0 \(c.global.p0) ± \(c.global.p0Error)")
        #expect(abs(c.global.exponent - s.radio.exponent) < max(4 * c.global.exponentError, 0.05), "n \(c.global.exponent) ± \(c.global.exponentError)")
        #expect(abs(c.global.sigma - s.radio.sigma) < 0.3, "σ \(c.global.sigma)")
        #expect(c.beacons.count == s.beacons.count)
        for b in c.beacons {
            #expect(abs(b.p0AtGlobalExponent - s.radio.p0) < 5 * b.p0AtGlobalExponentError + 0.3, "\(b.id): \(b.p0AtGlobalExponent)")
        }
    }

    @Test func perBeaconP0AndThreeDimensionalDistances() throws {
        // Beacon B is 2 m above a phone at 1 m and 3 dB stronger; noise-free readings along a line.
        var radio = RadioModel(p0: -60, exponent: 2.2, sigma: 0, scanWindow: 1)
        radio.receiverHeight = 1
        let venue = RecordedVenue(name: "v", bounds: Rect(minX: 0, minY: 0, maxX: 30, maxY: 10), radio: radio,
                                  beacons: [RecordedBeacon(id: "A", position: Point(0, 5)),
                                            RecordedBeacon(id: "B", position: Point(30, 5), height: 3, p0: -57)])
        var rssi: [RSSIReading] = [], truth: [TruthSample] = []
        for k in 0..<25 {
            let t = Double(k) + 0.5
            let p = Point(1 + Double(k), 5)
            truth.append(TruthSample(t: t, position: p, z: 1, source: .survey))
            let dA = p.distance(to: Point(0, 5))
            let dB = (pow(p.distance(to: Point(30, 5)), 2) + 4).squareRoot()
            rssi.append(RSSIReading(beacon: 0, t: t - 0.2, rssi: -60 - 22 * log10(dA)))
            rssi.append(RSSIReading(beacon: 1, t: t + 0.2, rssi: -57 - 22 * log10(dB)))
        }
        let r = Recording(info: RecordingInfo(name: "x", source: .labCSV, venue: "v"), venue: venue, rssi: rssi, truth: truth)
        let c = try Calibration(r, perBeacon: true)
        #expect(c.threeDimensional)
        let a = try #require(c.beacons.first { $0.id == "A" }?.fit)
        let b = try #require(c.beacons.first { $0.id == "B" }?.fit)
        #expect(abs(a.p0 + 60) < 1e-9 && abs(a.exponent - 2.2) < 1e-9)
        #expect(abs(b.p0 + 57) < 1e-9 && abs(b.exponent - 2.2) < 1e-9)
        // The global fit sees two parallel lines 3 dB apart: it cannot fit both, and says so in σ.
        #expect(c.global.sigma > 1)
    }
}
