import Foundation
internal import GRDB
import LabCore
import LabEstimators

/// Reads and writes recording files.
///
/// A new recording is written all-or-nothing: into a hidden temporary file next to the destination
/// (`.NAME.partial-PID`) inside one transaction, closed, flushed to disk, and only then linked into place
/// under its final name (never replacing an existing file). A failure deletes the temporary file; a process
/// killed mid-way leaves at most that hidden file, which the next write into the same directory removes
/// (with every other one whose writer is gone). Directories created for a write that fails are removed.
/// Every problem with a file a user gave is an ``InputError`` naming the file.
public enum RecordingStore {
    // MARK: - Writing a new recording

    /// Creates the recording at `path` from `info` and `venue`, then lets `fill` append the samples, all in one
    /// transaction.
    /// - Throws: ``InputError`` when `path` exists or cannot be written, anything `fill` throws (the
    ///   recording is not created then).
    @discardableResult
    public static func create(at path: String, info: RecordingInfo, venue: RecordedVenue,
                              fill: (RecordingWriter) throws -> Void) throws -> RecordingSummary {
        try venue.check(file: path)
        let infoProblems = info.problems()
        if !infoProblems.isEmpty { throw InputErrors(infoProblems.map { InputError(file: path, field: $0.field, $0.message) }) }
        try checkDestination(path)
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        var done = false
        let made = try makeDirectories(dir, for: path)
        defer { if !done { removeCreatedDirectories(made) } }
        removeStalePartials(directory: dir, name: name)
        let temp = dir + "/" + partialName(name, pid: getpid())
        unlinkDatabase(temp)
        defer { if !done { unlinkDatabase(temp) } }

        var summary = RecordingSummary(path: path, name: info.name, beacons: venue.beacons.count, rssiSamples: 0,
                                       headingSamples: 0, truthSamples: 0, duration: 0)
        do {
            var config = Configuration()
            // The file is private until renamed and deleted on failure: SQLite need not sync or journal to disk.
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = MEMORY")
                try db.execute(sql: "PRAGMA synchronous = OFF")
            }
            let queue = try DatabaseQueue(path: temp, configuration: config)
            do {
                try Schema.migrator.migrate(queue)
                try queue.write { db in
                    try insertHeader(db, info: info, venue: venue)
                    let writer = try RecordingWriter(db: db, venue: venue, file: path)
                    try fill(writer)
                    summary.rssiSamples = writer.rssiCount
                    summary.headingSamples = writer.headingCount
                    summary.stepSamples = writer.stepCount
                    summary.truthSamples = writer.truthCount
                    summary.duration = writer.timeSpan
                    KillPoints.reached(.beforeCommit)
                }
            } catch {
                try? queue.close()
                throw error
            }
            try queue.close()
        } catch let e as DatabaseError {
            throw InputError(file: path, "cannot write the recording: \(e.message ?? "\(e)")")
        }
        KillPoints.reached(.beforeFlush)
        try flush(temp)
        KillPoints.reached(.beforeLink)
        // link() fails rather than replace a file that appeared meanwhile; rename() as the fallback for
        // file systems without hard links.
        if link(temp, path) != 0 {
            let err = errno
            if err == EEXIST {
                throw InputError(file: path, "the file already exists; a recording is never overwritten (choose another name or delete it first)")
            }
            guard !exists(path), rename(temp, path) == 0 else {
                throw InputError(file: path, "cannot move the finished recording into place: \(String(cString: strerror(err)))")
            }
        } else {
            KillPoints.reached(.afterLink)
            unlink(temp)
        }
        done = true
        flushDirectory(dir)
        return summary
    }

    /// Writes a whole recording (samples and baselines) to a new file at `path`.
    @discardableResult
    public static func write(_ r: Recording, to path: String) throws -> RecordingSummary {
        try create(at: path, info: r.info, venue: r.venue) { w in
            for s in r.rssi { try w.append(s) }
            for h in r.headings { try w.append(h) }
            for s in r.steps ?? [] { try w.append(s) }
            for s in r.truth { try w.append(s) }
            try w.setBaselines(r.baselines)
        }
    }

    // MARK: - Reading

    /// Reads a whole recording after checking it is an intact recording of a schema this build knows.
    /// - Throws: ``InputError`` for a missing, non-SQLite, truncated or corrupt file, or another schema.
    public static func read(path: String) throws -> Recording {
        try withDatabase(path: path, writable: false) { db in try load(db, path: path) }
    }

    /// Checks that `path` is an intact recording (integrity check, schema) without loading the samples.
    public static func verify(path: String) throws {
        try withDatabase(path: path, writable: false) { _ in }
    }

    // MARK: - Changing an existing recording

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
    /// - Returns: every baseline of the recording after the update.
    @discardableResult
    public static func updateBaselines(_ fresh: [Baseline], estimators: Set<EstimatorKind>, path: String, file: String?) throws -> [Baseline] {
        try withDatabase(path: path, writable: true) { db in
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

    /// Replaces the radio model's P0, exponent and σ and, when given, its model error, its sensitivity and the
    /// per-beacon P0 (by beacon id), in one transaction. To store a model error, a recording older than its column (schema v3) is
    /// migrated first: one way, as older builds refuse a newer schema.
    public static func updateRadio(path: String, p0: Double, exponent: Double, sigma: Double, modelError: Double? = nil,
                                   sensitivity: Double? = nil, dropout: Double? = nil, beaconP0: [String: Double] = [:],
                                   materialLoss: [String: Double] = [:]) throws {
        if modelError != nil || dropout != nil { try upgradeSchema(path: path) }
        try withDatabase(path: path, writable: true) { db in
            try db.execute(sql: "UPDATE radio SET p0 = ?, exponent = ?, sigma = ? WHERE id = 1", arguments: [p0, exponent, sigma])
            if let sensitivity { try db.execute(sql: "UPDATE radio SET sensitivity = ? WHERE id = 1", arguments: [sensitivity]) }
            if let modelError { try db.execute(sql: "UPDATE radio SET model_error = ? WHERE id = 1", arguments: [modelError]) }
            if let dropout { try db.execute(sql: "UPDATE radio SET dropout = ? WHERE id = 1", arguments: [dropout]) }
            for (id, v) in beaconP0.sorted(by: { $0.key < $1.key }) {
                try db.execute(sql: "UPDATE beacons SET p0 = ? WHERE id = ?", arguments: [v, id])
            }
            for (m, v) in materialLoss.sorted(by: { $0.key < $1.key }) {
                try db.execute(sql: "UPDATE walls SET loss = ? WHERE material = ?", arguments: [v, m])
            }
        }
    }

    // MARK: - Internals

    /// Brings an intact recording's schema up to this build's; each migration runs in a transaction of its own.
    static func upgradeSchema(path: String) throws {
        let current = try withDatabase(path: path, writable: false) { db in
            try Set(Schema.migrator.appliedIdentifiers(db)) == Set(Schema.migrationIdentifiers)
        }
        guard !current else { return }
        do {
            var config = Configuration()
            config.busyMode = .timeout(busyTimeout)
            let queue = try DatabaseQueue(path: path, configuration: config)
            defer { try? queue.close() }
            try Schema.migrator.migrate(queue)
        } catch let e as DatabaseError {
            throw describe(e, path: path, writing: true)
        }
    }

    /// Checks, before any work, that a new recording can be written at `path`: not an existing file, a file
    /// name (not a directory), a name the file system accepts, and a parent that is a writable directory
    /// when it exists (missing parents are created).
    /// - Throws: ``InputError`` naming the path.
    public static func checkDestination(_ path: String) throws {
        if path.isEmpty { throw InputError(file: path, "expected a file name for the recording, found nothing") }
        if exists(path) {
            var st = stat()
            if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
                throw InputError(file: path, "is a directory; give the recording's file name (for example \(path.hasSuffix("/") ? path : path + "/")recording.sqlite)")
            }
            throw InputError(file: path, "the file already exists; a recording is never overwritten (choose another name or delete it first)")
        }
        if path.hasSuffix("/") { throw InputError(file: path, "names a directory; give the recording's file name (for example \(path)recording.sqlite)") }
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        if name.utf8.count > maximumNameBytes {
            throw InputError(file: path, "the file name is \(name.utf8.count) bytes long; file systems allow at most \(maximumNameBytes)")
        }
        // The nearest ancestor that exists must be a directory we can write into.
        var dir = url.deletingLastPathComponent().path
        while !exists(dir) && dir != "/" && !dir.isEmpty { dir = URL(fileURLWithPath: dir).deletingLastPathComponent().path }
        var st = stat()
        if stat(dir, &st) != 0 || (st.st_mode & S_IFMT) != S_IFDIR {
            throw InputError(file: path, "cannot create the recording: \(dir) is not a directory")
        }
        if access(dir, W_OK) != 0 { throw InputError(file: path, "cannot create the recording: the directory \(dir) is not writable") }
    }

    /// NAME_MAX of Linux file systems, bytes.
    static let maximumNameBytes = 255

    /// The hidden name a recording is written under until it is complete: `.NAME.partial-PID`, with NAME cut
    /// (at a character boundary) so that the whole stays within ``maximumNameBytes``.
    static func partialName(_ name: String, pid: Int32) -> String {
        let suffix = ".partial-\(pid)"
        let room = maximumNameBytes - 1 - suffix.utf8.count - "-journal".utf8.count
        var kept = ""
        for c in name {
            if kept.utf8.count + String(c).utf8.count > room { break }
            kept.append(c)
        }
        return "." + kept + suffix
    }

    /// Creates `dir` and its missing parents; returns those it created, parents first (for
    /// ``removeCreatedDirectories(_:)`` on failure).
    static func makeDirectories(_ dir: String, for path: String) throws -> [String] {
        var created: [String] = []
        if let problem = createDirectories(dir, created: &created) {
            removeCreatedDirectories(created)
            throw InputError(file: path, "cannot create the directory: \(problem)")
        }
        return created
    }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// Deletes the `.NAME.partial-PID` files (and their journals) that killed writers left in `directory`:
    /// those of the name being written (`name`) whose process no longer exists, and those of any other name
    /// whose process no longer exists and that have not changed for ``stalePartialAge`` (a writer in another
    /// PID namespace sharing the directory looks dead to `kill`, but its file keeps changing).
    static func removeStalePartials(directory: String, name: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        let mine = partialName(name, pid: 0).dropLast(1)   // ".NAME.partial-"
        let now = Date().timeIntervalSince1970
        for e in entries where e.hasPrefix(".") {
            guard let marker = e.range(of: ".partial-", options: .backwards) else { continue }
            var pidText = e[marker.upperBound...]
            if pidText.hasSuffix("-journal") { pidText = pidText.dropLast("-journal".count) }
            guard let pid = Int32(pidText), pid > 0, pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            var st = stat()
            guard lstat(directory + "/" + e, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            let old = now - Double(st.st_mtim.tv_sec) > stalePartialAge
            if e.hasPrefix(mine) || old { unlink(directory + "/" + e) }
        }
    }

    /// How long another name's partial file must be unchanged before a write in its directory removes it, s.
    static let stalePartialAge: TimeInterval = 600

    static func unlinkDatabase(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }

    static func flush(_ path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw InputError(file: path, "cannot reopen the finished recording: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw InputError(file: path, "cannot flush the recording to disk: \(String(cString: strerror(errno)))") }
    }

    static func flushDirectory(_ dir: String) {
        let fd = open(dir, O_RDONLY)
        if fd >= 0 { _ = fsync(fd); close(fd) }
    }

    static func insertHeader(_ db: Database, info: RecordingInfo, venue: RecordedVenue) throws {
        try RecordingRow(name: info.name, source: info.source.rawValue, venue: info.venue, created: info.created, notes: info.notes,
                         walk: info.walk, seed: info.seed.map(String.init), scenarioYaml: info.scenarioYAML,
                         timeOrigin: info.timeOrigin, minX: venue.bounds.minX, minY: venue.bounds.minY,
                         maxX: venue.bounds.maxX, maxY: venue.bounds.maxY).insert(db)
        try RadioRow(venue.radio).insert(db)
        for (i, b) in venue.beacons.enumerated() { try BeaconRow(b, index: i).insert(db) }
        for (i, l) in venue.landmarks.enumerated() { try LandmarkRow(l, index: i).insert(db) }
        for (i, r) in venue.rooms.enumerated() { try RoomRow(r, index: i).insert(db) }
        for (i, w) in venue.walls.enumerated() { try WallRow(w, index: i).insert(db) }
    }

    /// How long a command waits for another process's lock on a recording before giving up, seconds.
    /// `INDOORLAB_BUSY_TIMEOUT` (seconds) overrides it.
    public static var busyTimeout: TimeInterval {
        ProcessInfo.processInfo.environment["INDOORLAB_BUSY_TIMEOUT"].flatMap(TimeInterval.init).map { max(0, min($0, 3600)) } ?? 30
    }

    /// Opens an existing recording, checks it, and runs `body` on it inside one transaction (a consistent
    /// snapshot for readers; an immediate write lock for writers). Another process's lock is waited for up to
    /// ``busyTimeout``; a journal left by a killed writer is rolled back first.
    static func withDatabase<T>(path: String, writable: Bool, _ body: (Database) throws -> T) throws -> T {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw InputError(file: path, "no such file")
        }
        guard !isDir.boolValue else { throw InputError(file: path, "is a directory, not a recording") }
        guard FileManager.default.isReadableFile(atPath: path) else { throw InputError(file: path, "cannot read the file (permissions)") }
        if !writable { try rollBackInterruptedWrite(path) }
        do {
            var config = Configuration()
            config.readonly = !writable
            config.busyMode = .timeout(busyTimeout)
            let queue = try DatabaseQueue(path: path, configuration: config)
            defer { try? queue.close() }
            return try queue.inDatabase { db in
                var result: T?
                try db.inTransaction(writable ? .immediate : .deferred) {
                    try check(db, path: path)
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        } catch let e as DatabaseError {
            throw describe(e, path: path, writing: writable)
        } catch let e as RowDecodingError {
            throw describe(e, path: path)
        }
    }

    /// A value a record cannot decode (text in a date column, say: the column-type check covers numbers only).
    /// GRDB's description names the value and the column first, then prints the whole row: keep the first part.
    static func describe(_ e: RowDecodingError, path: String) -> InputError {
        let text = String(describing: e)
        let head = text.range(of: ", column index").map { String(text[..<$0.lowerBound]) } ?? text
        return InputError(file: path, "a value cannot be read (was the file edited?): \(abbreviated(head, limit: 200))")
    }

    /// A writer killed mid-transaction leaves a hot journal (`NAME-journal`); a read-only connection cannot
    /// roll it back and SQLite then calls the intact file read-only. Opening it once for writing rolls the
    /// journal back (SQLite decides whether it is hot: a live writer's journal is left alone, and waited for).
    static func rollBackInterruptedWrite(_ path: String) throws {
        var st = stat()
        guard stat(path + "-journal", &st) == 0, st.st_size > 0 else { return }
        // Without write permission the read-only open decides (it waits for a live writer's lock); only a hot
        // journal makes it fail, and ``describe(_:path:writing:)`` says what to do then.
        guard access(path, W_OK) == 0, access(URL(fileURLWithPath: path).deletingLastPathComponent().path, W_OK) == 0 else { return }
        do {
            var config = Configuration()
            config.busyMode = .timeout(busyTimeout)
            let queue = try DatabaseQueue(path: path, configuration: config)
            defer { try? queue.close() }
            _ = try queue.inDatabase { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        } catch let e as DatabaseError {
            throw describe(e, path: path, writing: true)
        }
    }

    static func describe(_ e: DatabaseError, path: String, writing: Bool = false) -> Error {
        switch e.resultCode {
        case .SQLITE_NOTADB:
            return InputError(file: path, "not an SQLite database (a recording is made by 'indoorlab record' or 'indoorlab import')")
        case .SQLITE_CORRUPT:
            return InputError(file: path, "the recording is damaged (truncated or corrupt): \(abbreviated(e.message ?? "malformed", limit: 300))")
        case .SQLITE_CANTOPEN:
            return InputError(file: path, "cannot open the file: \(e.message ?? "")")
        case .SQLITE_READONLY:
            var st = stat()
            if !writing && stat(path + "-journal", &st) == 0 && st.st_size > 0 {
                return InputError(file: path, "an interrupted write left a journal (\(path)-journal) that only a writable open can roll back; run the command once with write permission on the file and its directory")
            }
            return InputError(file: path, "the file is read-only: \(e.message ?? "")")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return FileBusy(file: path, "the recording is locked by another process (waited \(Format.number(busyTimeout)) s; INDOORLAB_BUSY_TIMEOUT sets the wait); nothing was \(writing ? "written" : "read")")
        case .SQLITE_FULL:
            return InputError(file: path, "cannot write the recording: the disk is full")
        default:
            return InputError(file: path, "cannot \(writing ? "update" : "read") the recording: \(e.message ?? "\(e)")")
        }
    }

    /// Application id, integrity and schema version.
    static func check(_ db: Database, path: String) throws {
        let appID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        let pageCount = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        if pageCount == 0 { throw InputError(file: path, "the file is empty, not a recording") }
        guard appID == Schema.applicationID else {
            throw InputError(file: path, "an SQLite database, but not an IndoorLab recording (application_id \(appID))")
        }
        let problems = try String.fetchAll(db, sql: "PRAGMA quick_check")
        if problems != ["ok"] {
            // quick_check lists up to 100 problems, each up to a line or more: the first three, each abbreviated.
            let shown = problems.prefix(3).map { abbreviated($0.replacingOccurrences(of: "\n", with: " "), limit: 200) }
            let more = problems.count > 3 ? "; … (\(problems.count - 3) more)" : ""
            throw InputError(file: path, "the recording is damaged (truncated or corrupt): \(shown.joined(separator: "; "))\(more)")
        }
        let applied = try Schema.migrator.appliedIdentifiers(db)
        let known = Set(Schema.migrationIdentifiers)
        if let unknown = applied.sorted().first(where: { !known.contains($0) }) {
            throw InputError(file: path, "written by a newer indoorlab (schema migration '\(unknown)'); update indoorlab to read it")
        }
        // An older recording has a prefix of the migrations (v1 without v2: no step table).
        if applied != Set(Schema.migrationIdentifiers.prefix(applied.count)) || applied.isEmpty {
            throw InputError(file: path, "incomplete schema (migrations \(applied.isEmpty ? "none" : applied.sorted().joined(separator: ", ")) of \(Schema.migrationIdentifiers.joined(separator: ", ")))")
        }
    }

    /// The numeric columns of each table, which of them may be NULL, and the schema migration that made them (an
    /// older recording has none of them). SQLite stores any value in any column; GRDB reads text where a number
    /// belongs as 0, so each is checked by its stored type before loading.
    static let integerColumns: Set<String> = ["idx", "beacon", "frieze", "target", "major", "minor", "quantize"]
    static let numericColumns: [(table: String, columns: [String], nullable: Set<String>, migration: String)] = [
        ("recordings", ["time_origin", "min_x", "min_y", "max_x", "max_y"], ["time_origin"], "v1"),
        ("radio", ["p0", "exponent", "sigma", "sensitivity", "quantize", "advertising_interval", "scan_window", "packet_loss",
                   "correlation_distance", "receiver_height"], ["correlation_distance"], "v1"),
        ("radio", ["model_error"], [], "v3"),
        ("radio", ["dropout"], [], "v4"),
        ("beacons", ["idx", "major", "minor", "x", "y", "height", "p0"], ["major", "minor", "height", "p0"], "v1"),
        ("landmarks", ["idx", "x", "y", "facing", "width"], ["facing"], "v1"),
        ("rooms", ["idx"], [], "v1"),
        ("walls", ["idx", "x1", "y1", "x2", "y2", "loss"], [], "v1"),
        ("rssi_samples", ["t", "beacon", "rssi"], [], "v1"),
        ("heading_samples", ["t", "heading", "accuracy", "frieze", "target"], ["frieze", "target"], "v1"),
        ("step_samples", ["t", "length", "heading", "length_accuracy", "heading_accuracy"], [], "v2"),
        ("ground_truth", ["t", "x", "y", "z"], ["z"], "v1"),
        ("baselines", ["value", "tolerance"], [], "v1"),
    ]

    /// Per table: its numeric columns, those that may be NULL, the migration that made them, and the query for the
    /// first row holding a value of the wrong type in one of them (built once).
    static let columnTypeQueries: [(table: String, columns: [String], nullable: Set<String>, migration: String, sql: String)] = numericColumns.map { table, columns, nullable, migration in
        let condition = columns.map { c in
            "typeof(\(c)) NOT IN ('integer'\(integerColumns.contains(c) ? "" : ", 'real'")\(nullable.contains(c) ? ", 'null'" : ""))"
        }.joined(separator: " OR ")
        let sql = "SELECT rowid, \(columns.map { "typeof(\($0)), quote(substr(\($0), 1, 40))" }.joined(separator: ", ")) FROM \(table) WHERE \(condition) LIMIT 1"
        return (table, columns, nullable, migration, sql)
    }

    /// The first value stored with the wrong type in a numeric column: its table, row and column.
    static func checkColumnTypes(_ db: Database, path: String) throws {
        let applied = Set(try Schema.migrator.appliedIdentifiers(db))
        for (table, columns, nullable, migration, sql) in columnTypeQueries {
            // Tables and columns of later migrations are absent from older recordings.
            guard applied.contains(migration) else { continue }
            guard let row = try Row.fetchOne(db, sql: sql) else { continue }
            let rowid: Int64 = row[0]
            for (k, c) in columns.enumerated() {
                let type: String = row[1 + 2 * k]
                if type == "integer" || (type == "real" && !integerColumns.contains(c)) || (type == "null" && nullable.contains(c)) { continue }
                let value: String = row[2 + 2 * k] ?? "NULL"
                throw InputError(file: path, field: "\(table) row \(rowid) column \(c)", "expected \(integerColumns.contains(c) ? "a whole number" : "a number"), found \(type) \(value)")
            }
        }
    }

    static func load(_ db: Database, path: String) throws -> Recording {
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

        var rssi: [RSSIReading] = []
        rssi.reserveCapacity(try Int.fetchOne(db, sql: "SELECT count(*) FROM rssi_samples") ?? 0)
        let rows = try Row.fetchCursor(db, sql: "SELECT t, beacon, rssi FROM rssi_samples ORDER BY rowid")
        while let r = try rows.next() {
            let t: Double = r[0], b: Int = r[1], v: Double = r[2]
            guard b >= 0, b < beacons.count else {
                throw bad("rssi_samples", "sample \(rssi.count + 1): beacon \(b) is no beacon of the recording (expected 0–\(beacons.count - 1))")
            }
            guard t.isFinite, RecordingImporter.plausibleRSSI.contains(v) else {
                throw bad("rssi_samples", "sample \(rssi.count + 1): beacon \(b), t \(t), rssi \(v) is not a valid sample (RSSI \(Format.number(RecordingImporter.plausibleRSSI.lowerBound))–\(Format.number(RecordingImporter.plausibleRSSI.upperBound)) dBm)")
            }
            rssi.append(RSSIReading(beacon: b, t: t, rssi: v))
        }
        var headings: [HeadingReading] = []
        let hrows = try Row.fetchCursor(db, sql: "SELECT t, heading, accuracy, frieze, target FROM heading_samples ORDER BY rowid")
        while let r = try hrows.next() {
            let h = HeadingReading(t: r[0], heading: r[1], accuracy: r[2], frieze: r[3], target: r[4])
            let valid = { (i: Int?) in i.map { $0 >= 0 && $0 < landmarks.count } ?? true }
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
        return Recording(info: info, venue: venue, rssi: rssi, headings: headings, steps: steps, truth: truth, baselines: baselines)
    }
}

/// Appends samples to a recording being created (valid only inside ``RecordingStore/create(at:info:venue:fill:)``).
/// Prepared statements are reused for every sample: an import runs at the speed of SQLite's B-tree.
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

    init(db: Database, venue: RecordedVenue, file: String) throws {
        self.db = db
        self.file = file
        rssiStatement = try db.makeStatement(sql: "INSERT INTO rssi_samples (t, beacon, rssi) VALUES (?, ?, ?)")
        headingStatement = try db.makeStatement(sql: "INSERT INTO heading_samples (t, heading, accuracy, frieze, target) VALUES (?, ?, ?, ?, ?)")
        stepStatement = try db.makeStatement(sql: "INSERT INTO step_samples (t, length, heading, length_accuracy, heading_accuracy) VALUES (?, ?, ?, ?, ?)")
        truthStatement = try db.makeStatement(sql: "INSERT INTO ground_truth (t, x, y, z, source) VALUES (?, ?, ?, ?, ?)")
        beaconCount = venue.beacons.count
        landmarkCount = venue.landmarks.count
    }

    var timeSpan: Double { tMax >= tMin ? tMax - tMin : 0 }
    private var rows: Int { rssiCount + headingCount + stepCount + truthCount }

    @inline(__always) private func see(_ t: Double) {
        if t < tMin { tMin = t }
        if t > tMax { tMax = t }
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
        see(r.t)
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
        see(h.t)
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
        see(s.t)
    }

    public func append(_ s: TruthSample) throws {
        guard s.isPlausible else {
            throw InputError(file: file, field: "ground_truth", "invalid truth sample at t \(s.t)")
        }
        truthStatement.setUncheckedArguments([s.t, s.position.x, s.position.y, s.z, s.source.rawValue])
        try truthStatement.execute()
        truthCount += 1
        KillPoints.wrote(rows: rows)
        see(s.t)
    }

    func setBaselines(_ baselines: [Baseline]) throws {
        let now = Date()
        for b in baselines {
            try BaselineRow(estimator: b.estimator.rawValue, metric: b.metric.rawValue, value: b.value, tolerance: b.tolerance, updated: now).save(db)
        }
    }
}
