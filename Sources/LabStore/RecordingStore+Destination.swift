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
    static let maximumNameBytes = PartialFiles.maximumNameBytes

    /// The hidden name a recording is written under until it is complete (``PartialFiles``): `.NAME.partial-PID`.
    static func partialName(_ name: String, pid: Int32) -> String { PartialFiles.name(for: name, pid: pid) }

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
