import Foundation
import LabCore

let square = [Point(0, 0), Point(20, 0), Point(20, 15), Point(0, 15), Point(10, 7)]
let friezePositions = [Point(10, 30), Point(40, 10), Point(-15, 5)]

let scenariosDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Scenarios").path

/// A venue from beacon positions (and optional friezes) with a wide box, so bounds never clamp a fix.
func makeVenue(_ beacons: [Point], friezes: [Point] = [], heights: [Double]? = nil, box: Rect? = nil,
               radio: RadioModel = RadioModel(p0: -59, exponent: 2.0, sigma: 4)) -> Venue {
    let landmarks = friezes.enumerated().map { Landmark(name: "F\($0)", kind: .frieze, position: $1) }
    return Venue(name: "test", bounds: box ?? Rect(minX: -1000, minY: -1000, maxX: 1000, maxY: 1000), radio: radio,
                 beaconIDs: beacons.indices.map { "B\($0)" }, beaconPositions: beacons,
                 beaconP0: beacons.map { _ in radio.p0 }, beaconHeightOffset: heights ?? beacons.map { _ in 0 },
                 landmarks: landmarks)
}

/// What a phone at `p` would hear with no noise at all.
func exactObservation(_ venue: Venue, at p: Point, headingsTo friezes: [Int] = [], identified: Bool = true) -> Observation {
    let beacons = venue.beaconPositions.indices.map { i -> BeaconObservation in
        let c = venue.beaconPositions[i], dz = venue.beaconHeightOffset[i]
        let d = ((p.x - c.x) * (p.x - c.x) + (p.y - c.y) * (p.y - c.y) + dz * dz).squareRoot()
        return BeaconObservation(beacon: i, rssi: venue.radio.meanRSSI(distance: d, p0: venue.beaconP0[i]))
    }
    let headings = friezes.map { f in
        HeadingReading(t: 0, heading: Bearing.degrees(from: p, to: venue.landmarks[f].position), accuracy: 5,
                       frieze: identified ? f : nil, target: f)
    }
    return Observation(beacons: beacons, headings: headings)
}

/// A small deterministic generator for test inputs (SplitMix64).
struct TestRandom {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
    mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * next() }
    mutating func gaussian() -> Double {
        let u = max(next(), 1e-300), v = next()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
