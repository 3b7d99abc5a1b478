import Foundation
internal import GRDB
import LabCore

/// Who a live session's phone is (the `live_session` row of its recording).
public struct LiveSessionInfo: Sendable, Hashable {
    /// The phone's id as it introduced itself (also the recording's file name).
    public var phone: String
    /// The phone's model, as the app reports it.
    public var model: String
    /// The app's version.
    public var app: String
    /// A survey session: its checkpoints and taps are ground truth for `calibrate`.
    public var survey: Bool

    public init(phone: String, model: String, app: String, survey: Bool) {
        self.phone = phone; self.model = model; self.app = app; self.survey = survey
    }
}

/// A distance a phone ranged to a beacon (UWB, Bluetooth channel sounding), as a live session stores it.
public struct RecordedRange: Sendable, Hashable {
    public var t: Double
    public var beacon: Int
    public var distance: Double
    public var sigma: Double
    public var technology: String

    public init(t: Double, beacon: Int, distance: Double, sigma: Double, technology: String) {
        self.t = t; self.beacon = beacon; self.distance = distance; self.sigma = sigma; self.technology = technology
    }
}

/// What one batch of a live session's messages adds to its recording, committed in one transaction.
public struct LiveBatch: Sendable {
    public var rssi: [RSSIReading] = []
    public var ranges: [RecordedRange] = []
    public var headings: [HeadingReading] = []
    public var steps: [StepReading] = []
    public var truth: [TruthSample] = []
    /// The highest sequence number among the batch's messages.
    public var lastSequence: Int
    /// How many messages the batch holds.
    public var messages: Int

    public init(lastSequence: Int, messages: Int) { self.lastSequence = lastSequence; self.messages = messages }

    public var isEmpty: Bool { messages == 0 }

    /// Appends `other` (a later batch) to this one.
    public mutating func merge(_ other: LiveBatch) {
        rssi += other.rssi; ranges += other.ranges; headings += other.headings; steps += other.steps; truth += other.truth
        lastSequence = max(lastSequence, other.lastSequence); messages += other.messages
    }
}

/// One live phone session's recording, appended to batch by batch while the phone streams (`indoorlab serve`).
///
/// The file is created whole (``RecordingStore/create(at:info:venue:fill:)``: header, no samples) and then opened in
/// SQLite's write-ahead-log mode; each ``commit(_:)`` is one transaction that returns once SQLite has committed it, so
/// what the service acknowledges after it survives the process being killed (`synchronous = NORMAL`: the log is in the
/// operating system's hands at commit). Opening a recording that exists resumes it: its sequence number and time
/// origin are read back. ``close()`` checkpoints the log and returns the file to a rollback journal, a recording like
/// any other.
public final class LiveRecording: @unchecked Sendable {
    public let path: String
    /// The highest sequence number committed.
    public private(set) var lastSequence: Int
    /// Messages committed so far.
    public private(set) var messages: Int
    /// Unix time (s) of the recording's t = 0.
    public let timeOrigin: Double
    /// True when the file existed: the session goes on where it stopped.
    public let resumed: Bool
    private let venue: RecordedVenue
    private var queue: DatabaseQueue?
    /// The latest time committed (recording time), s: a session spans at most ``WorkBudget/maximumWindowsPerWalk`` windows.
    private var latest: Double

