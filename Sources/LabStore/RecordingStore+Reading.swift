import Foundation
internal import GRDB
import LabCore
import LabEstimators

extension RecordingStore {
    /// Reads a whole recording after checking it is an intact recording of a schema this build knows.
    /// - Throws: ``InputError`` for a missing, non-SQLite, truncated or corrupt file, or another schema.
    public static func read(path: String) throws -> Recording {
        try withDatabase(path: path, writable: false) { db in try load(db, path: path) }
    }

    /// Checks that `path` is an intact recording (integrity check, schema) without loading the samples.
    public static func verify(path: String) throws {
        try withDatabase(path: path, writable: false) { _ in }
    }

    /// Reads a recording as replay needs it: its readings condensed per scan window (``Recording/condensed``) as they
    /// stream from the file, never held, so that memory grows with the windows and not the readings.
    public static func readCondensed(path: String) throws -> Recording {
        try withDatabase(path: path, writable: false) { db in try load(db, path: path, condensing: true) }
    }

    static func load(_ db: Database, path: String, condensing: Bool = false) throws -> Recording {
        func bad(_ table: String, _ message: String) -> InputError { InputError(file: path, field: table, message) }
        var condensed: CondensedReadings?
        let (info, venue) = try loadHeader(db, path: path)
        let beaconCount = venue.beacons.count, landmarkCount = venue.landmarks.count

        var rssi: [RSSIReading] = []
        if !condensing {
            rssi.reserveCapacity(try Int.fetchOne(db, sql: "SELECT count(*) FROM rssi_samples") ?? 0)
            try forEachReading(db, path: path, beaconCount: beaconCount) { rssi.append($0) }
        } else {
            var c = CondensedReadings(builder: EpochBuilder(venue: venue.venue))
            try forEachReading(db, path: path, beaconCount: beaconCount) { c.add($0) }
            c.finish()
            condensed = c
        }
        var headings: [HeadingReading] = []
        let hrows = try Row.fetchCursor(db, sql: "SELECT t, heading, accuracy, frieze, target FROM heading_samples ORDER BY rowid")
        while let r = try hrows.next() {
            let h = HeadingReading(t: r[0], heading: r[1], accuracy: r[2], frieze: r[3], target: r[4])
            let valid = { (i: Int?) in i.map { $0 >= 0 && $0 < landmarkCount } ?? true }
            guard h.t.isFinite, h.heading.isFinite, h.accuracy.isFinite, valid(h.frieze), valid(h.target) else {
                throw bad("heading_samples", "sample \(headings.count + 1) is not a valid heading")
            }
            headings.append(h)
        }
        var steps: [StepReading]?
        if try db.tableExists("step_samples") {
            let srows = try Row.fetchCursor(db, sql: "SELECT t, length, heading, length_accuracy, heading_accuracy FROM step_samples ORDER BY rowid")
            var read: [StepReading] = []
            while let r = try srows.next() {
                let st = StepReading(t: r[0], length: r[1], heading: r[2], lengthAccuracy: r[3], headingAccuracy: r[4])
                guard st.isValid else {
                    throw bad("step_samples", "sample \(read.count + 1): t \(st.t), length \(st.length), heading \(st.heading), accuracies \(st.lengthAccuracy), \(st.headingAccuracy) is not a valid step (length and its σ in [0, 3] m, heading in [0, 360), its σ in [0, 180]°)")
                }
                read.append(st)
            }
            if !read.isEmpty { steps = read }
        }
        var truth: [TruthSample] = []
        let trows = try Row.fetchCursor(db, sql: "SELECT t, x, y, z, source FROM ground_truth ORDER BY rowid")
        while let r = try trows.next() {
            let s: String = r[4]
            guard let src = TruthSource(rawValue: s) else { throw bad("ground_truth.source", "unknown truth source '\(s)'") }
            let sample = TruthSample(t: r[0], position: Point(r[1], r[2]), z: r[3], source: src)
            guard sample.isPlausible else {
                throw bad("ground_truth", "sample \(truth.count + 1) at t \(Format.number(sample.t)): expected a finite time and coordinates within ±\(Format.number(WorkBudget.maximumExtent)) m, found (\(Format.number(sample.position.x)), \(Format.number(sample.position.y)))")
            }
            truth.append(sample)
        }
        var baselines: [Baseline] = []
        for b in try BaselineRow.order(Column("estimator"), Column("metric")).fetchAll(db) {
            guard let e = EstimatorKind(rawValue: b.estimator) else { throw bad("baselines.estimator", "unknown estimator '\(b.estimator)'") }
            guard let m = BaselineMetric(rawValue: b.metric) else { throw bad("baselines.metric", "unknown metric '\(b.metric)'") }
            let baseline = Baseline(estimator: e, metric: m, value: b.value, tolerance: b.tolerance)
            if let problem = baseline.problem { throw bad("baselines", "\(b.estimator) \(b.metric): \(problem)") }
            baselines.append(baseline)
        }
        var recording = Recording(info: info, venue: venue, rssi: rssi, headings: headings, steps: steps, truth: truth, baselines: baselines)
        recording.condensed = condensed
        return recording
    }

