import Foundation
import LabCore
import LabSimulation

/// The bound-based prediction a planner searches with: for every walkable test point and every candidate
/// beacon position, the Fisher information that candidate would contribute there (the Cramér–Rao bound: `FisherInformation`),
/// precomputed once. Evaluating a layout is then a sum of 2×2 matrices per point.
///
/// A candidate counts at a point with its expected number of readings per scan window,
/// k·(1 − packet loss)·P(RSSI ≥ sensitivity), where the mean RSSI includes the walls crossed. Where that is none
/// (beyond the candidate's hearing range) it adds nothing, so each candidate keeps only the points it reaches: the
/// model's size, and the work of adding a candidate or scoring one, grow with the hearing range, not the venue.
public struct CoverageModel: Sendable {
    public let scenario: Scenario
    public let points: [Point]
    public let candidates: [Point]
    /// Candidate c's contributions are entries `starts[c]..<starts[c + 1]`: the point, and (f11, f12, f22).
    let starts: [Int]
    let pointIndex: [Int32]
    let f11: [Double], f12: [Double], f22: [Double]
    /// The inverse: point i is reached by candidates `reachedBy[pointStarts[i]..<pointStarts[i + 1]]`, in candidate order.
    let pointStarts: [Int]
    let reachedBy: [Int32]

    /// P90 of the horizontal error of an efficient estimator whose error covariance is C, for a
    /// circular Gaussian: sqrt(−2 ln 0.1)·σ = 1.517·DRMS (DRMS = sqrt(trace C)).
    public static let p90PerDRMS = (-2 * log(0.1)).squareRoot() / 2.0.squareRoot()

    /// - Parameters:
    ///   - heights, p0s: per candidate (nil entries, or nil arrays: the phone's height and the radio's P0);
    ///     `candidateHeight` applies to all candidates when `heights` is nil.
    ///   - reachMargin: a candidate counts only where its mean reading is at least this many dB above the sensitivity
    ///     (−∞: wherever it is heard at all). Far beacons add little information next to near ones; leaving them out
    ///     keeps each candidate's points, and the search's work, local on a venue larger than the hearing range.
    public init(scenario: Scenario, points: [Point], candidates: [Point], candidateHeight: Double? = nil,
                heights: [Double?]? = nil, p0s: [Double?]? = nil, reachMargin: Double = -.infinity) {
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
        var starts = [0], index: [Int32] = [], a: [Double] = [], c: [Double] = [], d: [Double] = []
        for ci in candidates.indices {
            let dz = radio.heightOffset(beaconHeight: s.beacons[ci].height)
            for (pi, p) in points.enumerated() {
                let mean = pathLoss.meanRSSI(beacon: ci, at: p)
                if mean < radio.sensitivity + reachMargin { continue }
                let k = radio.expectedIndependentReadings(meanRSSI: mean)
                if k == 0 { continue }
                let f = FisherInformation.rssi(dx: p.x - candidates[ci].x, dy: p.y - candidates[ci].y, dz: dz, readings: k, scale: scale)
                index.append(Int32(pi)); a.append(f.xx); c.append(f.xy); d.append(f.yy)
            }
            starts.append(index.count)
        }
        self.starts = starts
        pointIndex = index
        f11 = a; f12 = c; f22 = d
        var counts = [Int](repeating: 0, count: points.count + 1)
        for i in index { counts[Int(i) + 1] += 1 }
        for i in points.indices { counts[i + 1] += counts[i] }
        var next = counts, inverse = [Int32](repeating: 0, count: index.count)
        for ci in candidates.indices {
            for k in starts[ci]..<starts[ci + 1] {
                let i = Int(index[k])
                inverse[next[i]] = Int32(ci); next[i] += 1
            }
        }
        pointStarts = counts
        reachedBy = inverse
    }

    /// The points candidate `ci` reaches (indices into `points`).
    func reach(of ci: Int) -> ArraySlice<Int32> { pointIndex[starts[ci]..<starts[ci + 1]] }

    /// The candidates that reach point `i`.
    func candidates(reaching i: Int) -> ArraySlice<Int32> { reachedBy[pointStarts[i]..<pointStarts[i + 1]] }

    /// Predicted P90 error at every point for a layout (candidate indices); +∞ where the geometry gives no fix.
    public func predictedP90(layout: [Int]) -> [Double] {
        var acc = Accumulator(count: points.count)
        for c in layout { acc.add(candidate: c, model: self) }
        return acc.p90()
    }

