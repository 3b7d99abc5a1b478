import Foundation
import LabCore
import LabEstimators
import LabResults

extension TrackMetrics {
    /// The metrics of one estimator's results on one scenario (grid epochs are ignored).
    public init(results: [EpochResult], venue: Venue) {
        let walkResults = results.filter { $0.walk != "grid" }
        var byWalk: [String: [EpochResult]] = [:]
        for r in walkResults { byWalk["\(r.seed)\u{1}\(r.walk)", default: []].append(r) }
        var pairs = 0, crossings = 0, entries = 0, missed = 0
        var delays: [Double] = [], jitter: [Double] = [], firstFix: [Double] = []
        var standing: [Double] = [], walking: [Double] = []
        /// The walker stood from epoch `a` to the next, `b`: the truth did not move.
        func stood(_ a: EpochResult, _ b: EpochResult) -> Bool { a.truth.distance(to: b.truth) < 1e-6 }
        for key in byWalk.keys.sorted() {
            let walk = byWalk[key]!.sorted { $0.epoch < $1.epoch }
            if let first = walk.first, let fixed = walk.first(where: { $0.fix != nil }) { firstFix.append(fixed.t - first.t) }
            for (k, r) in walk.enumerated() {
                guard let e = r.error else { continue }
                if k > 0 && stood(walk[k - 1], r) { standing.append(e) } else { walking.append(e) }
            }
            for (a, b) in zip(walk, walk.dropFirst()) {
                guard let p = a.fix, let q = b.fix else { continue }
                pairs += 1
                if venue.walls.crosses(from: p, to: q) { crossings += 1 }
                if stood(a, b) { jitter.append(p.distance(to: q)) }
            }
            // Room entries: the epoch where the truth's room changes to a room.
            let rooms = walk.map { venue.roomIndex(at: $0.truth) }
            for k in walk.indices.dropFirst() {
                guard let room = rooms[k], room != rooms[k - 1] else { continue }
                entries += 1
                var j = k
                var reached: Double?
                while j < walk.count && rooms[j] == room {
                    if let f = walk[j].fix, venue.roomIndex(at: f) == room { reached = walk[j].t - walk[k].t; break }
                    j += 1
                }
                if let reached { delays.append(reached) } else { missed += 1 }
            }
        }
        let errors = walkResults.compactMap(\.error)
        let stats = ErrorStatistics(errors: errors, attempts: walkResults.count)
        var pcrbRMSE: Double?, efficiency: Double?
        let bounds = walkResults.filter { $0.fix != nil }.compactMap(\.pcrb).filter(\.isFinite)
        if !bounds.isEmpty, bounds.count == errors.count {
            let c = (bounds.reduce(0, +) / Double(bounds.count)).squareRoot()
            pcrbRMSE = c
            efficiency = c > 0 && stats.rmse.isFinite ? stats.rmse / c : nil
        }
        self.init(epochs: walkResults.count, fixes: errors.count, wallCrossingRate: pairs > 0 ? Double(crossings) / Double(pairs) : nil,
                  roomEntryDelay: delays.isEmpty ? nil : delays.reduce(0, +) / Double(delays.count), roomEntries: entries,
                  missedRoomEntries: missed,
                  stillJitter: jitter.isEmpty ? nil : (jitter.map { $0 * $0 }.reduce(0, +) / Double(jitter.count)).squareRoot(),
                  timeToFirstFix: firstFix.isEmpty ? nil : firstFix.reduce(0, +) / Double(firstFix.count),
                  rmse: stats.rmse, pcrbRMSE: pcrbRMSE, pcrbEfficiency: efficiency, p75: stats.p75,
                  standingP75: standing.isEmpty ? nil : ErrorStatistics(errors: standing, attempts: standing.count).p75,
                  walkingP75: walking.isEmpty ? nil : ErrorStatistics(errors: walking, attempts: walking.count).p75)
    }
}

extension TrackScore {
    /// The track metrics of every estimator on every scenario that has a venue in `venues` and walk epochs.
    public static func all(results: [EpochResult], venues: [String: Venue]) -> [TrackScore] {
        var groups: [String: [EpochResult]] = [:]
        var order: [String] = []
        for r in results where r.walk != "grid" && venues[r.scenario] != nil {
            let key = "\(r.scenario)\u{1}\(r.estimator.rawValue)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(r)
        }
        return order.map { key in
            let rs = groups[key]!
            return TrackScore(scenario: rs[0].scenario, estimator: rs[0].estimator, metrics: TrackMetrics(results: rs, venue: venues[rs[0].scenario]!))
        }
    }
}