    /// Calls `body` with every reading of the recording, in the order recorded, each checked (a beacon of the recording,
    /// a finite time, a plausible RSSI).
    static func forEachReading(_ db: Database, path: String, beaconCount: Int, _ body: (RSSIReading) throws -> Void) throws {
        func bad(_ message: String) -> InputError { InputError(file: path, field: "rssi_samples", message) }
        let rows = try Row.fetchCursor(db, sql: "SELECT t, beacon, rssi FROM rssi_samples ORDER BY rowid")
        var n = 0
        while let r = try rows.next() {
            n += 1
            let t: Double = r[0], b: Int = r[1], v: Double = r[2]
            guard b >= 0, b < beaconCount else {
                throw bad("sample \(n): beacon \(b) is no beacon of the recording (expected 0–\(beaconCount - 1))")
            }
            guard t.isFinite, RecordingImporter.plausibleRSSI.contains(v) else {
                throw bad("sample \(n): beacon \(b), t \(t), rssi \(v) is not a valid sample (RSSI \(Format.number(RecordingImporter.plausibleRSSI.lowerBound))–\(Format.number(RecordingImporter.plausibleRSSI.upperBound)) dBm)")
            }
            try body(RSSIReading(beacon: b, t: t, rssi: v))
        }
    }

    /// The recording's header and venue (its radio model, beacons, landmarks, rooms and walls), checked: what every
    /// figure computed from the recording depends on besides its samples.
    static func loadHeader(_ db: Database, path: String) throws -> (info: RecordingInfo, venue: RecordedVenue) {
        func bad(_ table: String, _ message: String) -> InputError { InputError(file: path, field: table, message) }
        try checkColumnTypes(db, path: path)
        guard let row = try RecordingRow.fetchOne(db) else { throw bad("recordings", "the recording has no header row") }
        guard let source = RecordingSource(rawValue: row.source) else { throw bad("recordings.source", "unknown source '\(row.source)'") }
        guard let radio = try RadioRow.fetchOne(db) else { throw bad("radio", "the recording has no radio model") }
        let beacons = try BeaconRow.order(Column("idx")).fetchAll(db)
        for (i, b) in beacons.enumerated() where b.idx != i { throw bad("beacons", "beacon indices are not 0, 1, 2, …") }
        var landmarks: [Landmark] = []
        for (i, l) in try LandmarkRow.order(Column("idx")).fetchAll(db).enumerated() {
            guard l.idx == i, let kind = Landmark.Kind(rawValue: l.kind) else { throw bad("landmarks", "malformed landmark row \(i)") }
            landmarks.append(Landmark(name: l.name, kind: kind, position: Point(l.x, l.y), facing: l.facing, width: l.width))
        }
        var rooms: [Room] = []
        for r in try RoomRow.order(Column("idx")).fetchAll(db) {
            // Exactly [[x, y], [x, y], …] (a truncated '[[0,0],[30,0' read as two corners).
            let compact = r.polygon.filter { !$0.isWhitespace }
            let corners = compact.hasPrefix("[[") && compact.hasSuffix("]]")
                ? compact.dropFirst(2).dropLast(2).components(separatedBy: "],[").map { pair -> Point? in
                    let xy = pair.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
                    guard xy.count == 2, let x = xy[0], let y = xy[1] else { return nil }
                    return Point(x, y)
                }
                : [nil]
            guard !corners.contains(where: { $0 == nil }) else {
                throw bad("rooms.polygon", "room '\(r.name)': expected [[x, y], …], found \(abbreviated(r.polygon))")
            }
            rooms.append(Room(name: r.name, area: r.area, polygon: Polygon(corners.compactMap { $0 })))
        }
        let walls = try WallRow.order(Column("idx")).fetchAll(db).map(\.wall)
        let info = RecordingInfo(name: row.name, source: source, venue: row.venue, created: row.created, notes: row.notes,
                                 walk: row.walk, seed: row.seed.flatMap { UInt64($0) }, scenarioYAML: row.scenarioYaml,
                                 timeOrigin: row.timeOrigin)
        let venue = RecordedVenue(name: row.venue, bounds: Rect(minX: row.minX, minY: row.minY, maxX: row.maxX, maxY: row.maxY),
                                  radio: radio.model, beacons: beacons.map(\.beacon), landmarks: landmarks, rooms: rooms,
                                  walls: walls)
        try venue.check(file: path)
        return (info, venue)
    }
}
