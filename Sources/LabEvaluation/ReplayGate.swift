import LabCore
import LabEstimators
import LabResults
import LabStore

/// The regression gate over recordings (`indoorlab replay`): each recording replayed through the estimators, its
/// figures checked against the stored baselines, or stored as the new baselines.
///
/// The rules:
/// - A recording's baselines are the reviewable file beside it (`NAME.baselines.json`, ``BaselineFile``) when that
///   exists, else those stored in the recording.
/// - With a radio fit from elsewhere (``RadioFit``), every recording is scored with it instead of its own model.
/// - Updating stores each recording's current figures (``BaselineJudge/baselines(from:)``) for the estimators run,
///   merged with the others' under the recording's lock; a recording with no scored epoch that heard a beacon has no
///   figures to store and is refused before anything is written.
/// - Strict (the CI gate): a recording also fails with no baseline checked, or without both estimators the library
///   ships among those checked (``RecordingReplay/strictProblems(_:)``).
public struct ReplayGate {
    /// Which estimators run (nil: those with baselines, else all).
    public var estimators: [EstimatorKind]?
    /// Store the figures as the new baselines instead of checking them.
    public var updateBaseline = false
    /// Also fail a recording that the gate does not really check.
    public var strict = false

    public init(estimators: [EstimatorKind]? = nil, updateBaseline: Bool = false, strict: Bool = false) {
        self.estimators = estimators; self.updateBaseline = updateBaseline; self.strict = strict
    }

    /// One recording's verdict.
    public struct Verdict: Sendable {
        public var file: String
        public var result: RecordingReplay.Result
        /// Its baselines were replaced by this run's figures.
        public var updated: Bool
        /// Whether the strict gate judged it.
        public var strict: Bool
        /// Why the strict gate fails it (empty when not strict, or when nothing is wrong).
        public var strictProblems: [String]
        /// The baseline checks that regressed (none when the baselines were updated).
        public var regressions: [BaselineCheck] { updated ? [] : result.regressions }
    }

    /// Every recording's verdict, in the order given.
    public struct Outcome: Sendable {
        public var verdicts: [Verdict]
        public var regressions: [(file: String, check: BaselineCheck)] { verdicts.flatMap { v in v.regressions.map { (v.file, $0) } } }
        public var strictFailures: [(file: String, problem: String)] { verdicts.flatMap { v in v.strictProblems.map { (v.file, $0) } } }
        public var passed: Bool { regressions.isEmpty && strictFailures.isEmpty }
        /// The verdicts as JUnit test suites, one per recording.
        public var junitSuites: [JUnitReport.Suite] {
            verdicts.map { JUnitReport.Suite(file: $0.file, result: $0.result, strict: $0.strict, strictProblems: $0.strictProblems) }
        }
    }

    /// The recordings at `files` as the gate reads them: each with the baselines of its reviewable file when there is
    /// one, and, given `radio`, scored with that fit (what the fit knows that a recording lacks goes to `note`).
    public static func load(files: [String], radio: String?, note: (String) -> Void) throws -> [Recording] {
        var recordings = try files.map { try RecordingStore.read(path: $0) }
        for (i, file) in files.enumerated() {
            if let b = try BaselineFile.read(path: BaselineFile.path(forRecording: file), recording: recordings[i].info.name) {
                recordings[i].baselines = b
            }
        }
        if let radio {
            let fit = try RadioFit.read(path: radio)
            for i in recordings.indices {
                // A fit from another recording may know more beacons or materials than this one: said, not an error.
                let unused = fit.unused(by: recordings[i].venue)
                let parts = [unused.beacons.isEmpty ? nil : "\(unused.beacons.count == 1 ? "beacon" : "beacons") \(unused.beacons.joined(separator: ", "))",
                             unused.materials.isEmpty ? nil : "\(unused.materials.count == 1 ? "material" : "materials") \(unused.materials.joined(separator: ", "))"].compactMap { $0 }
                if !parts.isEmpty { note("\(radio): fits \(parts.joined(separator: " and ")), which \(files[i]) does not have: not used") }
                recordings[i].venue = fit.applied(to: recordings[i].venue, readings: recordings[i].rssi)
            }
        }
        return recordings
    }

    /// Replays `recordings` (read from `files`, in the same order) and checks, or with ``updateBaseline`` stores, their
    /// baselines.
    public func run(_ recordings: [Recording], files: [String]) throws -> Outcome {
        precondition(recordings.count == files.count, "one file per recording")
        let results = recordings.map { RecordingReplay.run($0, estimators: estimators) }
        // A baseline of nothing (availability 0 of 0) would pass every later gate; checked before any is stored.
        if updateBaseline, let i = results.firstIndex(where: { r in !r.results.contains { $0.beaconsHeard > 0 } }) {
            throw InputError(file: files[i], "has no scored epoch that heard a beacon (a scan window with readings and ground truth): no baselines to store")
        }
        var verdicts: [Verdict] = []
        for (file, result) in zip(files, results) {
            if updateBaseline {
                // Merged with the baselines of other estimators under the recording's lock, file and table together.
                try RecordingStore.updateBaselines(BaselineJudge.baselines(from: result.scores), estimators: Set(result.estimators),
                                                   path: file, file: BaselineFile.path(forRecording: file))
            }
            verdicts.append(Verdict(file: file, result: result, updated: updateBaseline,
                                    strictProblems: strict ? RecordingReplay.strictProblems(result) : [], strict: strict))
        }
        return Outcome(verdicts: verdicts)
    }
}

extension ReplayGate.Verdict {
    init(file: String, result: RecordingReplay.Result, updated: Bool, strictProblems: [String], strict: Bool) {
        self.file = file; self.result = result; self.updated = updated; self.strictProblems = strictProblems; self.strict = strict
    }
}
