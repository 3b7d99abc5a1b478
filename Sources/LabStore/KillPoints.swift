import Foundation

/// Defined places where a test may SIGKILL a writer, so a crash test interrupts a known phase instead of
/// whatever a wall-clock delay happens to hit on this machine.
///
/// Set `INDOORLAB_TEST_KILL_AT` to one of ``Point``'s names, or to `rows:N` to be killed right after the
/// N-th sample row is written. Used only by tests; unset, it costs one integer compare per row.
enum KillPoints {
    enum Point: String, CaseIterable {
        /// Every sample inserted, the transaction not yet committed.
        case beforeCommit = "before-commit"
        /// Committed and closed, the temporary file not yet flushed to disk.
        case beforeFlush = "before-flush"
        /// Flushed, not yet linked under its final name.
        case beforeLink = "before-link"
        /// Linked under its final name, the temporary name not yet removed.
        case afterLink = "after-link"
        /// `replay --update-baseline`: the old baselines deleted and the new inserted, not yet committed.
        case baselinesBeforeCommit = "baselines-before-commit"
        /// An output file (``OutputFile``: a report, a results file) written and flushed, not yet renamed into place.
        case outputBeforeRename = "output-before-rename"
    }

    static let setting = ProcessInfo.processInfo.environment["INDOORLAB_TEST_KILL_AT"]
    /// The row count to die after, or Int.max.
    static let afterRows: Int = {
        guard let s = setting, s.hasPrefix("rows:"), let n = Int(s.dropFirst(5)), n >= 0 else { return .max }
        return n
    }()

    /// Dies here when the setting names `point`.
    static func reached(_ point: Point) {
        if setting == point.rawValue { kill(getpid(), SIGKILL) }
    }

    /// Dies when `rows` samples have been written and the setting is `rows:N` with N = rows.
    @inline(__always) static func wrote(rows: Int) {
        if rows == afterRows { kill(getpid(), SIGKILL) }
    }
}
