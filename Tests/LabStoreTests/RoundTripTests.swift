import Foundation
import LabCore
import LabEstimators
import LabEvaluation
import LabSimulation
import Testing
@testable import LabStore
import LabScenarioIO
import LabResults

/// record → replay gives exactly what `compare` computes for the same scenario, walk and seed.
@Suite struct RoundTripTests {
    static let walks: [(String, String)] = [("open-hall", "loop"), ("museum-gallery", "visitor"), ("killian-court", "tour")]

    @Test(arguments: walks)
    func replayOfARecordedWalkReproducesTheTournamentExactly(_ name: String, _ walkName: String) throws {
        let s = try scenario(name)
        let walk = try #require(s.walk(named: walkName))
        let seed: UInt64 = 3
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/r.sqlite"
        try RecordingStore.write(simulatedRecording(scenario: s, walk: walk, seed: seed, scenarioYAML: try scenarioText(name)), to: path)
        let recording = try RecordingStore.read(path: path)

        // The epochs come back as the simulator made them (the QR checkpoint marker is not stored).
        let simulated = try Simulator(scenario: s).simulate(walk: walk, seed: seed)
        let rebuilt = EpochBuilder(venue: recording.venue.venue).epochs(recording)
        #expect(rebuilt.windowsWithoutTruth == 0)
        #expect(rebuilt.epochs.count == simulated.count)
        for (a, b) in zip(simulated, rebuilt.epochs) {
            var a = a
            a.checkpoint = nil
            #expect(a == b, "epoch \(a.index)")
        }

        // The scores are identical, field for field.
        let venue = Venue(s)
        let reference = Tournament.evaluate(epochs: simulated, venue: venue, estimators: EstimatorKind.allCases, scenario: s.name, seed: seed)
        let replayed = RecordingReplay.run(recording, estimators: EstimatorKind.allCases)
        #expect(replayed.epochs == simulated.count)
        for kind in EstimatorKind.allCases {
            let want = ScenarioScore(scenario: recording.info.name, estimator: kind, results: reference.filter { $0.estimator == kind })
            let got = try #require(replayed.scores.first { $0.estimator == kind })
            #expect(got.stats == want.stats || (got.stats.fixes == 0 && want.stats.fixes == 0), "\(kind)")
            #expect(got.roomHitRate == want.roomHitRate)
            #expect(got.exhibitHitRate == want.exhibitHitRate)
            #expect(got.friezeHitRate == want.friezeHitRate)
        }
    }

    @Test func everyStoredFieldReadsBack() throws {
        var s = try scenario("killian-court")
        s.pdr = PDRModel()
        let r = try simulatedRecording(scenario: s, walk: s.walks[0], seed: 9, scenarioYAML: "name: x", notes: "a note",
                                        created: Date(timeIntervalSince1970: 1_700_000_000))
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var withBaselines = r
        withBaselines.baselines = [Baseline(estimator: .fusion, metric: .p75, value: 1.25, tolerance: 0.125)]
        let summary = try RecordingStore.write(withBaselines, to: dir + "/k.sqlite")
        #expect(summary.rssiSamples == r.rssi.count && summary.headingSamples == r.headings.count && summary.truthSamples == r.truth.count)
        #expect(summary.stepSamples == r.steps?.count && summary.stepSamples > 0)
        let back = try RecordingStore.read(path: dir + "/k.sqlite")
        #expect(back.info == r.info)
        #expect(back.venue == r.venue)
        #expect(back.rssi == r.rssi)
        #expect(back.headings == r.headings)
        #expect(back.steps == r.steps)
        #expect(back.truth == r.truth)
        #expect(back.baselines == withBaselines.baselines)
        #expect(!r.headings.isEmpty && r.headings.contains { $0.frieze == nil })
        #expect(listing(dir) == ["k.sqlite"], "no temporary file is left behind")
    }

    @Test func denseTruthIsInterpolatedAtTheWindowMiddle() throws {
        let venue = RecordedVenue(name: "v", bounds: Rect(minX: 0, minY: 0, maxX: 10, maxY: 10), radio: RadioModel(scanWindow: 1),
                                  beacons: [RecordedBeacon(id: "A", position: Point(0, 0))])
        let truth = [TruthSample(t: 0.1, position: Point(1, 1), source: .annotated),
                     TruthSample(t: 0.3, position: Point(2, 1), source: .annotated),
                     TruthSample(t: 0.7, position: Point(4, 1), source: .annotated),
                     TruthSample(t: 2.2, position: Point(9, 9), source: .checkpoint)]
        let r = Recording(info: RecordingInfo(name: "d", source: .labCSV, venue: "v"), venue: venue,
                          rssi: [RSSIReading(beacon: 0, t: 0.2, rssi: -60), RSSIReading(beacon: 0, t: 1.5, rssi: -61),
                                 RSSIReading(beacon: 0, t: 2.9, rssi: -62)],
                          truth: truth)
        let built = EpochBuilder(venue: venue.venue).epochs(r)
        #expect(built.epochs.count == 2)
        #expect(built.windowsWithoutTruth == 1 && built.readingsWithoutTruth == 1)
        let e0 = built.epochs[0]
        #expect(e0.t == 0.5)
        #expect(abs(e0.truth.x - 3) < 1e-12 && e0.truth.y == 1)
        #expect(e0.readings.count == 1)
        #expect(built.epochs[1].truth == Point(9, 9) && built.epochs[1].truthSource == .checkpoint)
    }
}
