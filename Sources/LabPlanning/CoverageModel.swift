import Foundation
import LabCore
import LabSimulation

/// The bound-based prediction a planner searches with: for every walkable test point and every candidate
/// beacon position, the Fisher information that candidate would contribute there (the Cramér–Rao bound: `FisherInformation`),
/// precomputed once. Evaluating a layout is then a sum of 2×2 matrices per point.
///
/// A candidate counts at a point with its expected number of readings per scan window,
/// k·(1 − packet loss)·P(RSSI ≥ sensitivity), where the mean RSSI includes the walls crossed.
public struct CoverageModel: Sendable {
    public let scenario: Scenario
    public let points: [Point]
    public let candidates: [Point]
    /// Row-major [candidate][point] contributions (f11, f12, f22).
    let f11: [Double], f12: [Double], f22: [Double]

    /// P90 of the horizontal error of an efficient estimator whose error covariance is C, for a
    /// circular Gaussian: sqrt(−2 ln 0.1)·σ = 1.517·DRMS (DRMS = sqrt(trace C)).
    public static let p90PerDRMS = (-2 * log(0.1)).squareRoot() / 2.0.squareRoot()

    /// - Parameters:
    ///   - heights, p0s: per candidate (nil entries, or nil arrays: the phone's height and the radio's P0);
    ///     `candidateHeight` applies to all candidates when `heights` is nil.
    public init(scenario: Scenario, points: [Point], candidates: [Point], candidateHeight: Double? = nil,
                heights: [Double?]? = nil, p0s: [Double?]? = nil) {
        self.scenario = scenario
        self.points = points
        self.candidates = candidates
        var s = scenario
        s.beacons = candidates.enumerated().map {
            Beacon(id: "c\($0)", position: $1, height: heights?[$0] ?? candidateHeight, p0: p0s?[$0] ?? nil)
        }
        let pathLoss = PathLoss(scenario: s)
        let radio = scenario.radio
        let scale = FisherInformation.rssiScale(exponent: radio.exponent, sigma: radio.sigma)
        let n = points.count
        var a = [Double](repeating: 0, count: candidates.count * n), c = a, d = a
        for ci in candidates.indices {
            let dz = radio.heightOffset(beaconHeight: s.beacons[ci].height)
            for (pi, p) in points.enumerated() {
                let k = radio.expectedIndependentReadings(meanRSSI: pathLoss.meanRSSI(beacon: ci, at: p))
                if k == 0 { continue }
                let f = FisherInformation.rssi(dx: p.x - candidates[ci].x, dy: p.y - candidates[ci].y, dz: dz, readings: k, scale: scale)
                a[ci * n + pi] = f.xx; c[ci * n + pi] = f.xy; d[ci * n + pi] = f.yy
            }
        }
        f11 = a; f12 = c; f22 = d
    }

    /// Predicted P90 error at every point for a layout (candidate indices); +∞ where the geometry gives no fix.
    public func predictedP90(layout: [Int]) -> [Double] {
        var acc = Accumulator(count: points.count)
        for c in layout { acc.add(candidate: c, model: self) }
        return acc.p90()
    }

    /// Running sums of the Fisher information per point, for fast greedy search.
    struct Accumulator {
        var a: [Double], c: [Double], d: [Double]
        init(count: Int) { a = [Double](repeating: 0, count: count); c = a; d = a }

        mutating func add(candidate ci: Int, model m: CoverageModel, sign: Double = 1) {
            let n = m.points.count, base = ci * n
            for i in 0..<n {
                a[i] += sign * m.f11[base + i]; c[i] += sign * m.f12[base + i]; d[i] += sign * m.f22[base + i]
            }
        }

        func p90() -> [Double] { (0..<a.count).map { p90(at: $0) } }

        func p90(at i: Int) -> Double { CoverageModel.p90(a[i], c[i], d[i]) }

        /// Score of this accumulator plus candidate `ci`, without changing it.
        func score(adding ci: Int, model m: CoverageModel, target: Double) -> (covered: Int, meanLog: Double) {
            let n = m.points.count, base = ci * n
            var covered = 0, logs = 0.0
            for i in 0..<n {
                let e = CoverageModel.p90(a[i] + m.f11[base + i], c[i] + m.f12[base + i], d[i] + m.f22[base + i])
                if e <= target { covered += 1 }
                logs += log(min(e, 1e6))
            }
            return (covered, logs / Double(n))
        }
    }

    /// The predicted P90 error from the summed information (a, c, d) = (xx, xy, yy).
    static func p90(_ a: Double, _ c: Double, _ d: Double) -> Double {
        FisherInformation(xx: a, xy: c, yy: d).traceOfInverse.squareRoot() * p90PerDRMS
    }
}

/// Summary figures of per-point P90 errors.
public struct CoverageFigures: Sendable, Codable, Hashable {
    /// Share of the walkable points whose P90 error meets the target.
    public var coverage: Double
    /// The `coverage` quantile (nearest rank) of the per-point P90 errors: the target is met on the
    /// requested share of the area exactly when this is ≤ the target. (Not a P90 of anything unless the
    /// coverage is 0.9: it is the per-point P90 that the requested share of the points reach.)
    public var areaQuantile: Double
    /// Median of the per-point P90 errors.
    public var medianP90: Double

    public init(perPointP90 p: [Double], target: Double, coverage wanted: Double) {
        coverage = p.isEmpty ? 0 : Double(p.filter { $0 <= target }.count) / Double(p.count)
        let sorted = SortedSample(p)
        areaQuantile = sorted.isEmpty ? .infinity : sorted.quantile(wanted, method: .nearestRank)
        medianP90 = sorted.isEmpty ? .infinity : sorted.quantile(0.5, method: .nearestRank)
    }
}
