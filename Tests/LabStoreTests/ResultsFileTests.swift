import Foundation
import Testing
import LabCore
@testable import LabStore
import LabResults

@Suite struct ResultsFileTests {
    let sample = [
        EpochResult(scenario: "s", seed: 7, estimator: .fusion, walk: "tour", epoch: 3, t: 3.5, truth: Point(1.25, 2.5),
                    fix: Point(1.5, 2.0), uncertainty: 0.75, reason: nil, error: 0.5590, crlb: 0.25, beaconsHeard: 6,
                    roomHit: true, exhibitHit: false, friezeLooks: 2, friezeHits: 1),
        EpochResult(scenario: "s", seed: 7, estimator: .bearing, walk: "grid", epoch: 0, t: 0.5, truth: Point(3, 4),
                    fix: nil, uncertainty: nil, reason: "too-few-headings", error: nil, crlb: .infinity, beaconsHeard: 0,
                    roomHit: nil, exhibitHit: nil, friezeLooks: 0, friezeHits: 0),
    ]

    @Test func roundTrip() throws {
        let text = ResultsFile.encode(sample)
        let back = try ResultsFile.decode(text, file: "r.csv")
        #expect(back == sample)
        // A stated covariance round-trips too (6 decimals), and a file written before the column existed reads.
        var withCovariance = sample
        withCovariance[0].covariance = Covariance2(xx: 0.5, xy: -0.125, yy: 2.25)
        #expect(try ResultsFile.decode(ResultsFile.encode(withCovariance), file: "r.csv") == withCovariance)
        let older = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).prefix(20).joined(separator: ",") }
        #expect(older[0].hasSuffix("frieze_hits,pcrb"))
        #expect(try ResultsFile.decode(older.joined(separator: "\n") + "\n", file: "r.csv") == sample)
    }

    @Test func malformedRowsNameTheLineAndField() throws {
        var lines = ResultsFile.encode(sample).split(separator: "\n").map(String.init)
        lines[2] = lines[2].replacingOccurrences(of: ",3.0000,4.0000,", with: ",3.0000,four,")
        #expect(throws: InputError(file: "r.csv", line: 3, field: "truth_y", "expected a number, found 'four'")) {
            try ResultsFile.decode(lines.joined(separator: "\n"), file: "r.csv")
        }
        let header = try #require(throws: InputError.self) { try ResultsFile.decode("not,a,header\n", file: "r.csv") }
        #expect(header.location.line == 1 && header.location.field == "not"
                && header.message.hasPrefix("unknown column 'not'; expected scenario,seed,estimator,"), "\(header)")
        // Part of a covariance is refused with its field: an ellipse needs all three entries.
        var partial = sample
        partial[0].covariance = Covariance2(xx: 1, xy: 0, yy: 1)
        var rows = ResultsFile.encode(partial).split(separator: "\n").map(String.init)
        #expect(rows[1].hasSuffix(",1,0,1"))
        rows[1] = String(rows[1].dropLast())
        let error = try #require(throws: InputError.self) { try ResultsFile.decode(rows.joined(separator: "\n"), file: "r.csv") }
        #expect(error.location.line == 2 && error.location.field == "cov_yy" && error.description.contains("cov_yy is empty"), "\(error)")
        // A negative variance, or a cov_xy no covariance matrix can have, is refused with its field.
        let valid = ResultsFile.encode(partial)
        for (bad, field) in [(",-1,0,1", "cov_xx"), (",1,2,1", "cov_xy")] {
            let text = valid.replacingOccurrences(of: ",1,0,1\n", with: bad + "\n")
            let e = try #require(throws: InputError.self) { try ResultsFile.decode(text, file: "r.csv") }
            #expect(e.location.line == 2 && e.location.field == field, "\(e)")
        }
        // The writer keeps nine significant digits (a huge variance keeps its relation to the others) and leaves
        // empty what is no covariance, so the lab reads back every file it writes.
        var large = sample
        large[0].covariance = Covariance2(xx: 451457302.616363, xy: -6.1e9, yy: 8.2495e10)
        #expect(try ResultsFile.decode(ResultsFile.encode(large), file: "r.csv")[0].covariance != nil)
        large[0].covariance = Covariance2(xx: 1, xy: 2, yy: 1)
        #expect(try ResultsFile.decode(ResultsFile.encode(large), file: "r.csv")[0].covariance == nil)
        let short = try #require(throws: InputError.self) { try ResultsFile.decode(lines[0] + "\ns,1,fusion\n", file: "r.csv") }
        #expect(short.location.line == 2 && short.message.hasPrefix("expected 23 comma-separated fields (scenario,seed,")
                && short.message.hasSuffix("), found 3"), "\(short)")
        #expect(throws: InputError(file: "/nonexistent/results.csv", "cannot read the results file: no such file (run 'indoorlab compare --out DIR' first)")) {
            try ResultsFile.read(path: "/nonexistent/results.csv")
        }
    }

    /// Values the lab never writes are refused with their line and field (a stranger's edits: a truth of 10¹⁶ m
    /// crashed the heatmap, 1e308 s blanked the error-time figure, a duplicated row counted twice, an error of −1e308
    /// was plotted).
    @Test(arguments: [
        ("truth_x", "1e16", "expected -1000000–1000000 m, found 1e+16"),
        ("fix_y", "-2e6", "expected -1000000–1000000 m, found -2000000"),
        ("t", "1e308", "expected -1000000000–1000000000 s, found 1e+308"),
        ("error", "-1e308", "expected the fix's distance from the truth, 0.5590 m, found '-1e308'"),
        ("error", "7.5", "expected the fix's distance from the truth"),
        ("uncertainty", "-5", "expected an uncertainty ≥ 0 m, found '-5'"),
        ("crlb", "-1", "expected a bound ≥ 0 m² or inf"),
        ("beacons_heard", "-4", "expected a count ≥ 0, found -4"),
        ("epoch", "-3", "expected a count ≥ 0, found -3"),
        ("frieze_hits", "3", "expected at most frieze_looks (2), found 3"),
        ("reason", "bogus", "a row with a fix gives no reason, found 'bogus'"),
        ("fix_x", "", "a fix needs fix_x and fix_y together"),
    ])
    func valuesTheLabNeverWritesAreRefused(column: String, value: String, message: String) throws {
        var rows = ResultsFile.encode(sample).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let i = try #require(rows[0].firstIndex(of: column))
        rows[1][i] = value
        let text = rows.map { $0.joined(separator: ",") }.joined(separator: "\n") + "\n"
        let e = try #require(throws: InputError.self) { try ResultsFile.decode(text, file: "r.csv") }
        #expect(e.location.line == 2 && e.location.field == column && e.description.contains(message), "\(e)")
    }

    /// A row without a fix: a reason the lab knows, and no error; a row twice, or of another scenario, is refused.
    @Test func rowsWithoutAFixDuplicatesAndOtherScenariosAreRefused() throws {
        let text = ResultsFile.encode(sample)
        let bogus = text.replacingOccurrences(of: ",too-few-headings,", with: ",bogus,")
        let e1 = try #require(throws: InputError.self) { try ResultsFile.decode(bogus, file: "r.csv") }
        #expect(e1.location.line == 3 && e1.location.field == "reason" && e1.description.contains("expected a no-fix reason"), "\(e1)")
        let withError = text.replacingOccurrences(of: ",too-few-headings,,", with: ",too-few-headings,2.5,")
        let e2 = try #require(throws: InputError.self) { try ResultsFile.decode(withError, file: "r.csv") }
        #expect(e2.location.line == 3 && e2.location.field == "error", "\(e2)")
        let lines = text.split(separator: "\n")
        let twice = ([lines[0], lines[1], lines[2], lines[1]].joined(separator: "\n")) + "\n"
        let e3 = try #require(throws: InputError.self) { try ResultsFile.decode(twice, file: "r.csv") }
        #expect(e3.location.line == 4 && e3.description.contains("the same epoch as line 2"), "\(e3)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("results-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try text.write(toFile: dir + "/other-epochs.csv", atomically: true, encoding: .utf8)
        let e4 = try #require(throws: InputError.self) { try ResultsFile.read(path: dir + "/other-epochs.csv", scenario: "other") }
        #expect(e4.location.line == 2 && e4.location.field == "scenario" && e4.description.contains("expected scenario 'other'"), "\(e4)")
        #expect(try ResultsFile.read(path: dir + "/other-epochs.csv", scenario: "s") == sample)
        let e5 = try #require(throws: InputError.self) { try ResultsFile.read(path: dir) }
        #expect(e5.description.contains("is a directory, not a CSV file"), "\(e5)")
    }
}
