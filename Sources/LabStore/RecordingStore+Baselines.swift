import Foundation
internal import GRDB
import LabCore
import LabEstimators

extension RecordingStore {
    /// Replaces the stored baselines of every estimator in `baselines` with those given, in one transaction,
    /// in the recording and in its baselines file when it has one (``BaselineFile``).
    public static func setBaselines(_ baselines: [Baseline], path: String) throws {
        let file = BaselineFile.path(forRecording: path)
        _ = try updateBaselines(baselines, estimators: Set(baselines.map(\.estimator)), path: path,
                                file: FileManager.default.fileExists(atPath: file) ? file : nil)
    }

    /// Replaces the baselines of `estimators` with `fresh` and keeps the others, under the recording's write
    /// lock: the baselines kept are read under the lock (from the baselines file `file` when it exists — it is
    /// what replay checks — else from the recording), so concurrent updates of other estimators are never lost.
    /// The whole set is written to the recording and, before the commit, to `file` (atomically), so the two
    /// agree: a failure writing either changes neither.
    ///
    /// - Parameter venue: the venue (radio model, beacons, walls) the figures were computed with. Under the lock, the
    ///   stored one must still be it: a `calibrate --apply` between the read and this update would otherwise leave
    ///   baselines of the old model, which the next check fails at once. Nil skips the check.
    /// - Returns: every baseline of the recording after the update.
    /// - Throws: ``ModelChanged`` (nothing written) when the stored venue is no longer `venue`.
    @discardableResult
    public static func updateBaselines(_ fresh: [Baseline], estimators: Set<EstimatorKind>, path: String, file: String?,
                                       computedWith venue: RecordedVenue? = nil) throws -> [Baseline] {
        try withDatabase(path: path, writable: true) { db in
            if let venue, try loadHeader(db, path: path).venue != venue { throw ModelChanged(file: path) }
            let recordingName = try String.fetchOne(db, sql: "SELECT name FROM recordings") ?? ""
            var kept: [Baseline]
            if let file, let fromFile = try BaselineFile.read(path: file, recording: recordingName) {
                kept = fromFile
            } else {
                kept = try BaselineRow.fetchAll(db).compactMap { row in
                    guard let e = EstimatorKind(rawValue: row.estimator), let m = BaselineMetric(rawValue: row.metric) else { return nil }
                    return Baseline(estimator: e, metric: m, value: row.value, tolerance: row.tolerance)
                }
            }
            let all = (kept.filter { !estimators.contains($0.estimator) } + fresh).sorted { ($0.estimator, $0.metric) < ($1.estimator, $1.metric) }
            try BaselineRow.deleteAll(db)
            let now = Date()
            for b in all {
                try BaselineRow(estimator: b.estimator.rawValue, metric: b.metric.rawValue, value: b.value,
                                tolerance: b.tolerance, updated: now).insert(db)
            }
            if let file { try BaselineFile.write(all, recording: recordingName, to: file) }
            KillPoints.reached(.baselinesBeforeCommit)
            return all
        }
    }
}

/// A recording's venue (its radio model, beacons or walls) changed between reading it and storing figures computed from
/// it: the figures belong to the old model and were not stored.
public struct ModelChanged: Error, Sendable, CustomStringConvertible, Equatable {
    public var file: String
    public var description: String {
        "\(file): its radio model changed while the baselines were computed (a concurrent calibrate --apply?): nothing was stored"
    }
}
