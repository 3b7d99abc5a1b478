import Foundation
import Testing
import IndoorLocator

/// The library's radio map (``RadioMap``): the stream expects what it says, it loads from a lab fit file, and a bad one
/// is refused with its place.
@Suite struct RadioMapAPITests {
    /// Beacon 0 reads 6 dB stronger and beacon 2 6 dB weaker than the law, everywhere: a phone standing at (6, 4) for
    /// 20 windows is placed less than half as far from the truth by a stream that knows the map as by one that does not
    /// (measured: 0.88 m against 2.27 m, seed 1).
    @Test func theStreamExpectsWhatTheMapSays() throws {
        let nodes = 21 * 16
        let map = try RadioMap(origin: Position(x: 0, y: 0), cellSize: 1, columns: 21, rows: 16, fields: [
            placements[0].identity: .init(mean: Array(repeating: 6, count: nodes), sigma: Array(repeating: 0.5, count: nodes)),
            placements[2].identity: .init(mean: Array(repeating: -6, count: nodes), sigma: Array(repeating: 0.5, count: nodes)),
        ])
        let spot = Position(x: 6, y: 4)
        func error(_ radioMap: RadioMap?) throws -> Double {
            let locator = try IndoorLocator(beacons: placements, pathLoss: model, area: (width: 20, depth: 15), radioMap: radioMap, seed: 1)
            for k in 0..<20 {
                for s in exactScan(at: spot, time: 100 + Double(k) + 0.2) {
                    let shift = s.beacon == placements[0].identity ? 6.0 : s.beacon == placements[2].identity ? -6.0 : 0
                    locator.add(RSSISample(beacon: s.beacon, rssi: s.rssi + shift, timestamp: s.timestamp))
                }
            }
            return try #require(locator.currentLocation(at: Date(timeIntervalSinceReferenceDate: 119.5)).location).position.distance(to: spot)
        }
        let with = try error(map), without = try error(nil)
        #expect(with < 0.5 * without && without > 1.5, "with the map \(with) m, without \(without) m")
    }

    @Test func aMapLoadsFromALabFitFileAndABadOneIsNamed() throws {
        let good = #"{"p0": -59, "radioMap": {"originX": 0, "originY": 0, "cellSize": 2, "nx": 2, "ny": 1, "spots": 3, "beacons": {"hall-a": {"lengthScale": 2, "signalSigma": 3, "noiseSigma": 4, "mean": [1.5, -2], "sigma": [0.5, 1]}}}}"#
        let map = try RadioMap(calibrationFit: Data(good.utf8))
        #expect(map.columns == 2 && map.rows == 1 && map.cellSize == 2)
        #expect(map.fields[BeaconIdentity(name: "hall-a")] == .init(mean: [1.5, -2], sigma: [0.5, 1]))
        #expect(try refusal { try RadioMap(calibrationFit: Data(#"{"p0": -59}"#.utf8)) }.contains("has no radio map"))
        let short = good.replacingOccurrences(of: "[0.5, 1]", with: "[0.5]")
        #expect(try refusal { try RadioMap(calibrationFit: Data(short.utf8)) } == "radioMap: hall-a.sigma: expected 2 values (columns × rows), found 1")
        let negative = good.replacingOccurrences(of: "[0.5, 1]", with: "[0.5, -1]")
        #expect(try refusal { try RadioMap(calibrationFit: Data(negative.utf8)) } == "radioMap: hall-a.sigma[1]: expected a σ in 0–100 dB, found -1.0")
        // A map of a beacon the locator does not have.
        #expect(try refusal { try IndoorLocator(beacons: placements, pathLoss: model, radioMap: map) } == "radioMap: beacon hall-a is not among the beacons")
    }
}
