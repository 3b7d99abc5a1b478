import Foundation
import LabCore
import LabEstimators
import LabEvaluation
import LabScenarioIO
import LabStore
import LabResults

/// A small venue and a small saved result, built in code and written like `compare --out` writes them (LabPlotTests'
/// Fixture, whose figures are drawn from it).
enum Fixture {
    static let scenarioName = "test-hall"

    /// 12 m × 8 m, two rooms split by a wall with a door, four beacons, an exhibit, a frieze, a QR code, one walk.
    static let scenario = Scenario(
        name: scenarioName,
        bounds: Rect(minX: 0, minY: 0, maxX: 12, maxY: 8),
        rooms: [
            Room(name: "West room", polygon: Polygon([Point(0, 0), Point(6, 0), Point(6, 8), Point(0, 8)])),
            Room(name: "East room", polygon: Polygon([Point(6, 0), Point(12, 0), Point(12, 8), Point(6, 8)])),
        ],
        walls: [
            Wall(segment: Segment(Point(0, 0), Point(12, 0)), loss: 5), Wall(segment: Segment(Point(12, 0), Point(12, 8)), loss: 5),
            Wall(segment: Segment(Point(12, 8), Point(0, 8)), loss: 5), Wall(segment: Segment(Point(0, 8), Point(0, 0)), loss: 5),
            Wall(segment: Segment(Point(6, 0), Point(6, 3)), loss: 3), Wall(segment: Segment(Point(6, 4.5), Point(6, 8)), loss: 3),
        ],
        beacons: [
            Beacon(id: "b1", position: Point(1, 1)), Beacon(id: "b2", position: Point(11, 1)),
            Beacon(id: "b3", position: Point(11, 7)), Beacon(id: "b4", position: Point(1, 7)),
        ],
        landmarks: [
            Landmark(name: "Statue", kind: .exhibit, position: Point(3, 4)),
            Landmark(name: "Mural", kind: .frieze, position: Point(9, 7.8), facing: 180, width: 3),
        ],
        checkpoints: [Checkpoint(id: "qr-door", position: Point(6, 3.75))],
        walks: [Walk(name: "loop", waypoints: [Point(2, 2), Point(10, 2), Point(10, 6), Point(2, 6), Point(2, 2)])],
        testGridSpacing: 2)

    static let seeds: [UInt64] = [1, 2]
    /// centroid never fixes here: its CDF and bars must show "no fixes" instead of a curve.
    static let estimators: [EstimatorKind] = [.leastSquares, .fusion, .centroid]

    /// Deterministic pseudo-random numbers in [0, 1).
    struct LCG {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
    }

    static func results() -> [EpochResult] {
        var out: [EpochResult] = []
        var walkPoints: [Point] = []
        let w = scenario.walks[0].waypoints
        for (a, b) in zip(w, w.dropFirst()) {
            for k in 0..<8 { walkPoints.append(a + (b - a) * (Double(k) / 8)) }
        }
        var grid: [Point] = []
        for y in stride(from: 1.0, to: 8, by: 2) { for x in stride(from: 1.0, to: 12, by: 2) { grid.append(Point(x, y)) } }
        for seed in seeds {
            var rng = LCG(state: seed)
            for est in estimators {
                let scale = est == .fusion ? 0.8 : 1.5
                for (walk, points) in [("loop", walkPoints), ("grid", grid)] {
                    for (i, p) in points.enumerated() {
                        var fix: Point? = nil
                        if est != .centroid {
                            let a = rng.next() * 2 * .pi, r = scale * (rng.next() + rng.next())
                            fix = Point(p.x + r * cos(a), p.y + r * sin(a))
                        }
                        var r = EpochResult(scenario: scenarioName, seed: seed, estimator: est, walk: walk, epoch: i, t: Double(i),
                                            truth: p, fix: fix, uncertainty: fix == nil ? nil : 1.0, reason: fix == nil ? "too-few-beacons" : nil,
                                            error: fix.map { $0.distance(to: p) }, crlb: 1.0, beaconsHeard: 4, roomHit: nil,
                                            exhibitHit: nil, friezeLooks: 0, friezeHits: 0)
                        // Walks carry the posterior bound (0.25 m², √ = 0.5 m).
                        if walk == "loop" { r.pcrb = 0.25 }
                        out.append(r)
                    }
                }
            }
        }
        return out
    }

    /// Writes `run.json` and `<scenario>-epochs.csv` into a new temporary directory; returns its path.
    static func writeResults(csv: String? = nil) throws -> String {
        let dir = temporaryDirectory("results")
        let rs = results()
        let board = Leaderboard(results: rs, scenarios: [scenarioName], seeds: seeds)
        let manifest = RunManifest(scenarios: [.init(name: scenarioName, path: dir + "/\(scenarioName).yaml")], seeds: seeds,
                                   estimators: estimators, leaderboard: board)
        try ResultsDirectory.write(results: rs, boundMaps: [scenarioName: BoundMapper.map(scenario)], manifest: manifest, to: dir)
        if let csv {
            try Data(csv.utf8).write(to: URL(fileURLWithPath: dir + "/" + RunManifest.resultsFileName(scenarioName)))
        }
        return dir
    }

    /// A new empty directory under the system's temporary directory (removed by `cleanUp`).
    static func temporaryDirectory(_ label: String) -> String {
        let dir = root + "/\(label)-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static let root = FileManager.default.temporaryDirectory.appendingPathComponent("labstore-tests-\(ProcessInfo.processInfo.processIdentifier)").path

    static func cleanUp(_ dirs: String...) {
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
    }
}
