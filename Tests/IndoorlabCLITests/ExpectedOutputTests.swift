import Foundation
import Testing

/// Whole standard output of every command (here `plan`, `tune` and `plot`; the others and every `--help` in
/// EveryCommandOutputTests.swift), compared with a stored expectation, as swift-argument-parser tests its examples.
/// Durations ("0.6 s") are masked, and each test masks what else is a timing.
///
/// After an intended change of output, regenerate the expectations and review the diff:
///
///     INDOORLAB_RECORD_EXPECTED=1 swift test --filter ExpectedOutputTests
///     git diff Tests/IndoorlabCLITests/Expected
@Suite(.serialized) struct ExpectedOutputTests {
    static let expectedDir = root.appendingPathComponent("Tests/IndoorlabCLITests/Expected")
    static let recording = ProcessInfo.processInfo.environment["INDOORLAB_RECORD_EXPECTED"] == "1"

    /// Durations vary from run to run; everything else must not.
    static func normalised(_ text: String) -> String {
        text.replacingOccurrences(of: #"\b\d+\.\d+ s\b"#, with: "<duration> s", options: .regularExpression)
    }

    static func check(_ name: String, _ r: Run) throws {
        #expect(r.status == 0, "\(name): exit \(r.status)\n\(r.stderr)")
        let actual = normalised(r.stdout)
        let file = expectedDir.appendingPathComponent(name + ".txt")
        if recording {
            try actual.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        if actual != expected {
            let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
            let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let first = (0..<min(a.count, e.count)).first { a[$0] != e[$0] } ?? min(a.count, e.count)
            Issue.record("""
                \(name): output differs from \(file.lastPathComponent) at line \(first + 1)
                expected: \(first < e.count ? String(e[first]) : "<end>")
                actual:   \(first < a.count ? String(a[first]) : "<end>")
                (regenerate with INDOORLAB_RECORD_EXPECTED=1 if the change is intended)
                """)
        }
    }

    @Test func planPrintsItsSearchAndVerdict() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.check("plan", try indoorlab(["plan", "open-hall", "--target-p90", "2.5", "--draws", "4", "--plots", "plots",
                                              "-o", "planned.yaml"], cwd: dir))
    }

    @Test func tunePrintsBeforeAndAfter() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.check("tune", try indoorlab(["tune", "smart-home", "--draws", "3", "--beacons", "2", "-o", "tuned.yaml"], cwd: dir))
    }

    @Test func plotListsTheFiguresItDraws() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let compare = try indoorlab(["compare", "open-hall", "--seeds", "1", "--estimators", "least-squares,proximity",
                                     "--out", "results"], cwd: dir)
        #expect(compare.status == 0, "\(compare.stderr)")
        var out = ""
        for args in [["plot", "all", "--results", "results", "--out-dir", "figures", "--format", "png"],
                     ["plot", "cdf", "--results", "results", "--scenario", "open-hall", "--estimators", "proximity", "--out-dir", "figures"],
                     ["plot", "crlb", "--scenario", "open-hall", "--out-dir", "figures", "--format", "svg"]] {
            let r = try indoorlab(args, cwd: dir)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            out += "$ indoorlab \(args.joined(separator: " "))\n" + r.stdout
        }
        try Self.check("plot", Run(status: 0, stdout: out, stderr: ""))
    }
}
