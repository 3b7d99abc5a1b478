import Foundation
import Testing
import LabCore
import LabSimulation
import LabEstimators
@testable import LabEvaluation
import LabScenarioIO
import LabStore
import IndoorLocatorScenarios
import LabResults

let scenariosDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Scenarios").path

@Suite struct MetricsTests {
    @Test func statisticsOfAKnownSample() {
        let errors = (1...100).map(Double.init)
        // Out of order on purpose (a fixed permutation: reversed, then every other one first).
        let shuffled = errors.reversed().enumerated().sorted { ($0.offset % 2, $0.offset) < ($1.offset % 2, $1.offset) }.map(\.element)
        let s = ErrorStatistics(errors: shuffled, attempts: 125)
        #expect(s.count == 125 && s.fixes == 100)
        #expect(s.availability == 0.8)
        #expect(s.mean == 50.5)
        #expect(s.median == 50.5)
        #expect(abs(s.p75 - 75.25) < 1e-12)
        #expect(abs(s.p90 - 90.1) < 1e-12)
        #expect(abs(s.p95 - 95.05) < 1e-12)
        #expect(abs(s.rmse - (338350.0 / 100).squareRoot()) < 1e-12)
        #expect(s.max == 100)
    }

    @Test func noFixesGivesNaNNotACrash() {
        let s = ErrorStatistics(errors: [], attempts: 10)
        #expect(s.availability == 0)
        #expect(s.p75.isNaN)
    }
}

@Suite struct CramerRaoTests {
    @Test func fourBeaconsOnASquareMatchTheClosedForm() {
        // Beacons at (±a, ±a) around p: F = b/a² · I, so trace(F⁻¹) = 2a²/b.
        let a = 5.0
        let radio = RadioModel(exponent: 2.5, sigma: 6)
        let venue = Venue(name: "sq", bounds: Rect(minX: -10, minY: -10, maxX: 10, maxY: 10), radio: radio,
                          beaconIDs: ["1", "2", "3", "4"], beaconPositions: [Point(a, a), Point(-a, a), Point(-a, -a), Point(a, -a)],
                          beaconP0: [-59, -59, -59, -59], beaconHeightOffset: [0, 0, 0, 0])
        let b = pow(10 * 2.5 / (6 * log(10)), 2)
        let crlb = CramerRaoBound(venue: venue)
        #expect(abs(crlb.bound(at: .zero, beacons: (0..<4).map { ($0, 1) }) - 2 * a * a / b) < 1e-9)
        // k readings each: the bound shrinks by k.
        #expect(abs(crlb.bound(at: .zero, beacons: (0..<4).map { ($0, 10) }) - 2 * a * a / b / 10) < 1e-9)
        // On the line through two beacons, nothing is known across it: the bound is infinite.
        #expect(crlb.bound(at: Point(a, 0), beacons: [(0, 1), (3, 1)]) == .infinity)
    }

