import Foundation
internal import GRDB
import LabCore
import LabEstimators

/// Appends samples to a recording being created (valid only inside ``RecordingStore/create(at:info:venue:fill:)``).
/// Prepared statements are reused for every sample (and, cached by the connection, by every writer of it: a live
/// session makes one per batch): an import runs at the speed of SQLite's B-tree.
public final class RecordingWriter {
    private let db: Database
    private let rssiStatement: Statement
    private let headingStatement: Statement
    private let stepStatement: Statement
    private let truthStatement: Statement
    private let beaconCount: Int
    private let landmarkCount: Int
    /// The recording being written, for error messages.
    private let file: String
    public private(set) var rssiCount = 0
    public private(set) var headingCount = 0
    public private(set) var stepCount = 0
    public private(set) var truthCount = 0
    private var tMin = Double.infinity, tMax = -Double.infinity
    /// The longest time a recording may span, seconds: ``WorkBudget/maximumWindowsPerWalk`` scan windows. Every
    /// command that reads it keeps a result per window and estimator.
    private let longestSpan: Double
    private let scanWindow: Double

    init(db: Database, venue: RecordedVenue, file: String) throws {
        self.db = db
        self.file = file
        rssiStatement = try db.cachedStatement(sql: "INSERT INTO rssi_samples (t, beacon, rssi) VALUES (?, ?, ?)")
        headingStatement = try db.cachedStatement(sql: "INSERT INTO heading_samples (t, heading, accuracy, frieze, target) VALUES (?, ?, ?, ?, ?)")
        stepStatement = try db.cachedStatement(sql: "INSERT INTO step_samples (t, length, heading, length_accuracy, heading_accuracy) VALUES (?, ?, ?, ?, ?)")
        truthStatement = try db.cachedStatement(sql: "INSERT INTO ground_truth (t, x, y, z, source) VALUES (?, ?, ?, ?, ?)")
        beaconCount = venue.beacons.count
        landmarkCount = venue.landmarks.count
        scanWindow = venue.radio.scanWindow
        longestSpan = venue.radio.scanWindow * Double(WorkBudget.maximumWindowsPerWalk)
    }

    var timeSpan: Double { tMax >= tMin ? tMax - tMin : 0 }
    private var rows: Int { rssiCount + headingCount + stepCount + truthCount }

    @inline(__always) private func see(_ t: Double) throws {
        if t < tMin { tMin = t }
        if t > tMax { tMax = t }
        if tMax - tMin > longestSpan { throw spanError() }
    }

    private func spanError() -> InputError {
        InputError(file: file, "the samples span \(Format.number(tMax - tMin)) s, more than \(WorkBudget.maximumWindowsPerWalk) scan windows of \(Format.number(scanWindow)) s (\(Format.number(longestSpan)) s), the most a recording may hold: every command that reads it keeps a result per window (split the recording, or use a longer scan window)")
    }

    /// Appends one RSSI sample. Importers check their input first; this is the last line of defence.
    public func append(_ r: RSSIReading) throws {
        guard r.beacon >= 0, r.beacon < beaconCount, r.t.isFinite, RecordingImporter.plausibleRSSI.contains(r.rssi) else {
            throw InputError(file: file, field: "rssi_samples", "invalid sample: beacon \(r.beacon), t \(r.t), rssi \(r.rssi)")
        }
        rssiStatement.setUncheckedArguments([r.t, r.beacon, r.rssi])
        try rssiStatement.execute()
        rssiCount += 1
        KillPoints.wrote(rows: rows)
        try see(r.t)
    }

    public func append(_ h: HeadingReading) throws {
        let valid = { (i: Int?) in i.map { $0 >= 0 && $0 < self.landmarkCount } ?? true }
        guard h.t.isFinite, h.heading.isFinite, h.accuracy.isFinite, valid(h.frieze), valid(h.target) else {
            throw InputError(file: file, field: "heading_samples", "invalid heading sample at t \(h.t)")
        }
        headingStatement.setUncheckedArguments([h.t, h.heading, h.accuracy, h.frieze, h.target])
        try headingStatement.execute()
        headingCount += 1
        KillPoints.wrote(rows: rows)
        try see(h.t)
    }

    /// Appends one step of the phone's step detector.
    public func append(_ s: StepReading) throws {
        guard s.isValid else {
            throw InputError(file: file, field: "step_samples", "invalid step at t \(s.t): length \(s.length), heading \(s.heading) (length and its σ in [0, 3] m, heading in [0, 360), its σ in [0, 180]°)")
        }
        stepStatement.setUncheckedArguments([s.t, s.length, s.heading, s.lengthAccuracy, s.headingAccuracy])
        try stepStatement.execute()
        stepCount += 1
        KillPoints.wrote(rows: rows)
        try see(s.t)
    }

    public func append(_ s: TruthSample) throws {
        guard s.isPlausible else {
            throw InputError(file: file, field: "ground_truth", "invalid truth sample at t \(s.t)")
        }
        truthStatement.setUncheckedArguments([s.t, s.position.x, s.position.y, s.z, s.source.rawValue])
        try truthStatement.execute()
        truthCount += 1
        KillPoints.wrote(rows: rows)
        try see(s.t)
    }

    func setBaselines(_ baselines: [Baseline]) throws {
        let now = Date()
        for b in baselines {
            try BaselineRow(estimator: b.estimator.rawValue, metric: b.metric.rawValue, value: b.value, tolerance: b.tolerance, updated: now).save(db)
        }
    }
}
