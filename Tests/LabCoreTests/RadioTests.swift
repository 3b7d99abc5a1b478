import Foundation
import Testing
import LabCore

@Suite struct FieldImpairmentTests {
    /// The body's sector as a tracker that knows the heading to ±σ sees it: the beacons behind the walker, its edge
    /// blurred over ±2σ (linear in the cosine of the angle from the walker's back); the shares average to the
    /// unknown-heading p over uniform bearings (within the blur's slight asymmetry in the cosine), and a shadowed
    /// beacon reads L·(1 − p) weaker than the unknown-heading model says, an unshadowed one L·p stronger.
    @Test func aKnownHeadingTellsWhichBeaconsTheBodyShadows() {
        let body = FieldImpairments.realistic.body
        #expect(body == BodyShadowing(loss: 6, halfAngle: 60) && abs(body.share - 1.0 / 3) < 1e-12)
        #expect(abs(body.unknownHeadingVariance - 8) < 1e-12 && BodyShadowing.none.unknownHeadingVariance == 0)
        let sharp = body.sector(headingSigma: 0), blurred = body.sector(headingSigma: 8)
        func cosine(_ degrees: Double) -> Double { cos(degrees * .pi / 180) }
        #expect(sharp.probability(cosineFromBack: cosine(0)) == 1 && sharp.probability(cosineFromBack: cosine(90)) == 0)
        #expect(blurred.probability(cosineFromBack: cosine(40)) == 1 && blurred.probability(cosineFromBack: cosine(80)) == 0)
        let edge = blurred.probability(cosineFromBack: cosine(60))
        #expect(edge > 0.3 && edge < 0.7, "\(edge)")
        for sector in [sharp, blurred] {
            let mean = (0..<3600).map { sector.probability(cosineFromBack: cosine(Double($0) / 10)) }.reduce(0, +) / 3600
            #expect(abs(mean - body.share) < 0.02, "\(mean)")
        }
        // The sharp sector is the simulator's: away from its ±2° edge, a beacon is shadowed exactly when `blocks` says.
        for angle in stride(from: 0.0, to: 360, by: 1) where abs(abs(Bearing.difference(angle, 180)) - 60) > 2 {
            // The walker heads north (0°); the beacon's bearing from the phone is `angle`, so its angle from the back is
            // its difference from 180°.
            let c = cosine(Bearing.difference(angle, 180))
            #expect((sharp.probability(cosineFromBack: c) == 1) == body.blocks(heading: 0, bearing: angle), "\(angle)°")
        }
        #expect(abs(body.extraLoss(probability: 1) - 4) < 1e-12 && abs(body.extraLoss(probability: 0) + 2) < 1e-12)
        #expect(abs(body.extraLoss(probability: body.share)) < 1e-12)
    }
}

@Suite struct RadioModelTests {
    @Test func advertisementsPerWindowCountsWholeIntervals() throws {
        #expect(RadioModel(advertisingInterval: 0.1, scanWindow: 0.3).advertisementsPerWindow == 3)
        #expect(RadioModel(advertisingInterval: 0.1, scanWindow: 1.0).advertisementsPerWindow == 10)
        #expect(RadioModel(advertisingInterval: 2, scanWindow: 1.0).advertisementsPerWindow == 1)
    }
}
