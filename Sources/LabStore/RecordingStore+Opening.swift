import Foundation
internal import GRDB
import LabCore

extension RecordingStore {
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
}
