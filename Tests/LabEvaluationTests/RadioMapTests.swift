import Foundation
import LabCore
import Testing
import LabStore
import LabEvaluation
import LabEstimators

/// The radio map (`calibrate --radio-map`): a Gaussian process per beacon recovers a residual field from a survey,
/// knows where it was not surveyed, survives its file, and helps the particle filter on real data.
@Suite struct RadioMapTests {
    /// A 40 m × 10 m hall, two beacons; beacon 0 reads 3 dB stronger than the law west of x = 10 and 3 dB weaker east
    /// of it (a smooth step), beacon 1 follows the law. Surveyed on a 1 m grid over x ≤ 14 only, 4 windows a spot,
    /// readings ± 2 dB (a fixed pseudo-random sequence).
    static let venue = Venue(name: "hall", bounds: Rect(minX: 0, minY: 0, maxX: 40, maxY: 10), radio: RadioModel(p0: -59, exponent: 2, sigma: 2),
                             beaconIDs: ["B0", "B1"], beaconPositions: [Point(5, 5), Point(15, 5)], beaconP0: [-59, -59],
                             beaconHeightOffset: [0, 0])
    static func bump(_ p: Point) -> Double { 6 / (1 + exp((p.x - 10) / 1.5)) - 3 }
    static let survey: [Epoch] = {
        var state: UInt64 = 12345
        func noise() -> Double {   // uniform in ±2√3·… : variance 4 dB², mean 0
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return (Double(state >> 11) / Double(1 << 53) - 0.5) * 2 * 3.464
        }
        var epochs: [Epoch] = []
        for x in 0...14 {
            for y in 0...10 {
                let p = Point(Double(x), Double(y))
                for _ in 0..<4 {
                    let t = Double(epochs.count)
                    let readings = [0, 1].map { b -> RSSIReading in
                        let d = max(p.distance(to: venue.beaconPositions[b]), 0.1)
                        let law = venue.radio.meanRSSI(distance: d, p0: -59)
                        return RSSIReading(beacon: b, t: t, rssi: law + (b == 0 ? bump(p) : 0) + noise())
                    }
                    epochs.append(Epoch(walk: nil, index: epochs.count, t: t, truth: p, room: nil, readings: readings))
                }
            }
        }
        return epochs
    }()

    @Test func theMapRecoversAResidualFieldAndKnowsWhereItWasNotSurveyed() throws {
        let fit = try RadioMapFit(epochs: Self.survey, venue: Self.venue)
        #expect(fit.spots == 15 * 11 && fit.beaconsMapped == 2)
        let map = fit.map
        for p in [Point(3, 2), Point(6, 8), Point(12, 5), Point(9.5, 3.5)] {
            #expect(abs(map.residual(beacon: 0, at: p) - Self.bump(p)) < 0.8, "beacon 0 at \(p): \(map.residual(beacon: 0, at: p)) against \(Self.bump(p))")
            #expect(abs(map.residual(beacon: 1, at: p)) < 0.8, "beacon 1 at \(p): \(map.residual(beacon: 1, at: p))")
            #expect(map.variance(beacon: 0, at: p) < 0.5, "surveyed: \(map.variance(beacon: 0, at: p)) dB²")
        }
        // Far east of the survey the map goes back to the law, and says it does not know: its variance is σ_f².
        let east = Point(40, 5), h = try #require(fit.beacons[0])
        #expect(abs(map.residual(beacon: 0, at: east)) < 1)
        #expect(abs(map.variance(beacon: 0, at: east) - h.signalSigma * h.signalSigma) < 0.2 * h.signalSigma * h.signalSigma)
        #expect(h.lengthScale > 1 && h.lengthScale < 10 && h.signalSigma > 1.5, "\(h)")
        #expect(h.noiseSigma > 1.5 && h.noiseSigma < 3, "the windows' noise is 2 dB: \(h.noiseSigma)")
    }

