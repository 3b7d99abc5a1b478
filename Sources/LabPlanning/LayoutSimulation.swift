import Foundation
import LabCore
import LabSimulation
import LabEstimators

/// Confirms a layout by simulation: every walkable point, `draws` independent scan windows each,
/// located by one estimator; the P90 over the draws at each point. A draw without a fix counts as a miss
/// (infinite error). Draws run on all cores; the result does not depend on scheduling.
public struct LayoutSimulation: Sendable {
    public let scenario: Scenario
    public let points: [Point]
    public let estimator: EstimatorKind
    public let draws: Int
    public let seed: UInt64

    public init(scenario: Scenario, points: [Point], estimator: EstimatorKind, draws: Int = 20, seed: UInt64 = 1) {
        self.scenario = scenario; self.points = points; self.estimator = estimator; self.draws = draws; self.seed = seed
    }

    /// Per-point P90 error (metres) for the scenario with `beacons`.
    public func perPointP90(beacons: [Beacon]) throws -> [Double] {
        var s = scenario
        s.beacons = beacons
        let sim = try Simulator(scenario: s)
        let venue = Venue(s)
        let errors = ErrorGrid(points: points.count, draws: draws)
        DispatchQueue.concurrentPerform(iterations: draws) { d in
            // The shipped one-scan fix as the library runs it (the same positions, without the GSL path's cost).
            let est: any PositionEstimator = estimator == .shipped ? OffsetLearningEstimator.asShipped(venue: venue) : estimator.make(venue: venue)
            let epochs = sim.simulate(points: points, seed: seed &+ UInt64(d) &* 7919)
            var column = [Double](repeating: .infinity, count: points.count)
            for (i, e) in epochs.enumerated() {
                let o = Observation(readings: e.readings, headings: e.headings, beaconCount: venue.beaconCount)
                if let f = est.locate(o).fix { column[i] = f.position.distance(to: e.truth) }
            }
            errors.set(draw: d, column)
        }
        return errors.p90PerPoint()
    }
}

final class ErrorGrid: @unchecked Sendable {
    private var columns: [[Double]]
    private let lock = NSLock()
    init(points: Int, draws: Int) { columns = Array(repeating: [], count: draws) }
    func set(draw: Int, _ c: [Double]) { lock.lock(); columns[draw] = c; lock.unlock() }
    func p90PerPoint() -> [Double] {
        lock.lock(); defer { lock.unlock() }
        guard let n = columns.first?.count else { return [] }
        return (0..<n).map { i in
            // Nearest-rank P90 over the draws (a miss is +∞, which has a rank but no interpolation).
            SortedSample(columns.map { $0[i] }).quantile(0.9, method: .nearestRank)
        }
    }
}
