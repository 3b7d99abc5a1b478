import CFuzzDriver
import Foundation
import LabCore

/// A directory private to this process for the files a fuzz input becomes: in memory (`/dev/shm`) where the
/// system has it, removed at exit; directories of earlier runs whose process is gone are removed on start.
public enum Scratch {
    public static let root: String = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let prefix = "indoorlab-fuzz-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] where name.hasPrefix(prefix) {
            if let pid = Int32(name.dropFirst(prefix.count)), kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(atPath: base + "/" + name)
            }
        }
        let dir = base + "/" + prefix + String(getpid())
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: Scratch.root) }
        return dir
    }()

    /// `root/name`, emptied.
    public static func fresh(_ name: String) -> String {
        let dir = root + "/" + name
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Writes `bytes` to `path` (directories made as needed).
    public static func write<C: Collection>(_ bytes: C, to path: String) where C.Element == UInt8 {
        let dir = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }
}

/// One fuzz input holding several files: each starts at a line `=== NAME` (NAME a relative path) and runs to
/// the next such line. Bytes before the first marker are ignored; a name outside `allowed` is skipped, so a
/// mutation never writes outside the scratch directory. The seed corpus is made by `Fuzz/make-seeds`.
public func splitFiles(_ input: UnsafeRawBufferPointer, allowed: Set<String>) -> [(name: String, bytes: ArraySlice<UInt8>)] {
    let bytes = [UInt8](input)
    let marker: [UInt8] = Array("=== ".utf8)
    var starts: [(name: String, header: Int, body: Int)] = []
    var lineStart = 0
    while lineStart < bytes.count {
        let end = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.count
        if end - lineStart > marker.count, bytes[lineStart..<lineStart + marker.count].elementsEqual(marker) {
            let name = String(decoding: bytes[(lineStart + marker.count)..<end], as: UTF8.self)
            starts.append((name, lineStart, min(end + 1, bytes.count)))
        }
        lineStart = end + 1
    }
    var files: [(String, ArraySlice<UInt8>)] = []
    for (i, s) in starts.enumerated() where allowed.contains(s.name) {
        let end = i + 1 < starts.count ? starts[i + 1].header : bytes.count
        files.append((s.name, bytes[s.body..<end]))
    }
    return files
}

/// What a reader may do with bad input: throw ``InputError`` or ``InputErrors`` whose every message names a
/// file and says something readable. Anything else — another error type, an empty message, a Foundation
/// error domain leaking through, an unbounded echo of the input — is a finding: it is printed and the
/// process aborts, so libFuzzer keeps the input as a crash. Traps and memory errors abort by themselves.
public func expectOnlyInputErrors(_ target: String, _ body: () throws -> Void) {
    do {
        try body()
    } catch let e as InputErrors {
        if e.errors.isEmpty { finding(target, "InputErrors with no error") }
        for error in e.errors { check(error, target) }
    } catch let e as InputError {
        check(e, target)
    } catch {
        finding(target, "an error that is not an input error: \(type(of: error)): \(String(describing: error).prefix(2000))")
    }
}

/// The longest message a reader may give (long fields are abbreviated; no message echoes a whole input back).
public let longestMessage = 4_000

private func check(_ e: InputError, _ target: String) {
    let text = e.description
    if e.location.file.isEmpty { finding(target, "an input error naming no file: \(text.prefix(500))") }
    if e.message.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { finding(target, "an empty message: \(text.prefix(500))") }
    if text.contains("Error Domain") || text.contains("NSCocoaErrorDomain") {
        finding(target, "a Foundation error leaks into the message: \(text.prefix(500))")
    }
    if text.utf8.count > longestMessage { finding(target, "a message of \(text.utf8.count) bytes: \(text.prefix(500))…") }
}

/// Reports a finding and aborts (libFuzzer saves the input that caused it).
public func finding(_ target: String, _ what: String) -> Never {
    FileHandle.standardError.write(Data("\n[\(target)] FINDING: \(what)\n".utf8))
    abort()
}

/// Runs libFuzzer over `target` with the process's arguments (libFuzzer's flags and corpus directories) and
/// exits with its status.
public func runFuzzer(_ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, target))
}
