import Foundation
import Testing
import LabCore
import LabEstimators
import LabEvaluation
import LabScenarioIO

/// The issue's target: with a 15 dB offset nobody told it, the shipped estimator has learned the offset
/// within 2 dB after 30 scans, on every seed, walking the bundled venues; and a phone 15 dB *weaker* where it
/// still hears enough beacons. (Known limits, in README: a −15 dB phone in esoc-office learns −12.5 to −14.8 dB
/// — its far beacons fall under the sensitivity behind walls — and in killian-court's open court it does not
/// converge.)
@Suite struct OffsetLearningTests {
    @Test(arguments: [("museum-gallery", 15.0), ("esoc-office", 15), ("open-hall", 15), ("smart-home", 15),
                      ("museum-gallery", -15), ("open-hall", -15), ("smart-home", -15)])
    func learnsAnUnknownOffsetWithinTwoDecibelsInThirtyScans(name: String, offset: Double) throws {
        let s = try ScenarioLoader.load(path: scenariosDir + "/\(name).yaml")
        let curve = try OffsetLearningCurve.measure(scenario: s, offset: offset, seeds: Array(1...10), scans: 30)
        #expect(curve.runs.count == 10 && curve.runs.allSatisfy { $0.learned.count == 30 })
        #expect(curve.worstError(afterScans: 30) <= 2, "\(name): learned \(curve.runs.map { $0.learned[29] })")
        // The σ it states shrinks as it learns (first fix: the offset-free fit's own σ).
        for r in curve.runs {
            guard let first = r.sigma.first(where: { $0.isFinite }) else { Issue.record("seed \(r.seed): no fix at all"); continue }
            #expect(r.sigma[29] < first, "seed \(r.seed)")
        }
    }

    @Test func theSameSeedsGiveTheSameCurve() throws {
        let s = try ScenarioLoader.load(path: scenariosDir + "/museum-gallery.yaml")
        let a = try OffsetLearningCurve.measure(scenario: s, offset: 15, allImpairments: true, seeds: [3, 4], scans: 20)
        let b = try OffsetLearningCurve.measure(scenario: s, offset: 15, allImpairments: true, seeds: [3, 4], scans: 20)
        #expect(a.runs.map(\.learned) == b.runs.map(\.learned))
    }

    @Test func aNewPhoneStartsAfresh() throws {
        let s = try ScenarioLoader.load(path: scenariosDir + "/open-hall.yaml")
        let curve = try OffsetLearningCurve.measure(scenario: s, offset: 15, seeds: [1], scans: 30)
        let venue = Venue(s)
        let est = OffsetLearningEstimator(venue: venue)
        est.startDevice(knownOffset: 15, sigma: 0.5)
        #expect(est.learnedOffset?.mean == 15 && est.learnedOffset?.sigma == 0.5)
        est.startDevice()
        #expect(est.learnedOffset == nil)
        #expect(curve.runs[0].learned[0].isFinite)
        #expect(throws: InputError.self) { try OffsetLearningCurve.measure(scenario: s, walk: "nowhere", offset: 15, seeds: [1], scans: 5) }
    }
}