    @Test func theFieldBoundsCountTheBeaconSpread() {
        // Four beacons on a square around p, offset known: with spread σ_b each beacon's k readings count as
        // k' = k / (1 + k·σ_b²/σ²), so the closed form 2a²/(b·k') holds with k' for k.
        let a = 5.0, sigma = 6.0, k = 10.0
        let radio = RadioModel(exponent: 2.5, sigma: sigma)
        let venue = Venue(name: "sq", bounds: Rect(minX: -10, minY: -10, maxX: 10, maxY: 10), radio: radio,
                          beaconIDs: ["1", "2", "3", "4"], beaconPositions: [Point(a, a), Point(-a, a), Point(-a, -a), Point(a, -a)],
                          beaconP0: [-59, -59, -59, -59], beaconHeightOffset: [0, 0, 0, 0])
        let b = pow(10 * 2.5 / (sigma * log(10)), 2)
        let spread = CramerRaoBound(venue: venue, beaconSpread: 2)
        let kEff = k / (1 + k * 4 / (sigma * sigma))
        #expect(abs(spread.bound(at: .zero, beacons: (0..<4).map { ($0, Int(k)) }) - 2 * a * a / (b * kEff)) < 1e-9)
        // The field's bound (offset unknown, 3×3): with the spread, k readings of each beacon give what k' readings
        // give without it, beacon by beacon (here with unequal counts).
        let field = CramerRaoBound.judging(.field, venue: venue, impairments: .realistic)
        let j = field.perReadingInformation, sb = FieldImpairments.realistic.beaconP0Sigma
        let p = Point(1.5, -2), counts = [3.0, 10, 25, 1]
        let with = field.information(at: p, beacons: counts.enumerated().map { ($0.offset, $0.element) })
        let without = field.withoutBeaconSpread.information(at: p, beacons: counts.enumerated().map { ($0.offset, $0.element / (1 + $0.element * j * sb * sb)) })
        #expect(abs(with.xx - without.xx) < 1e-12 && abs(with.xy - without.xy) < 1e-12 && abs(with.yy - without.yy) < 1e-12)
        #expect(with.traceOfInverse > field.withoutBeaconSpread.information(at: p, beacons: counts.enumerated().map { ($0.offset, $0.element) }).traceOfInverse)
        // A walk's posterior bound carries each beacon's ΔP0 as a static state (the same all walk long). At the first
        // scan, marginalising them gives exactly the snapshot's effective readings, with the walk's prior on the
        // position and δ; all walk long the bound stays above the one of a tracker told every P0.
        let walk = (0..<5).map { t in (truth: Point(Double(t) - 2, 0.5), t: Double(t), beacons: (0..<4).map { (beacon: $0, readings: 8.0) },
                                       bearings: [(landmark: Point, sigmaDegrees: Double)]()) }
        let posterior = PosteriorBound(bound: field)
        #expect(posterior.beaconSpread == sb && posterior.bound.beaconSpread == 0)
        let withSpread = posterior.bounds(walk: walk), told = PosteriorBound(bound: field.withoutBeaconSpread).bounds(walk: walk)
        var first = field.offsetInformation(at: walk[0].truth, beacons: walk[0].beacons)
        first.offset += 1 / (PosteriorBound.defaultOffsetSigma * PosteriorBound.defaultOffsetSigma)
        var expected = first.positionWithUnknownOffset
        expected += FisherInformation(xx: 12 / (20 * 20), xy: 0, yy: 12 / (20 * 20))
        #expect(abs(withSpread[0] - expected.traceOfInverse) < 1e-9 * expected.traceOfInverse, "\(withSpread[0]) vs \(expected.traceOfInverse)")
        #expect(zip(withSpread, told).allSatisfy { $0 > $1 }, "\(withSpread) vs \(told)")
        #expect(CramerRaoBound.judging(.ideal, venue: venue, impairments: .realistic).beaconSpread == 0)
    }

    @Test func bearingsAddInformation() {
        let venue = Venue(name: "b", bounds: Rect(minX: -10, minY: -10, maxX: 10, maxY: 10), radio: RadioModel(),
                          beaconIDs: ["1", "2", "3"], beaconPositions: [Point(5, 0), Point(-5, 0), Point(0, 5)],
                          beaconP0: [-59, -59, -59], beaconHeightOffset: [0, 0, 0])
        let crlb = CramerRaoBound(venue: venue)
        let rssiOnly = crlb.bound(at: .zero, beacons: [(0, 1), (1, 1), (2, 1)])
        let fused = crlb.bound(at: .zero, beacons: [(0, 1), (1, 1), (2, 1)], bearings: [(Point(0, 20), 5), (Point(20, 0), 5)])
        #expect(fused < rssiOnly)
        // Two perpendicular bearings alone, σθ = 5°, at 20 m: σ⊥ = 20·tan-ish = 20·σθ each axis.
        let only = crlb.bound(at: .zero, beacons: [], bearings: [(Point(0, 20), 5), (Point(20, 0), 5)])
        let s = 20 * 5 * Double.pi / 180
        #expect(abs(only - 2 * s * s) < 1e-9)
    }
}

@Suite struct TournamentTests {
    @Test func leastSquaresComesWithin15PercentOfTheBoundInTheOpenHall() throws {
        let s = try ScenarioLoader.load(path: scenariosDir + "/open-hall.yaml")
        #expect(s.radio.sigma == 4)
        let results = try Tournament(scenarios: [s], seeds: Array(1...5), estimators: [.leastSquares]).run()
        let score = ScenarioScore(scenario: s.name, estimator: .leastSquares, results: results)
        let efficiency = try #require(score.efficiency)
        #expect(score.stats.availability > 0.99)
        #expect(score.stats.fixes > 1000)
        #expect(abs(efficiency - 1) <= 0.15, "RMSE \(score.stats.rmse) m vs sqrt(mean CRLB) \(score.crlbRMSE ?? .nan) m")
    }

