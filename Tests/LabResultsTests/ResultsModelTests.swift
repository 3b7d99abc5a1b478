import Foundation
import Testing
import LabCore
import LabEstimators
import LabResults

/// The results model's own rules: hit rates add, a leaderboard finds a score by scenario and estimator, a √CRLB map
/// says what makes it no map the lab could have written, and each record survives the one JSON format.
@Suite struct ResultsModelTests {
    @Test func hitRatesAddTheirHitsAndCases() {
        let sum = HitRate(hits: 3, cases: 4) + HitRate(hits: 1, cases: 6)
        #expect(sum == HitRate(hits: 4, cases: 10))
        #expect(sum.rate == 0.4)
        #expect(HitRate().rate == nil, "a question that never applied has no rate")
    }

    static func stats(p75: Double) -> ErrorStatistics {
        ErrorStatistics(count: 10, fixes: 9, availability: 0.9, mean: 1, median: 0.9, p75: p75, p90: 2, p95: 2.5, rmse: 1.2, max: 3)
    }

    @Test func aLeaderboardFindsEachScoreByScenarioAndEstimator() {
        let scores = [ScenarioScore(scenario: "a", estimator: .centroid, stats: Self.stats(p75: 1.5), roomHitRate: 0.5, exhibitHitRate: nil,
                                    friezeHitRate: nil, crlbRMSE: 1, efficiency: 1.2),
                      ScenarioScore(scenario: "b", estimator: .centroid, stats: Self.stats(p75: 2.5), roomHitRate: nil, exhibitHitRate: nil,
                                    friezeHitRate: nil, crlbRMSE: nil, efficiency: nil)]
        let board = Leaderboard(scenarios: ["a", "b"], seeds: [1], scores: scores, overall: [], winner: nil, rule: "r")
        #expect(board.score("b", .centroid)?.stats.p75 == 2.5)
        #expect(board.score("a", .proximity) == nil)
        #expect(board.score("c", .centroid) == nil)
    }

    static func map(values: [Double] = [1, .infinity, 0, 2], nx: Int = 2, ny: Int = 2) -> BoundMap {
        BoundMap(scenario: "hall", bounds: Rect(minX: 0, minY: 0, maxX: 4, maxY: 2), nx: nx, ny: ny, values: values,
                 readingsPerBeacon: 10, model: "m")
    }

    @Test func aBoundMapNamesWhatMakesItNoMap() {
        #expect(Self.map().problem(scenario: "hall") == nil, "∞ where no 2-D fix is a value a map may hold")
        #expect(Self.map().problem(scenario: "other")?.field == "scenario")
        #expect(Self.map(values: [1, 2, 3]).problem(scenario: "hall")?.message == "expected nx × ny = 2 × 2 values, found 3")
        #expect(Self.map(values: [1, -1, 0, 2]).problem(scenario: "hall")?.field == "values[1]")
        #expect(Self.map(values: [1, .nan, 0, 2]).problem(scenario: "hall")?.field == "values[1]")
        #expect(Self.map(nx: 0, ny: 2).problem(scenario: "hall")?.message == "expected at least 1 column, found 0")
        #expect(Self.map(nx: Int.max, ny: 2).problem(scenario: "hall")?.field == "values", "an overflowing grid is no grid")
    }

    @Test func recordsSurviveTheLabsJSON() throws {
        let stats = Self.stats(p75: 1.75)
        #expect(try LabJSON.decode(ErrorStatistics.self, from: Data(try LabJSON.string(stats).utf8), file: "t", as: "statistics") == stats)
        let map = Self.map()
        let back = try LabJSON.decode(BoundMap.self, from: Data(try LabJSON.string(map).utf8), file: "t", as: "a map")
        #expect(back == map, "∞ is written as a string and read back as ∞")
    }
}