    @Test func aBeaconHeardAtTooFewSpotsGetsNoMapAndNoSurveyIsAnError() throws {
        // Beacon 1 heard only at two spots.
        let few = Self.survey.map { e -> Epoch in
            var e = e
            if !(e.truth == Point(0, 0) || e.truth == Point(1, 0)) { e.readings.removeAll { $0.beacon == 1 } }
            return e
        }
        let fit = try RadioMapFit(epochs: few, venue: Self.venue)
        #expect(fit.map.maps(beacon: 0) && !fit.map.maps(beacon: 1) && fit.map.residual(beacon: 1, at: Point(0, 0)) == 0)
        // The survey table keeps every spot: its windows, and per beacon heard there the mean residual and the windows.
        #expect(fit.survey.count == 15 * 11 && fit.survey.allSatisfy { $0.windows == 4 && $0.beacons[0]?.windows == 4 })
        #expect(fit.survey.filter { $0.beacons[1] != nil }.map(\.position) == [Point(0, 0), Point(1, 0)])
        let corner = try #require(fit.survey.first { $0.position == Point(0, 0) })
        #expect(abs(try #require(corner.beacons[0]).residual - Self.bump(Point(0, 0))) < 2, "\(corner)")
        let file = RadioMapFile(fit, beaconIDs: Self.venue.beaconIDs)
        #expect(file.survey?.count == 165 && file.survey?.first { $0.x == 0 && $0.y == 0 }?.beacons["B1"]?.share == 1)
        #expect(throws: CalibrationError("no beacon was heard at 3 or more surveyed spots: too little survey for a radio map")) {
            try RadioMapFit(epochs: Array(Self.survey.prefix(8)), venue: Self.venue)
        }
    }

    /// The fit file carries the map (each value to 0.01 dB), and a file whose map is broken names the field.
    @Test func theMapSurvivesItsFileAndABrokenOneIsNamed() throws {
        let fit = try RadioMapFit(epochs: Self.survey, venue: Self.venue)
        var radio = RadioFit(p0: -59, exponent: 2, sigma: 2, fittedOn: "hall")
        radio.radioMap = RadioMapFile(fit, beaconIDs: Self.venue.beaconIDs)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("radio-map-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try radio.write(to: dir + "/fit.json")
        let back = try RadioFit.read(path: dir + "/fit.json")
        #expect(back == radio)
        let map = try #require(back.radioMap).map(beaconIDs: ["B1", "B9", "B0"])   // another venue's order, one unknown beacon
        #expect(!map.maps(beacon: 1))
        #expect(abs(map.residual(beacon: 2, at: Point(3, 2)) - fit.map.residual(beacon: 0, at: Point(3, 2))) < 0.01)
        // A σ below zero, and a grid whose values do not fill it.
        var text = try String(contentsOfFile: dir + "/fit.json", encoding: .utf8)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var map0 = try #require(object["radioMap"] as? [String: Any])
        var beacons = try #require(map0["beacons"] as? [String: Any])
        var b0 = try #require(beacons["B0"] as? [String: Any])
        var sigma = try #require(b0["sigma"] as? [Double])
        sigma[7] = -1
        b0["sigma"] = sigma; beacons["B0"] = b0; map0["beacons"] = beacons; object["radioMap"] = map0
        text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        try text.write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        #expect { try RadioFit.read(path: dir + "/bad.json") } throws: { "\($0)".contains("radioMap.beacons.B0.sigma[7]") && "\($0)".contains("found -1") }
        sigma.removeLast(); sigma[7] = 1
        b0["sigma"] = sigma; beacons["B0"] = b0; map0["beacons"] = beacons; object["radioMap"] = map0
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: dir + "/short.json"))
        #expect { try RadioFit.read(path: dir + "/short.json") } throws: { "\($0)".contains("radioMap.beacons.B0.sigma") && "\($0)".contains("expected 451 values") }
    }

    /// The one-scan fix reads the map too: beacon 0 reads 6 dB stronger and beacon 2 6 dB weaker than the law everywhere;
    /// an exact scan of those readings is placed where it was made with the map, and metres off without it.
    @Test func theOneScanFixExpectsWhatTheMapSays() throws {
        let corners = [Point(0, 0), Point(20, 0), Point(20, 10), Point(0, 10)]
        var venue = Venue(name: "box", bounds: Rect(minX: 0, minY: 0, maxX: 20, maxY: 10), radio: RadioModel(p0: -59, exponent: 2, sigma: 2),
                          beaconIDs: ["B0", "B1", "B2", "B3"], beaconPositions: corners, beaconP0: [-59, -59, -59, -59], beaconHeightOffset: [0, 0, 0, 0])
        let shift = [6.0, 0, -6, 0], nodes = 21 * 11
        let p = Point(7, 4)
        let scan = Observation(beacons: corners.indices.map { b in
            BeaconObservation(beacon: b, rssi: venue.radio.meanRSSI(distance: p.distance(to: corners[b]), p0: -59) + shift[b], count: 8)
        }.sorted { $0.rssi > $1.rssi })
        let without = try #require(EstimatorKind.offsetLearning.make(venue: venue).locate(scan).fix)
        venue.radioMap = RadioMap(origin: Point(0, 0), cellSize: 1, nx: 21, ny: 11,
                                  mean: shift.map { s in s == 0 ? [] : [Float](repeating: Float(s), count: nodes) },
                                  variance: shift.map { s in s == 0 ? [] : [Float](repeating: 0.01, count: nodes) })
        let with = try #require(EstimatorKind.offsetLearning.make(venue: venue).locate(scan).fix)
        #expect(with.position.distance(to: p) < 0.05 && without.position.distance(to: p) > 1,
                "with the map \(with.position), without \(without.position)")
    }
}
