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
        PartialFiles.removeStale(in: dir, writing: name)
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
}