    @Test func sameSeedsGiveIdenticalResultsWhateverTheScheduling() throws {
        let names = ["open-hall", "smart-home"]
        let scenarios = try names.map { try ScenarioLoader.load(path: scenariosDir + "/\($0).yaml") }
        let t = Tournament(scenarios: scenarios, seeds: [3, 4], estimators: [.trilateration, .leastSquares, .proximity])
        let a = try t.run(), b = try t.run()
        #expect(a == b)
        #expect(ResultsFile.encode(a) == ResultsFile.encode(b))
        let c = try Tournament(scenarios: scenarios, seeds: [5, 6], estimators: [.trilateration, .leastSquares, .proximity]).run()
        #expect(ResultsFile.encode(a) != ResultsFile.encode(c))
    }

    @Test func leaderboardPicksTheLowestMeanP75AmongAvailableEstimators() {
        func results(_ est: EstimatorKind, scenario: String, errors: [Double?]) -> [EpochResult] {
            errors.enumerated().map { i, e in
                EpochResult(scenario: scenario, seed: 1, estimator: est, walk: "grid", epoch: i, t: 0, truth: .zero,
                            fix: e.map { _ in .zero }, uncertainty: nil, reason: e == nil ? "too-few-beacons" : nil,
                            error: e, crlb: 1, beaconsHeard: 3, roomHit: nil, exhibitHit: nil, friezeLooks: 0, friezeHits: 0)
            }
        }
        let good = Array(repeating: Optional(1.0), count: 10)
        let better = Array(repeating: Optional(0.5), count: 10)
        let sparse = Array(repeating: Optional(0.1), count: 8) + [nil, nil]  // 80 % availability
        var all: [EpochResult] = []
        for s in ["a", "b"] {
            all += results(.trilateration, scenario: s, errors: good)
            all += results(.leastSquares, scenario: s, errors: s == "a" ? better : good)
            all += results(.bearing, scenario: s, errors: sparse)
        }
        let board = Leaderboard(results: all, scenarios: ["a", "b"], seeds: [1])
        #expect(board.winner == .leastSquares)
        #expect(board.overall.map(\.estimator) == [.leastSquares, .trilateration, .bearing])
        #expect(board.overall.last?.eligible == false)
        #expect(abs(board.overall[0].meanP75 - 0.75) < 1e-12)

        // A real protocol "r" where least-squares is 1.6 × the best baseline (centroid): it collapses and
        // cannot win, though its mean P75 is the lowest.
        var withReal = all
        withReal += results(.leastSquares, scenario: "r", errors: Array(repeating: Optional(1.6), count: 10))
        withReal += results(.trilateration, scenario: "r", errors: Array(repeating: Optional(1.4), count: 10))
        for label in ["a", "b", "r"] { withReal += results(.centroid, scenario: label, errors: Array(repeating: Optional(label == "r" ? 1.0 : 3.0), count: 10)) }
        withReal += results(.bearing, scenario: "r", errors: sparse)
        let real = Leaderboard(results: withReal, scenarios: ["a", "b", "r"], seeds: [1], realProtocols: ["r"])
        #expect(real.winner == .trilateration)
        #expect(real.overall.first { $0.estimator == .leastSquares }?.collapsedOn == ["r"])
        #expect(real.overall.first { $0.estimator == .trilateration }?.collapsedOn == [])
        // Without the label marked real, the same results let least-squares win.
        #expect(Leaderboard(results: withReal, scenarios: ["a", "b", "r"], seeds: [1]).winner == .leastSquares)
    }