    /// Opens the session's recording at `path`, creating it when it does not exist (`info`'s time origin then is the
    /// session's; for an existing one, the file's).
    /// - Throws: ``InputError`` when the file is not a recording, is of another venue or phone, or cannot be written.
    public init(path: String, info: RecordingInfo, venue: RecordedVenue, session: LiveSessionInfo) throws {
        self.path = path
        self.venue = venue
        if !FileManager.default.fileExists(atPath: path) {
            guard info.timeOrigin != nil else { throw InputError(file: path, "a live recording needs its time origin") }
            try RecordingStore.create(at: path, info: info, venue: venue) { _ in }
        }
        do {
            var config = Configuration()
            config.busyMode = .timeout(RecordingStore.busyTimeout)
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                // Appending reads almost nothing back: a small page cache (256 KiB, not SQLite's 2 MiB) per session.
                try db.execute(sql: "PRAGMA cache_size = -256")
            }
            let queue = try DatabaseQueue(path: path, configuration: config)
            self.queue = queue
            let header = try queue.write { db -> (origin: Double?, venue: String, beacons: [String], session: Row?, latest: Double?) in
                try RecordingStore.check(db, path: path)
                guard try db.tableExists("live_session") else {
                    throw InputError(file: path, "a recording, but not a live session's (no live_session table): give the service another --recordings folder")
                }
                let origin = try Double.fetchOne(db, sql: "SELECT time_origin FROM recordings WHERE id = 1")
                let name = try String.fetchOne(db, sql: "SELECT venue FROM recordings WHERE id = 1") ?? ""
                let ids = try String.fetchAll(db, sql: "SELECT id FROM beacons ORDER BY idx")
                let row = try Row.fetchOne(db, sql: "SELECT phone, last_seq, messages FROM live_session WHERE id = 1")
                let latest = try Double.fetchOne(db, sql: "SELECT max(t) FROM (SELECT max(t) AS t FROM rssi_samples UNION ALL SELECT max(t) FROM range_samples UNION ALL SELECT max(t) FROM heading_samples UNION ALL SELECT max(t) FROM step_samples UNION ALL SELECT max(t) FROM ground_truth)")
                if row == nil {
                    try db.execute(sql: "INSERT INTO live_session (id, phone, model, app, survey, last_seq, messages) VALUES (1, ?, ?, ?, ?, -1, 0)",
                                   arguments: [session.phone, session.model, session.app, session.survey])
                }
                return (origin, name, ids, row, latest)
            }
            guard header.venue == info.venue, header.beacons == venue.beacons.map(\.id) else {
                throw InputError(file: path, "a recording of another venue ('\(header.venue)', \(header.beacons.count) beacons): this service serves '\(info.venue)'")
            }
            if let row = header.session {
                let phone: String = row["phone"]
                guard phone == session.phone else { throw InputError(file: path, "the recording of phone '\(phone)', not '\(session.phone)'") }
                lastSequence = row["last_seq"]; messages = row["messages"]; resumed = true
            } else {
                lastSequence = -1; messages = 0; resumed = false
            }
            guard let origin = header.origin else { throw InputError(file: path, "a live recording without a time origin") }
            timeOrigin = origin
            latest = header.latest ?? 0
        } catch let e as DatabaseError {
            try? queue?.close()
            throw RecordingStore.describe(e, path: path, writing: true)
        } catch {
            try? queue?.close()
            throw error
        }
    }

    deinit { try? queue?.close() }

    /// The recording time (s since ``timeOrigin``) of Unix time `t`.
    public func recordingTime(_ unix: Double) -> Double { unix - timeOrigin }

    /// The longest a session may run, s (``WorkBudget/maximumWindowsPerWalk`` scan windows).
    public var longestSpan: Double { venue.radio.scanWindow * Double(WorkBudget.maximumWindowsPerWalk) }

    /// Commits `batch` in one transaction; returns once it is committed.
    /// - Throws: ``InputError`` (nothing of the batch is stored then).
    public func commit(_ batch: LiveBatch) throws {
        guard let queue else { throw InputError(file: path, "the live recording is closed") }
        do {
            try queue.write { db in
                let writer = try RecordingWriter(db: db, venue: venue, file: path)
                for r in batch.rssi { try writer.append(r) }
                for h in batch.headings { try writer.append(h) }
                for s in batch.steps { try writer.append(s) }
                for s in batch.truth { try writer.append(s) }
                if !batch.ranges.isEmpty {
                    let statement = try db.cachedStatement(sql: "INSERT INTO range_samples (t, beacon, distance, sigma, technology) VALUES (?, ?, ?, ?, ?)")
                    for r in batch.ranges {
                        guard r.beacon >= 0, r.beacon < venue.beacons.count, r.t.isFinite, r.distance.isFinite, r.distance >= 0,
                              r.sigma.isFinite, r.sigma > 0 else {
                            throw InputError(file: path, field: "range_samples", "invalid range at t \(r.t)")
                        }
                        try statement.execute(arguments: [r.t, r.beacon, r.distance, r.sigma, r.technology])
                    }
                }
                let newest = ([latest] + batch.rssi.map(\.t) + batch.ranges.map(\.t) + batch.headings.map(\.t) + batch.steps.map(\.t) + batch.truth.map(\.t)).max()!
                if newest > longestSpan {
                    throw InputError(file: path, "the session has run \(Format.number(newest)) s, more than \(WorkBudget.maximumWindowsPerWalk) scan windows: start a new session")
                }
                try db.execute(sql: "UPDATE live_session SET last_seq = max(last_seq, ?), messages = messages + ? WHERE id = 1",
                               arguments: [batch.lastSequence, batch.messages])
                KillPoints.reached(.beforeCommit)
                latest = newest
            }
            lastSequence = max(lastSequence, batch.lastSequence)
            messages += batch.messages
        } catch let e as DatabaseError {
            throw RecordingStore.describe(e, path: path, writing: true)
        }
    }

    /// Checkpoints the log into the file and returns it to a rollback journal: the recording stands alone again.
    public func close() throws {
        guard let queue else { return }
        self.queue = nil
        do {
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                try db.execute(sql: "PRAGMA journal_mode = DELETE")
            }
            try queue.close()
        } catch let e as DatabaseError {
            try? queue.close()
            throw RecordingStore.describe(e, path: path, writing: true)
        }
    }
}
