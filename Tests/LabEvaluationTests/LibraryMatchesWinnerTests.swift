import Foundation
import Testing
import LabCore
import LabSimulation
import LabEstimators
import LabEvaluation
@testable import IndoorLocator
import LabScenarioIO
import LabStore
import IndoorLocatorScenarios

/// The shipped library must be the tournament's winner, giving the same fixes on the same epochs.
@Suite struct LibraryMatchesWinnerTests {
    @Test func theLibraryWrapsTheWinnerOfTheBundledTournament() throws {
        let paths = ["esoc-office", "killian-court", "museum-gallery", "open-hall", "smart-home"].map { scenariosDir + "/\($0).yaml" }
        let scenarios = try paths.map { try ScenarioLoader.load(path: $0) }
        // README's leaderboard run (both conditions and the real protocols) with its first 3 seeds (of 10),
        // every estimator: a debug build runs the whole 10 in minutes (make demo prints the 10-seed winner).
        let tournament = Tournament(scenarios: scenarios, seeds: Array(1...3), conditions: [.ideal, .field])
        var results = tournament.run()
        var labels = tournament.labels
        var real: Set<String> = []
        if FileManager.default.fileExists(atPath: realDatasets + "/uji-ble-geo/dep/geo.csv") {
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("winner-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            for p in try RealProtocols.bundled(datasets: realDatasets, scratch: scratch) {
                results += try p.run(estimators: EstimatorKind.allCases)
                labels.append(p.name); real.insert(p.name)
            }
        }
        let board = Leaderboard(results: results, scenarios: labels, seeds: Array(1...3), realProtocols: real)
        #expect(board.winner?.rawValue == IndoorLocator.estimatorName)
    }

    @Test(arguments: ["killian-court", "museum-gallery"])
    func sameFixesOnTheSameEpochs(name: String) throws {
        let path = scenariosDir + "/\(name).yaml"
        let scenario = try ScenarioLoader.load(path: path)
        let locator = try IndoorLocator(scenarioAt: path)
        let winner = try #require(EstimatorKind(rawValue: IndoorLocator.estimatorName))
        let venue = Venue(scenario)
        let tournamentEstimator = winner.make(venue: venue)
        let epochs = Tournament(scenarios: [scenario], seeds: [1]).epochs(scenario: scenario, seed: 1)
        var compared = 0
        for e in epochs {
            // Through the public API: samples by iBeacon identity, headings by frieze name.
            let samples = e.readings.map { r -> RSSISample in
                let b = scenario.beacons[r.beacon]
                return RSSISample(beacon: BeaconIdentity(uuid: UUID(uuidString: b.uuid!)!, major: UInt16(b.major!), minor: UInt16(b.minor!)),
                                  rssi: r.rssi, timestamp: r.t)
            }
            let headings = e.headings.map {
                CompassHeading(degrees: $0.heading, accuracy: $0.accuracy, frieze: $0.frieze.map { scenario.landmarks[$0].name }, timestamp: $0.t)
            }
            let mine = locator.locate(samples, headings: headings)
            let theirs = tournamentEstimator.locate(Observation(readings: e.readings, headings: e.headings, beaconCount: venue.beaconCount))
            switch (mine, theirs) {
            case (.located(let l), .fix(let f)):
                #expect(l.position.x == f.position.x && l.position.y == f.position.y, "epoch \(e.index)")
                #expect(l.uncertainty == f.uncertainty)
            case (.unavailable(let r), .noFix(let reason)):
                #expect(r == reason.description)
            default:
                Issue.record("epoch \(e.index): library \(mine) vs tournament \(theirs)")
            }
            compared += 1
        }
        #expect(compared > 200)
    }
}
