import Foundation
import LabCore

/// Writing output files without losing anything: never a half-written file, never an input overwritten.
///
/// - A regular file (new or existing) is written to a hidden temporary file in the same directory (``PartialFiles``:
///   one a killed run left is removed by the next), flushed, and renamed over the destination, so a reader sees the
///   old file or the new one, nothing between.
/// - A symbolic link is written through: the file it points to is replaced and the link stays.
/// - Anything else that exists and is not a directory (`/dev/null`, `/dev/stdout`, a FIFO) is written to
///   directly, as a shell redirection would; a write error (`/dev/full`) is reported.
/// - An output that is one of the command's inputs (the same file, by device and inode, whatever the path)
///   is refused before anything is written.
public enum OutputFile {
    /// Writes `data` to `path`, creating its directory.
    /// - Parameter inputs: the files the command read; writing over one of them is refused.
    /// - Throws: ``InputError`` naming the file.
    public static func write(_ data: Data, to path: String, inputs: [String] = []) throws {
        try refuseInputs(path, inputs: inputs)
        var st = stat()
        // What the path finally is decides (stat follows links): /dev/stdout → a pipe or a terminal is written to.
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG && (st.st_mode & S_IFMT) != S_IFDIR {
            return try writeDirectly(data, to: path, named: path)
        }
        let target = resolvingLinks(path)
        if stat(target, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: throw InputError(file: path, "is a directory; give a file name")
            default: return try writeDirectly(data, to: target, named: path)
            }
        }
        let url = URL(fileURLWithPath: target)
        let dir = url.deletingLastPathComponent().path
        if let problem = createDirectories(dir) { throw InputError(file: path, "cannot create the directory: \(problem)") }
        PartialFiles.removeStale(in: dir, writing: url.lastPathComponent)
        // A name taken (a killed earlier process had this pid, in a container that reuses pids) → the next tag.
        var temp = "", fd: Int32 = -1
        for _ in 0..<64 {
            temp = dir + "/" + PartialFiles.name(for: url.lastPathComponent, tag: "-\(counter.next())")
            fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw InputError(file: path, "cannot write the output file: \(String(cString: strerror(errno)))") }
        var ok = false
        defer { if !ok { unlink(temp) } }
        do {
            defer { close(fd) }
            try writeAll(data, fd: fd, named: path)
            if stat(target, &st) == 0 { _ = fchmod(fd, st.st_mode & 0o7777) }  // a replaced file keeps its permissions
            guard fsync(fd) == 0 else { throw InputError(file: path, "cannot flush the output file: \(String(cString: strerror(errno)))") }
        }
        KillPoints.reached(.outputBeforeRename)
        guard rename(temp, target) == 0 else {
            throw InputError(file: path, "cannot move the output file into place: \(String(cString: strerror(errno)))")
        }
        ok = true
    }

    /// Whether `path` has a file name at its end: not empty, not ending in "/", "." or "..".
    public static func namesAFile(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        return !path.hasSuffix("/") && !name.isEmpty && name != "." && name != ".."
    }

    /// Refuses, before any work, a path that cannot name the output file (``namesAFile(_:)``), an existing
    /// directory, or a name longer than a file name may be (255 bytes).
    public static func refuseNonFiles(_ path: String) throws {
        guard namesAFile(path) else { throw InputError(file: path.isEmpty ? "''" : path, "is no file name: give the output file's name") }
        var st = stat()
        if stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { throw InputError(file: path, "is a directory; give a file name") }
        if (path.split(separator: "/").last?.utf8.count ?? 0) > 255 {
            throw InputError(file: abbreviated(path), "the file name is longer than 255 bytes")
        }
    }

    /// Throws when `path` is one of `inputs` (the same file, by device and inode; `stat` follows links), so a
    /// command can refuse such an output before any work, and ``write(_:to:inputs:)`` does again at the end.
    public static func refuseInputs(_ path: String, inputs: [String]) throws {
        for input in inputs where isSameFile(input, path) {
            throw InputError(file: path, "is also an input (\(input)); writing it would replace the input — choose another output")
        }
    }

    /// The file `path` finally names, following symbolic links (up to 40, as the kernel does); a dangling link
    /// gives the path it points to, so writing creates that file.
    public static func resolvingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK,
                  let dest = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
            current = dest.hasPrefix("/") ? dest : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(dest).path
        }
        return current
    }

    /// True when both paths exist and are the same file (same device and inode).
    public static func isSameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    private static func writeDirectly(_ data: Data, to target: String, named path: String) throws {
        let fd = open(target, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError(file: path, "cannot open the output for writing: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try writeAll(data, fd: fd, named: path)
    }

    private static func writeAll(_ data: Data, fd: Int32, named path: String) throws {
        try data.withUnsafeBytes { (buf: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + offset, buf.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw InputError(file: path, "cannot write the output file: \(String(cString: strerror(errno)))")
                }
                offset += n
            }
        }
    }

    /// The tags of this process's partial names: 1, 2, 3, … (internal for the tests).
    static let counter = Counter()
    final class Counter: @unchecked Sendable {
        private var value = 0
        private let lock = NSLock()
        func next() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
        var last: Int { lock.lock(); defer { lock.unlock() }; return value }
    }
}
