import Testing
import LabCore

/// The position bound with the phone's offset unknown (``OffsetFisherInformation/positionWithUnknownOffset``) is
/// unbounded, never negative or NaN, where the beacons heard leave the position and the offset confounded.
@Suite struct OffsetBoundTests {
    static func information(_ beacons: [(Double, Double)], at p: (Double, Double) = (4, 3)) -> OffsetFisherInformation {
        var g = OffsetFisherInformation()
        for (x, y) in beacons { g.addRSSI(dx: p.0 - x, dy: p.1 - y, dz: 0, readings: 10, exponent: 2, perReading: 1 / 16) }
        return g
    }

    @Test func twoBeaconsAtOneSpotGiveNoBound() {
        // Three beacons, two of them at one spot: two places cannot tell (x, y, δ) apart.
        let bound = Self.information([(2, 2), (2, 2), (8, 2)]).positionWithUnknownOffset.traceOfInverse
        #expect(bound == .infinity, "found \(bound) m²")
        for spot in stride(from: 0.5, through: 9.5, by: 1.0) {
            let b = Self.information([(2, 2), (2, 2), (8, 2)], at: (spot, 7)).positionWithUnknownOffset.traceOfInverse
            #expect(b == .infinity, "at (\(spot), 7): \(b) m²")
        }
    }

    @Test func threeBeaconsInATriangleGiveAFiniteBoundAboveTheKnownOffsetOne() {
        let g = Self.information([(1, 1), (7, 1), (4, 6)])
        let unknown = g.positionWithUnknownOffset.traceOfInverse, known = g.position.traceOfInverse
        #expect(unknown.isFinite && unknown > 0)
        #expect(unknown >= known, "the unknown offset never makes the bound smaller: \(unknown) against \(known) m²")
    }
}
