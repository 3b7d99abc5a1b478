import Foundation

/// The bound's search for a layout: greedy additions and single swaps over a ``CoverageModel``'s candidates, scored by
/// the points whose predicted P90 meets the target (more is better), then the mean log of the per-point P90 (lower is
/// better).
///
/// Every candidate's gain (what adding it would change) is kept up to date. A gain depends only on the points the
/// candidate reaches, so after a beacon is added, removed or swapped only the candidates that share a point with it are
/// re-scored: choosing the next beacon costs a pass over the stored gains plus O(neighbours × reach), not O(venue).
/// The answers are those of scoring every candidate afresh (the same order, the same ties: first in candidate order).
struct LayoutSearch {
    let model: CoverageModel
    private(set) var layout: [Int]
    private(set) var acc: CoverageModel.Accumulator
    private var inLayout: [Bool]
    private var gains: [CoverageModel.Gain]
    /// Marks for collecting a candidate's neighbours without repeats.
    private var mark: [UInt32]
    private var epoch: UInt32 = 0

    /// Re-scoring fewer candidates than this stays on one core (spreading it costs more than it saves).
    static let parallelThreshold = 48

    init(model: CoverageModel, target: Double, layout start: [Int] = []) {
        self.model = model
        layout = start
        acc = CoverageModel.Accumulator(count: model.points.count, target: target)
        inLayout = [Bool](repeating: false, count: model.candidates.count)
        for c in start { acc.add(candidate: c, model: model); inLayout[c] = true }
        gains = [CoverageModel.Gain](repeating: CoverageModel.Gain(covered: 0, logDelta: 0), count: model.candidates.count)
        mark = [UInt32](repeating: 0, count: model.candidates.count)
        rescore(Array(model.candidates.indices))
    }

    /// a is strictly better than b.
    static func better(_ a: (covered: Int, meanLog: Double), than b: (covered: Int, meanLog: Double)) -> Bool {
        a.covered > b.covered || (a.covered == b.covered && a.meanLog < b.meanLog - 1e-12)
    }

    /// The best candidate outside the layout (and other than `excluded`) with the layout's score once it is added;
    /// the first in candidate order among equals. nil when every candidate is placed.
    func bestAddition(excluding excluded: Int? = nil) -> (candidate: Int, score: (covered: Int, meanLog: Double))? {
        var best: (candidate: Int, score: (covered: Int, meanLog: Double))?
        for c in gains.indices where !inLayout[c] && c != excluded {
            let s = acc.score(with: gains[c])
            if best == nil || Self.better(s, than: best!.score) { best = (c, s) }
        }
        return best
    }

    mutating func add(_ c: Int) {
        acc.add(candidate: c, model: model)
        layout.append(c)
        inLayout[c] = true
        rescore(neighbours(of: c))
    }

    /// Replaces single beacons by better candidates, slot by slot, until no single swap helps (each slot is weighed at
    /// most `rounds` times).
    mutating func improveBySwaps(rounds: Int = 3) {
        improveBySwaps(slots: Array(layout.indices), rounds: rounds)
    }

    /// Adds the best candidate, then weighs swaps only where the addition changed anything: the slots whose beacon
    /// shares a point with it, and in turn those near each swap made. Elsewhere every candidate's gain, and so every
    /// swap's, is what it was when the layout was last improved. False when no candidate is left.
    @discardableResult
    mutating func growAndImprove(rounds: Int = 3) -> Bool {
        guard let best = bestAddition() else { return false }
        add(best.candidate)
        improveBySwaps(slots: slots(near: best.candidate), rounds: rounds)
        return true
    }

    /// Weighs swaps for `slots` in order; a swap queues the slots near the beacons it removed and placed.
    private mutating func improveBySwaps(slots start: [Int], rounds: Int) {
        var queue = start, head = 0
        var visits = [Int](repeating: 0, count: layout.count), queued = [Bool](repeating: false, count: layout.count)
        for q in start { queued[q] = true }
        while head < queue.count {
            let slot = queue[head]
            head += 1
            queued[slot] = false
            visits[slot] += 1
            let s = layout[slot]
            let current = acc.score
            let saved = acc.saved(around: s, model: model)
            let affected = neighbours(of: s)
            let savedGains = affected.map { gains[$0] }
            acc.add(candidate: s, model: model, sign: -1)
            inLayout[s] = false
            rescore(affected)
            if let best = bestAddition(excluding: s), Self.better(best.score, than: current) {
                acc.add(candidate: best.candidate, model: model)
                inLayout[best.candidate] = true
                layout[slot] = best.candidate
                rescore(neighbours(of: best.candidate))
                for q in Set(slots(near: s) + slots(near: best.candidate)).sorted() where !queued[q] && visits[q] < rounds {
                    queued[q] = true
                    queue.append(q)
                }
            } else {
                acc.restore(saved, around: s, model: model)
                inLayout[s] = true
                for (j, c) in affected.enumerated() { gains[c] = savedGains[j] }
            }
        }
    }

    /// The slots whose beacon shares a point with candidate `ci`.
    private mutating func slots(near ci: Int) -> [Int] {
        let near = Set(neighbours(of: ci))
        return layout.indices.filter { near.contains(layout[$0]) }
    }

    /// The candidates that share a point with candidate `ci` (itself included), in candidate order.
    private mutating func neighbours(of ci: Int) -> [Int] {
        epoch &+= 1
        if epoch == 0 { mark = [UInt32](repeating: 0, count: mark.count); epoch = 1 }
        var out: [Int] = []
        for p in model.reach(of: ci) {
            for c in model.candidates(reaching: Int(p)) where mark[Int(c)] != epoch {
                mark[Int(c)] = epoch
                out.append(Int(c))
            }
        }
        return out.sorted()
    }

    /// Recomputes the gains of `cs` against the current layout, on all cores when there are many.
    private mutating func rescore(_ cs: [Int]) {
        let acc = self.acc, model = self.model
        if cs.count < Self.parallelThreshold {
            for c in cs { gains[c] = acc.gain(adding: c, model: model) }
            return
        }
        let chunks = min(cs.count / (Self.parallelThreshold / 2), ProcessInfo.processInfo.activeProcessorCount * 4)
        gains.withUnsafeMutableBufferPointer { out in
            let out = UnsafeSendable(out)
            DispatchQueue.concurrentPerform(iterations: chunks) { k in
                for j in stride(from: k, to: cs.count, by: chunks) {
                    out.value[cs[j]] = acc.gain(adding: cs[j], model: model)
                }
            }
        }
    }
}

/// A buffer the workers of one `concurrentPerform` write at disjoint indices.
private struct UnsafeSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
