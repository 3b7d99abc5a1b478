import Foundation
import LabCore

/// The hidden names files are written under until they are whole, and the removal of those a killed process left.
///
/// Everything the lab renames into place (recordings, reports and results through ``OutputFile``, figures) is first
/// written as `.NAME.partial-PID[-TAG]` in the destination's directory: NAME the final file's name (cut so the whole
/// stays within NAME_MAX), PID the writing process, TAG what tells one process's files apart. A kill leaves that file
/// behind; the next write into the directory removes it (``removeStale(in:writing:)``), so no leftover outlives the
/// next run.
public enum PartialFiles {
    /// NAME_MAX of Linux file systems, bytes.
    public static let maximumNameBytes = 255

    /// The longest suffix SQLite adds to a database it writes (`-journal`); a partial name leaves room for it.
    static let journalSuffix = "-journal"

    /// The hidden name `finalName` is written under by process `pid`: `.NAME.partial-PID` and `tag` (e.g. "-3"), with
    /// NAME cut at a character boundary so that the whole and a journal suffix stay within ``maximumNameBytes``.
    public static func name(for finalName: String, pid: Int32 = getpid(), tag: String = "") -> String {
        let suffix = ".partial-\(pid)" + tag
        let room = maximumNameBytes - 1 - suffix.utf8.count - journalSuffix.utf8.count
        var kept = ""
        for c in finalName {
            if kept.utf8.count + String(c).utf8.count > room { break }
            kept.append(c)
        }
        return "." + kept + suffix
    }

    /// The writer's process of a partial (or legacy temporary) file name, or nil when `entry` is none.
    static func writer(of entry: String) -> Int32? {
        guard entry.hasPrefix(".") else { return nil }
        let rest: Substring
        if let marker = entry.range(of: ".partial-", options: .backwards) {
            rest = entry[marker.upperBound...]
        } else if entry.hasPrefix(legacyOutputPrefix) {
            rest = entry.dropFirst(legacyOutputPrefix.count)
        } else {
            return nil
        }
        let digits = rest.prefix(while: \.isASCII).prefix(while: \.isNumber)
        guard !digits.isEmpty, let pid = Int32(digits), pid > 0 else { return nil }
        let after = rest.dropFirst(digits.count)
        return after.isEmpty || after.hasPrefix("-") ? pid : nil
    }

    /// Earlier versions wrote reports and results as `.indoorlab-output-PID-N`.
    static let legacyOutputPrefix = ".indoorlab-output-"

    /// Deletes the partial files that killed writers left in `directory`: those of the file being written
    /// (`finalName`) whose process no longer exists, and those of any other name whose process no longer exists and
    /// that have not changed for ``staleAge`` (a writer in another PID namespace sharing the directory looks dead to
    /// `kill`, but its file keeps changing). Each directory is looked through once per name and process.
    public static func removeStale(in directory: String, writing finalName: String) {
        guard swept.firstVisit(directory + "/" + finalName) else { return }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        let mine = name(for: finalName, pid: 0).dropLast(1)   // ".NAME.partial-"
        let now = Date().timeIntervalSince1970
        for e in entries {
            guard let pid = writer(of: e), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            var st = stat()
            guard lstat(directory + "/" + e, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            let old = now - Double(st.st_mtim.tv_sec) > staleAge
            if e.hasPrefix(mine) || old { unlink(directory + "/" + e) }
        }
    }

    /// How long another name's partial file must be unchanged before a write in its directory removes it, s.
    public static let staleAge: TimeInterval = 600

    private static let swept = Visits()
    private final class Visits: @unchecked Sendable {
        private var seen = Set<String>()
        private let lock = NSLock()
        func firstVisit(_ key: String) -> Bool { lock.lock(); defer { lock.unlock() }; return seen.insert(key).inserted }
    }
}