    /// Running sums of the Fisher information per point, with each point's predicted P90 and the layout's score kept
    /// up to date, for fast greedy search: adding, removing or scoring a candidate touches only the points it reaches.
    struct Accumulator {
        var a: [Double], c: [Double], d: [Double]
        /// Each point's predicted P90 and its log (capped at 10⁶ m, as the score counts it).
        private(set) var e: [Double], logs: [Double]
        /// The target the score counts covered points against.
        let target: Double
        /// Points whose P90 meets the target, and the sum of the logs.
        private(set) var covered = 0
        private(set) var logSum: Double

        init(count: Int, target: Double = .infinity) {
            a = [Double](repeating: 0, count: count); c = a; d = a
            let none = CoverageModel.p90(0, 0, 0)
            e = [Double](repeating: none, count: count)
            logs = [Double](repeating: log(min(none, 1e6)), count: count)
            self.target = target
            covered = none <= target ? count : 0
            logSum = log(min(none, 1e6)) * Double(count)
        }

        /// Adds candidate `ci` (`sign` −1 removes it).
        mutating func add(candidate ci: Int, model m: CoverageModel, sign: Double = 1) {
            for k in m.starts[ci]..<m.starts[ci + 1] {
                let i = Int(m.pointIndex[k])
                a[i] += sign * m.f11[k]; c[i] += sign * m.f12[k]; d[i] += sign * m.f22[k]
                let new = CoverageModel.p90(a[i], c[i], d[i]), newLog = log(min(new, 1e6))
                if e[i] <= target { covered -= 1 }
                if new <= target { covered += 1 }
                logSum += newLog - logs[i]
                e[i] = new; logs[i] = newLog
            }
        }

        func p90() -> [Double] { e }

        func p90(at i: Int) -> Double { e[i] }

        /// Score of this accumulator plus candidate `ci`, without changing it: the points meeting the target, and the
        /// mean log P90.
        func score(adding ci: Int, model m: CoverageModel) -> (covered: Int, meanLog: Double) {
            let g = gain(adding: ci, model: m)
            return score(with: g)
        }

        /// What adding candidate `ci` would change: points newly meeting the target (net) and the change of the sum
        /// of logs. It depends only on the points `ci` reaches, so it stays valid until one of them changes.
        func gain(adding ci: Int, model m: CoverageModel) -> Gain {
            var covered = 0, delta = 0.0
            for k in m.starts[ci]..<m.starts[ci + 1] {
                let i = Int(m.pointIndex[k])
                let new = CoverageModel.p90(a[i] + m.f11[k], c[i] + m.f12[k], d[i] + m.f22[k])
                if new <= target { covered += 1 }
                if e[i] <= target { covered -= 1 }
                delta += log(min(new, 1e6)) - logs[i]
            }
            return Gain(covered: covered, logDelta: delta)
        }

        /// The layout's score with a gain applied: the points meeting the target, and the mean log P90.
        func score(with g: Gain) -> (covered: Int, meanLog: Double) {
            (covered + g.covered, (logSum + g.logDelta) / Double(max(e.count, 1)))
        }

        /// The layout's score as it is.
        var score: (covered: Int, meanLog: Double) { score(with: Gain(covered: 0, logDelta: 0)) }

        /// The state at the points candidate `ci` reaches, to put back exactly (no rounding drift) after trying a change.
        func saved(around ci: Int, model m: CoverageModel) -> Saved {
            let r = m.reach(of: ci)
            return Saved(a: r.map { a[Int($0)] }, c: r.map { c[Int($0)] }, d: r.map { d[Int($0)] },
                         e: r.map { e[Int($0)] }, logs: r.map { logs[Int($0)] }, covered: covered, logSum: logSum)
        }

        mutating func restore(_ s: Saved, around ci: Int, model m: CoverageModel) {
            for (j, p) in m.reach(of: ci).enumerated() {
                let i = Int(p)
                a[i] = s.a[j]; c[i] = s.c[j]; d[i] = s.d[j]; e[i] = s.e[j]; logs[i] = s.logs[j]
            }
            covered = s.covered; logSum = s.logSum
        }

        struct Saved { var a, c, d, e, logs: [Double]; var covered: Int; var logSum: Double }
    }

    /// A candidate's effect on a layout's score (``Accumulator/gain(adding:model:)``).
    struct Gain: Sendable {
        var covered: Int
        var logDelta: Double
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
