import Foundation
import LabCore

extension RecordingStore {
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
}