    /// In the tournament a walk goes to trackers whole and each static test point is a track of its own: the
    /// smoother and the filter agree on the grid and differ on walks.
    @Test func trackersRunWalksWholeAndGridPointsAlone() throws {
        let scenario = try BundledScenarios.load("museum-gallery")
        let t = Tournament(scenarios: [scenario], seeds: [4], estimators: [.ekf, .ekfSmoother])
        let results = try t.run()
        let grid = results.filter { $0.walk == "grid" }, walks = results.filter { $0.walk != "grid" }
        #expect(!grid.isEmpty && !walks.isEmpty)
        func pairs(_ r: [EpochResult]) -> [(EpochResult, EpochResult)] {
            stride(from: 0, to: r.count, by: 2).map { (r[$0], r[$0 + 1]) }
        }
        #expect(pairs(grid).allSatisfy { $0.0.estimator == .ekf && $0.1.estimator == .ekfSmoother && $0.0.fix == $0.1.fix })
        #expect(pairs(walks).filter { $0.0.fix != $0.1.fix }.count > walks.count / 4)
    }
}

/// The √CRLB map counts readings as the planner does, and agrees with the per-epoch bound where every
/// beacon is heard for sure.
@Suite struct BoundMapTests {
    @Test(arguments: [nil, 5.0])
    func mapEqualsThePerEpochBoundWhereEveryBeaconIsHeard(correlation: Double?) throws {
        var s = try ScenarioLoader.load(path: scenariosDir + "/open-hall.yaml")
        s.radio.sensitivity = -300
        s.radio.packetLoss = 0
        s.radio.correlationDistance = correlation
        let map = BoundMapper.map(s)
        let bound = CramerRaoBound(venue: Venue(s))
        // One independent reading per beacon with correlated shadowing, every advertisement otherwise.
        let k = correlation == nil ? s.radio.advertisementsPerWindow : 1
        for (ix, iy) in [(3, 4), (20, 10), (40, 30)] {
            let p = Point(s.bounds.width * Double(ix) / Double(map.nx - 1), s.bounds.height * Double(iy) / Double(map.ny - 1))
            let table = bound.bound(at: p, beacons: s.beacons.indices.map { ($0, k) }).squareRoot()
            let onMap = map.values[iy * map.nx + ix]
            #expect(abs(onMap - table) < 1e-9 * table, "at \(p): map \(onMap), per-epoch bound \(table)")
        }
    }
}

