import Foundation
import LabCore
import LabEstimators
import LabResults
import Testing
@testable import LabEvaluation
import LabStore

/// The gate's update against a concurrent calibration: baselines always belong to the model stored with them.
@Suite struct ReplayGateTests {
    static func recording(in dir: String) throws -> (path: String, radio: RadioModel) {
        let s = try scenario("esoc-office")
        let path = dir + "/r.sqlite"
        try RecordingStore.write(try simulatedRecording(scenario: s, walk: s.walks[0], seed: 3), to: path)
        return (path, s.radio)
    }

    /// What `calibrate --apply` stores: another model (P0 6 dB lower, a steeper exponent).
    static func calibrate(_ path: String, from radio: RadioModel, step: Double) throws {
        try RecordingStore.updateRadio(path: path, p0: radio.p0 - step, exponent: radio.exponent + step / 10, sigma: radio.sigma)
    }

    static let estimators: [EstimatorKind] = [.leastSquares, .proximity]

    /// Baselines by estimator and metric.
    static func values(_ baselines: [Baseline]) -> [String: Double] {
        Dictionary(uniqueKeysWithValues: baselines.map { ("\($0.estimator.rawValue) \($0.metric.rawValue)", $0.value) })
    }

    /// `replay --update-baseline` read the recording, then `calibrate --apply` changed its model before the baselines
    /// were stored: the update notices under the lock, replays with the stored model and stores those figures, so a
    /// check straight after passes. (Before, the old model's figures were stored and the next replay failed.)
    @Test func aModelChangedBeforeTheStoreIsReplayedAgain() throws {
        let dir = try temporaryDirectory("gate-race")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (path, radio) = try Self.recording(in: dir)
        var gate = ReplayGate(estimators: Self.estimators, updateBaseline: true)
        var attempts = 0
        gate.beforeStoring = { file in
            if attempts == 0 { try? Self.calibrate(file, from: radio, step: 6) }
            attempts += 1
        }
        let outcome = try gate.run(try ReplayGate.load(files: [path], radio: nil) { _ in }, files: [path])
        #expect(attempts == 2, "stored on the second attempt, after one replay with the new model")

        let stored = try RecordingStore.read(path: path)
        #expect(stored.venue.radio.p0 == radio.p0 - 6, "the calibration stays")
        let fresh = BaselineJudge.baselines(from: RecordingReplay.run(stored, estimators: Self.estimators).scores)
        #expect(Self.values(stored.baselines) == Self.values(fresh), "the baselines are the stored model's figures")
        #expect(outcome.verdicts[0].result.scores.map(\.stats.rmse) == RecordingReplay.run(stored, estimators: Self.estimators).scores.map(\.stats.rmse),
                "the verdict reports the figures stored")
        let old = BaselineJudge.baselines(from: RecordingReplay.run(try simulatedRecordingAsFirstRead(path, radio: radio), estimators: Self.estimators).scores)
        #expect(Self.values(old) != Self.values(fresh), "the two models give different figures (else the test shows nothing)")
        let check = try ReplayGate(estimators: Self.estimators).run(try ReplayGate.load(files: [path], radio: nil) { _ in }, files: [path])
        #expect(check.passed, "a check straight after the update passes: \(check.regressions.map(\.check))")
    }

    /// A model that changes at every attempt: the update gives up, stores nothing, and says why.
    @Test func aModelThatKeepsChangingIsRefused() throws {
        let dir = try temporaryDirectory("gate-race-busy")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (path, radio) = try Self.recording(in: dir)
        var gate = ReplayGate(estimators: Self.estimators, updateBaseline: true)
        var attempts = 0
        gate.beforeStoring = { file in
            attempts += 1
            try? Self.calibrate(file, from: radio, step: Double(attempts))
        }
        #expect(throws: FileBusy(file: path, "its radio model changed 3 times while the baselines were computed (concurrent calibrate --apply runs): nothing was stored; run replay --update-baseline again")) {
            try gate.run(try ReplayGate.load(files: [path], radio: nil) { _ in }, files: [path])
        }
        #expect(try RecordingStore.read(path: path).baselines.isEmpty, "nothing stored")
        #expect(!FileManager.default.fileExists(atPath: BaselineFile.path(forRecording: path)))
    }

    /// The recording at `path` as it was before the calibration: its model set back to `radio`.
    func simulatedRecordingAsFirstRead(_ path: String, radio: RadioModel) throws -> Recording {
        var r = try RecordingStore.read(path: path)
        r.venue.radio = radio
        return r
    }
}
