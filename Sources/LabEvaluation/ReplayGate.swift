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
    /// Called before each attempt to store a recording's baselines (tests make a concurrent change here).
    var beforeStoring: ((String) -> Void)?

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
        // Condensed: a replay holds each scan window's sums, never the readings (memory grows with the windows).
        var recordings = try files.map { try RecordingStore.readCondensed(path: $0) }
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
                recordings[i].venue = fit.applied(to: recordings[i].venue, floor: recordings[i].readingFloor)
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
        for (k, file) in files.enumerated() {
            var result = results[k]
            if updateBaseline { result = try store(result, of: recordings[k], file: file) }
            verdicts.append(Verdict(file: file, result: result, updated: updateBaseline,
                                    strictProblems: strict ? RecordingReplay.strictProblems(result) : [], strict: strict))
        }
        return Outcome(verdicts: verdicts)
    }
}

extension ReplayGate {
    /// How many times an update recomputes figures whose recording's model changed under it before giving up.
    static let storeAttempts = 3

    /// Stores `result`'s figures as the baselines of the recording at `file`, merged with the baselines of other
    /// estimators under the recording's lock, file and table together. They are stored only while the recording's
    /// venue is still the one they were computed with: when a concurrent `calibrate --apply` changed it, the recording
    /// is read again and replayed, up to ``storeAttempts`` times.
    /// - Returns: the result whose figures were stored.
    /// - Throws: ``FileBusy`` when the model kept changing.
    func store(_ result: RecordingReplay.Result, of recording: Recording, file: String) throws -> RecordingReplay.Result {
        var result = result, venue = recording.venue
        for attempt in 1...Self.storeAttempts {
            beforeStoring?(file)
            do {
                try RecordingStore.updateBaselines(BaselineJudge.baselines(from: result.scores), estimators: Set(result.estimators),
                                                   path: file, file: BaselineFile.path(forRecording: file), computedWith: venue)
                return result
            } catch is ModelChanged where attempt < Self.storeAttempts {
                let fresh = try RecordingStore.readCondensed(path: file)
                venue = fresh.venue
                result = RecordingReplay.run(fresh, estimators: result.estimators)
            } catch is ModelChanged {
                break
            }
        }
        throw FileBusy(file: file, "its radio model changed \(Self.storeAttempts) times while the baselines were computed (concurrent calibrate --apply runs): nothing was stored; run replay --update-baseline again")
    }
}

extension ReplayGate.Verdict {
    init(file: String, result: RecordingReplay.Result, updated: Bool, strictProblems: [String], strict: Bool) {
        self.file = file; self.result = result; self.updated = updated; self.strictProblems = strictProblems; self.strict = strict
    }
}