/// The real-data protocols against an independent reference: a scipy computation on the same UJI scans
/// (≥ 4 beacons heard, radio model from Tx −4 dBm) gave a power-weighted-centroid mean error of 2.51 m at
/// −12 dBm and 2.33 m at −20 dBm, and ML with the offset as a third unknown 2.52 and 2.56 m.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: realDatasets + "/uji-ble-geo/dep/geo.csv"), "needs ../shared/datasets"))
struct RealProtocolTests {
    static let results: [String: [EpochResult]] = {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("real-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let protocols = try! RealProtocols.bundled(datasets: realDatasets, scratch: scratch, includeMatched: true)
        var out: [String: [EpochResult]] = [:]
        for p in protocols {
            out[p.name] = try! p.run(estimators: p.name.hasPrefix("uji-tx") ? [.powerCentroid, .offsetFree, .floorplanFusion, .shipped] + Leaderboard.baselines
                                                                        : [.shipped] + Leaderboard.baselines,
                                 seed: 1)   // compare's default seed
        }
        return out
    }()

    /// The mean error over the scans that heard at least `heard` beacons (the protocols score every scan that heard one;
    /// the reference scored those that heard four).
    static func mean(_ protocolName: String, _ kind: EstimatorKind, heard: Int = 1) -> Double {
        let errors = (results[protocolName] ?? []).filter { $0.estimator == kind && $0.beaconsHeard >= heard }.compactMap(\.error)
        return errors.reduce(0, +) / Double(max(errors.count, 1))
    }

    /// The particle filter on real data draws from the run's seed (`compare --seed`): the same seed repeats its fixes,
    /// another gives other draws.
    @Test func theRealProtocolsDrawFromTheRunsSeed() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("real-seed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let p = try #require(try RealProtocols.bundled(datasets: realDatasets, scratch: scratch).first { $0.name == "uji-odd-points" })
        let fixes = { (seed: UInt64) in try p.run(estimators: [.shippedTracker], seed: seed).map(\.fix) }
        let one = try fixes(1)
        #expect(one.count > 100 && one.allSatisfy { $0 != nil })
        #expect(try fixes(1) == one)
        #expect(try fixes(2) != one)
    }

    /// Over several seeds (`compare --seeds`), a real protocol runs the estimators that draw once per seed, each seed's
    /// fixes those of a one-seed run with it, and the others once, with the first seed: their fixes no seed changes.
    @Test func theRealProtocolsRunTheParticleFilterOnEverySeedAndTheOthersOnce() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("real-seeds-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let p = try #require(try RealProtocols.bundled(datasets: realDatasets, scratch: scratch).first { $0.name == "uji-odd-points" })
        #expect(EstimatorKind.shippedTracker.inputs.draws && EstimatorKind.particleSmoother.inputs.draws)
        #expect(EstimatorKind.allCases.filter(\.inputs.draws).count == 2)
        let kinds: [EstimatorKind] = [.shippedTracker, .powerCentroid]
        let pooled = try p.run(estimators: kinds, seeds: [3, 4, 5])
        let seedsOf = { (k: EstimatorKind) in Set(pooled.filter { $0.estimator == k }.map(\.seed)) }
        #expect(seedsOf(.shippedTracker) == [3, 4, 5])
        #expect(seedsOf(.powerCentroid) == [3])
        for seed: UInt64 in [3, 5] {
            let alone = try p.run(estimators: [.shippedTracker], seed: seed).map(\.fix)
            #expect(pooled.filter { $0.estimator == .shippedTracker && $0.seed == seed }.map(\.fix) == alone)
        }
        #expect(try p.run(estimators: [.powerCentroid], seed: 9).map(\.fix) == pooled.filter { $0.estimator == .powerCentroid }.map(\.fix))
    }

    @Test func powerCentroidMatchesTheReference() {
        #expect(abs(Self.mean("uji-tx-12", .powerCentroid, heard: 4) - 2.51) < 0.02)
        #expect(abs(Self.mean("uji-tx-20", .powerCentroid, heard: 4) - 2.33) < 0.02)
    }

    /// The target: the shipped estimator at −12/−20 dBm with the −4 dBm model is within 10% of its error
    /// with the matching calibration, and does not collapse (≤ 1.5 × the best baseline) on any protocol.
    @Test func theShippedEstimatorHoldsOnRealData() {
        for name in ["uji-tx-12", "uji-tx-20"] {
            let cross = Self.mean(name, .shipped), matched = Self.mean(name + "-matched", .shipped)
            #expect(cross <= 1.10 * matched, "\(name): \(cross) m cross-calibrated vs \(matched) m matched")
        }
        for name in Self.results.keys where !name.hasSuffix("-matched") {
            let best = Leaderboard.baselines.map { Self.mean(name, $0) }.min()!
            #expect(Self.mean(name, .shipped) <= Leaderboard.collapseFactor * best, "\(name)")
        }
        #expect(Self.results.count == 7)
    }

    /// The calibration part's survey as a radio map (``RealProtocol/surveyed``) takes the particle filter's mean error down
    /// on Daniş both ways and on UJI at −20 dBm (seed 1).
    @Test func theSurveyHelpsTheParticleFilter() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("real-survey-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for p in try RealProtocols.bundled(datasets: realDatasets, scratch: scratch) where ["danis-a-to-b", "danis-b-to-a", "uji-tx-20"].contains(p.name) {
            func mean(_ r: [EpochResult]) -> Double { let e = r.compactMap(\.error); return e.reduce(0, +) / Double(e.count) }
            var surveyed = p
            surveyed.surveyed = true
            let without = mean(try p.run(estimators: [.shippedTracker], seed: 1)), with = mean(try surveyed.run(estimators: [.shippedTracker], seed: 1))
            #expect(with < 0.97 * without, "\(p.name): \(with) m with the survey, \(without) m without")
        }
    }

    @Test func theOffsetFreeFitSurvivesTheUnknownOffsetAndTheFixedModelDoesNot() {
        for name in ["uji-tx-12", "uji-tx-20"] {
            let offsetFree = Self.mean(name, .offsetFree, heard: 4), fixed = Self.mean(name, .floorplanFusion, heard: 4)
            #expect(offsetFree < 2.6, "\(name): offset-free \(offsetFree) m (reference 2.52–2.56 m)")
            #expect(fixed > 1.5 * offsetFree, "\(name): the fixed-offset fit \(fixed) m should collapse")
        }
    }
}

let realDatasets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/datasets").path
