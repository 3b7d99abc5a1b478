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

/// The shipped library must be the tournament's winner (its stream, a tracker) and its best snapshot estimator (its
/// one-scan fix), giving the same fixes on the same epochs.
@Suite struct LibraryMatchesWinnerTests {
    @Test func theLibraryWrapsTheWinnerOfTheBundledTournament() throws {
        let paths = ["esoc-office", "killian-court", "museum-gallery", "open-hall", "smart-home"].map { scenariosDir + "/\($0).yaml" }
        let scenarios = try paths.map { try ScenarioLoader.load(path: $0) }
        // README's leaderboard run (both conditions and the real protocols) with its first 3 seeds (of 10),
        // every live estimator (the offline smoothers cannot win, and neither is a snapshot estimator): a debug
        // build runs the whole 10 in minutes (make demo prints the 10-seed winner).
        let live = EstimatorKind.allCases.filter { !$0.inputs.offline }
        let tournament = Tournament(scenarios: scenarios, seeds: Array(1...3), estimators: live, conditions: [.ideal, .field])
        var results = try tournament.run()
        var labels = tournament.labels
        var real: Set<String> = []
        if FileManager.default.fileExists(atPath: realDatasets + "/uji-ble-geo/dep/geo.csv") {
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("winner-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            for p in try RealProtocols.bundled(datasets: realDatasets, scratch: scratch) {
                results += try p.run(estimators: live)
                labels.append(p.name); real.insert(p.name)
            }
        }
        let board = Leaderboard(results: results, scenarios: labels, seeds: Array(1...3), realProtocols: real)
        #expect(board.winner?.rawValue == IndoorLocator.estimatorName)
        #expect(EstimatorKind.shippedTracker.rawValue == IndoorLocator.estimatorName)
        #expect(board.bestSnapshot?.rawValue == IndoorLocator.snapshotEstimatorName)
        #expect(EstimatorKind.shipped.rawValue == IndoorLocator.snapshotEstimatorName)
    }

    /// The library solves with its pure-Swift Levenberg–Marquardt, the tournament with GSL's: on every epoch of
    /// the tournament (every bundled scenario, both conditions, one seed) the fixes agree within 1 mm, the one-scan
    /// fix's and the tracker's. Each walk and grid pass is a new phone for both, and each grid point a new track, as
    /// in the tournament.
    @Test(arguments: ["esoc-office", "killian-court", "museum-gallery", "open-hall", "smart-home"])
    func pureSwiftSolverMatchesGSLOnEveryEpoch(name: String) throws {
        let path = scenariosDir + "/\(name).yaml"
        let scenario = try ScenarioLoader.load(path: path)
        var compared = 0, worst = 0.0
        for condition in [SimulationCondition.ideal, .field] {
            // The venue as the tournament gives it in this condition (in the field, with the impairments' model
            // error), and the library configured from the same scenario with that model error set.
            let venue = Venue(scenario, condition: condition)
            let configured = try temporaryScenario(path, modelError: venue.radio.modelError)
            defer { try? FileManager.default.removeItem(atPath: configured) }
            let locator = try IndoorLocator(scenarioAt: configured)
            let gsl = try #require(EstimatorKind(rawValue: IndoorLocator.snapshotEstimatorName)).make(venue: venue)
            let gslTracker = try #require(EstimatorKind(rawValue: IndoorLocator.estimatorName)).make(venue: venue)
            let epochs = try Tournament(scenarios: [scenario], seeds: [1]).epochs(scenario: scenario, condition: condition, seed: 1)
            for (k, e) in epochs.enumerated() {
                if k == 0 || epochs[k - 1].walk != e.walk { gsl.startDevice(); gslTracker.startDevice(); locator.forgetDevice() }
                if e.walk == nil { gslTracker.startTrack(); locator.restartTrack() }
                let observation = Observation(readings: e.readings, headings: e.headings, beaconCount: venue.beaconCount, t: e.t)
                for (mine, theirs) in [(locator.locate(observation: observation), gsl.locate(observation)),
                                       (locator.track(observation: observation), gslTracker.locate(observation))] {
                switch (mine, theirs) {
                case (.fix(let l), .fix(let f)):
                    let d = l.position.distance(to: f.position)
                    worst = max(worst, d)
                    #expect(d < 1e-3, "\(condition) epoch \(e.index): \(l.position) vs \(f.position)")
                    if let a = l.uncertainty, let b = f.uncertainty { #expect(abs(a - b) <= 1e-3 * max(b, 1), "epoch \(e.index)") }
                    else { #expect(l.uncertainty == nil && f.uncertainty == nil, "epoch \(e.index)") }
                case (.noFix(let r), .noFix(let reason)):
                    #expect(r == reason, "epoch \(e.index)")
                default:
                    Issue.record("\(condition) epoch \(e.index): library \(mine) vs tournament \(theirs)")
                }
                }
                compared += 1
            }
        }
        #expect(compared > 200)
        print("\(name): \(compared) epochs, largest difference \(String(format: "%.2e", worst)) m")
    }

    /// Through the public API (samples by iBeacon identity, headings by frieze name) the library gives the fix
    /// its engine gives on the built observation.
    @Test func publicAPIGivesTheEngineFix() throws {
        let path = scenariosDir + "/museum-gallery.yaml"
        let scenario = try ScenarioLoader.load(path: path)
        let viaAPI = try IndoorLocator(scenarioAt: path), viaEngine = try IndoorLocator(scenarioAt: path)
        let venue = Venue(scenario)
        var compared = 0
        for e in try Tournament(scenarios: [scenario], seeds: [1]).epochs(scenario: scenario, seed: 1) {
            let samples = e.readings.map { r -> RSSISample in
                let b = scenario.beacons[r.beacon]
                return RSSISample(beacon: BeaconIdentity(uuid: UUID(uuidString: b.uuid!)!, major: UInt16(b.major!), minor: UInt16(b.minor!)),
                                  rssi: r.rssi, timestamp: Date(timeIntervalSinceReferenceDate: r.t))
            }
            let headings = e.headings.map {
                CompassHeading(degrees: $0.heading, accuracy: $0.accuracy, frieze: $0.frieze.map { scenario.landmarks[$0].name }, timestamp: Date(timeIntervalSinceReferenceDate: $0.t))
            }
            let mine = viaAPI.locate(samples, headings: headings)
            let engine = viaEngine.locate(observation: Observation(readings: e.readings, headings: e.headings, beaconCount: venue.beaconCount))
            switch (mine, engine) {
            case (.located(let l), .fix(let f)):
                #expect(l.position.x == f.position.x && l.position.y == f.position.y, "epoch \(e.index)")
            case (.unavailable, .noFix):
                break
            default:
                Issue.record("epoch \(e.index): API \(mine) vs engine \(engine)")
            }
            compared += 1
        }
        #expect(compared > 200)
    }

    /// A copy of the scenario file at `path` with `radio.model_error` set, in a temporary file.
    func temporaryScenario(_ path: String, modelError: Double) throws -> String {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let edited = text.replacingOccurrences(of: "\nradio:\n", with: "\nradio:\n  model_error: \(modelError)\n")
        #expect(edited != text || modelError == 0, "the scenario's radio block is not where the test expects it")
        let out = NSTemporaryDirectory() + "model-error-\(UUID().uuidString).yaml"
        try edited.write(toFile: out, atomically: true, encoding: .utf8)
        return out
    }
}
