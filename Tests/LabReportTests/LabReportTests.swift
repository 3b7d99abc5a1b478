import Foundation
import Testing
import LabCore
import LabEstimators
@testable import LabEvaluation
import LabReport
import LabResults

@Suite struct TextTableTests {
    /// Text columns are left-aligned and columns of figures right-aligned (a number with its unit, a percentage, a dash
    /// for none); a padded last cell leaves no trailing blanks.
    @Test func renderAlignsTextLeftAndFiguresRight() {
        let table = TextTable.render([["name", "P75", "share", "note"],
                                      ["open-hall", "2.46 m", "93.5%", "ok"],
                                      ["smart-home", "—", "7%", "none"]])
        #expect(table == """
            name           P75  share  note
            open-hall   2.46 m  93.5%  ok
            smart-home       —     7%  none

            """)
    }

    /// Markdown: a column of figures is right-aligned ("---:"), "— → —" (no figure on either side) counting as one, a
    /// text column left; a `|` inside a cell is escaped.
    @Test func markdownAlignsFiguresEscapesBarsAndTakesADashArrowAsAFigure() {
        let table = TextTable.markdown([["estimator", "ideal → field", "note"],
                                        ["least-squares", "1.30 → 3.62", "x|y"],
                                        ["bearing", "— → —", "—"]])
        #expect(table == """
            | estimator | ideal → field | note |
            |---|---:|---|
            | least-squares | 1.30 → 3.62 | x\\|y |
            | bearing | — → — | — |

            """)
        // Without the arrow, a dash and a word make a text column.
        #expect(TextTable.markdown([["a"], ["— later"], ["soon"]]).contains("\n|---|\n"))
    }
}

@Suite struct CoverageTableTests {
    /// Two rows, one per condition and shadowing: the table as `coverage` prints it, then each condition's pooled share.
    @Test func textPrintsTheTableAndThePooledShares() {
        let rows = [
            CoverageRow(scenario: "open-hall", condition: .ideal, correlationDistance: nil, fixes: 200, inside: 190, walkFixes: 100,
                        walkInside: 96, walkMissesAcrossWall: 1, withoutEllipse: 0, medianSemiMajor: 1.234, neededScale: 0.91),
            CoverageRow(scenario: "esoc-office", condition: .field, correlationDistance: 3, fixes: 100, inside: 88, walkFixes: 0,
                        walkInside: 0, walkMissesAcrossWall: 0, withoutEllipse: 2, medianSemiMajor: 2.5, neededScale: 1.5),
        ]
        let text = CoverageTable(estimator: "offset-learning", seeds: [1, 2, 3, 4, 5], rows: rows).text()
        #expect(text == """
            # offset-learning: share of fixes whose 95% ellipse holds the truth (seeds 1–5)
            scenario     condition  shadowing       fixes  coverage  on walks  walk misses across a wall  median semi-major  scale for 95%
            open-hall    ideal      independent       200     95.0%     96.0%                      25.0%             1.23 m           0.91
            esoc-office  field      correlated 3 m    100     88.0%         -                          -             2.50 m           1.50
            # ideal, independent: 95.0% of 200 fixes (on walks 96.0% of 100)
            # field, correlated 3 m: 88.0% of 100 fixes

            """)
        #expect(CoverageTable(estimator: "x", seeds: [3], rows: rows).text().hasPrefix("# x: share of fixes whose 95% ellipse holds the truth (seed 3)\n"))
    }
}

@Suite struct ResultsDocumentTests {
    /// Three estimators on a simulated scenario, ideal ("hall") and field ("hall@field"), and a real protocol: least
    /// squares has the lowest mean P75 but collapses on the real protocol (3.2 m against centroid's 2.0 m, beyond 1.5×), so
    /// trilateration wins.
    static func leaderboard() -> Leaderboard {
        let errors: [(EstimatorKind, [String: Double])] = [
            (.leastSquares, ["hall": 0.5, "hall@field": 1.5, "uji-tx-12": 3.2]),
            (.trilateration, ["hall": 1.0, "hall@field": 2.0, "uji-tx-12": 2.5]),
            (.centroid, ["hall": 3.0, "hall@field": 3.0, "uji-tx-12": 2.0]),
        ]
        var results: [EpochResult] = []
        for (kind, byLabel) in errors {
            for label in ["hall", "hall@field", "uji-tx-12"] {
                let e = byLabel[label]!
                results += (0..<10).map { i in
                    EpochResult(scenario: label, seed: 1, estimator: kind, walk: "grid", epoch: i, t: Double(i), truth: .zero,
                                fix: Point(e, 0), uncertainty: nil, reason: nil, error: e, crlb: 1, beaconsHeard: 4, roomHit: nil,
                                exhibitHit: nil, friezeLooks: 0, friezeHits: 0)
                }
            }
        }
        return Leaderboard(results: results, scenarios: ["hall", "hall@field", "uji-tx-12"], seeds: [1], realProtocols: ["uji-tx-12"])
    }

    static func document() -> ResultsDocument {
        ResultsDocument(command: "indoorlab compare hall --seeds 1 --conditions ideal,field --real datasets", leaderboard: leaderboard(),
                        protocols: [(name: "uji-tx-12", summary: "UJI at −12 dBm, calibrated at −4 dBm")], references: [],
                        printed: "hall\nthe tables compare prints\n")
    }

    @Test func theWinnerLineNamesTheWinnerAndTheRule() {
        let text = Self.document().render()
        #expect(text.contains("\n## The winner\n\n**trilateration**. Rule: \(Leaderboard.ruleText).\n"), "\(text)")
        #expect(!text.contains("Best snapshot"), "a snapshot estimator won: no best snapshot line")
    }

    /// The leaderboard has a column per condition (mean P75) and per real protocol (P75 / mean), ranked by the rule, with
    /// why an estimator is not eligible.
    @Test func theLeaderboardHasAColumnPerConditionAndRealProtocol() {
        let text = Self.document().render()
        #expect(text.contains("""
            | rank | estimator | simulated, ideal (mean P75) | simulated, field (mean P75) | uji-tx-12 | eligible |
            |---:|---|---:|---:|---:|---|
            | 1 | trilateration | 1.00 | 2.00 | 2.50 / 2.50 | yes |
            | 2 | centroid | 3.00 | 3.00 | 2.00 / 2.00 | yes |
            | 3 | least-squares | 0.50 | 1.50 | 3.20 / 3.20 | no: collapses on uji-tx-12 |
            """), "\(text)")
        #expect(text.contains("| trilateration | 1.00 → 2.00 | 1.00 → 2.00 |"), "P75 per scenario, ideal → field: \(text)")
        #expect(text.contains("- **uji-tx-12**: UJI at −12 dBm, calibrated at −4 dBm\n"))
        #expect(text.hasSuffix("```text\nhall\nthe tables compare prints\n```\n"))
    }

    @Test func theSameInputRendersTheSameBytes() {
        let a = Self.document().render(), b = Self.document().render()
        #expect(Data(a.utf8) == Data(b.utf8))
    }
}
