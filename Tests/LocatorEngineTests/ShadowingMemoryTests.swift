import Foundation
import Testing
import LabCore
import LocatorEngine

/// ``ShadowingMemory``: what a filter that weighs correlated scans as independent should state.
@Suite struct ShadowingMemoryTests {
    /// A scalar Kalman filter (a random-walk state, noise Q per scan) takes each scan's error as independent, while a
    /// share ς of it is an AR(1) process with correlation ρ between consecutive scans. Fed the filter's own prior and
    /// posterior variances, the memory states the variance of the filter's actual error: 40,000 simulated runs
    /// measure it within 5% at every scan (the sampling error is under 1%), through walking (ρ 0.65), standing (ρ 1,
    /// almost no motion) and walking again, where the filter's own variance understates it up to several times.
    @Test func itStatesTheErrorOfAFilterThatTakesCorrelatedScansAsIndependent() {
        let r = 1.0, share = 0.8, runs = 40_000
        let phases: [(rho: Double, q: Double)] = Array(repeating: (0.65, 0.3), count: 10) + Array(repeating: (1, 0.01), count: 10)
            + Array(repeating: (0.4, 0.3), count: 10)
        // What the memory states (deterministic: it depends on the variances only).
        var nominal = [r], stated = [r]
        var memory = ShadowingMemory(start: (Point(0, 0), r), share: share)
        var p = r
        for phase in phases {
            let prior = p + phase.q
            p = prior * r / (prior + r)
            memory.update(prior: (Point(0, 0), prior), posterior: (Point(0, 0), p), rho: phase.rho)
            nominal.append(p); stated.append(memory.actual)
        }
        // What the filter's error is.
        var rng = TrackerRandom(seed: 2026)
        var squares = [Double](repeating: 0, count: phases.count + 1)
        for _ in 0..<runs {
            var u = share.squareRoot() * rng.gaussian()
            func scanError(_ u: Double) -> Double { r.squareRoot() * (u + (1 - share).squareRoot() * rng.gaussian()) }
            var x = 0.0, estimate = scanError(u), pk = r
            squares[0] += estimate * estimate
            for (t, phase) in phases.enumerated() {
                x += phase.q.squareRoot() * rng.gaussian()
                u = phase.rho * u + ((1 - phase.rho * phase.rho) * share).squareRoot() * rng.gaussian()
                let z = x + scanError(u)
                let prior = pk + phase.q, gain = prior / (prior + r)
                estimate += gain * (z - estimate); pk = (1 - gain) * prior
                squares[t + 1] += (estimate - x) * (estimate - x)
            }
        }
        for t in squares.indices {
            let measured = squares[t] / Double(runs)
            #expect(abs(measured / stated[t] - 1) < 0.05, "scan \(t): measured \(measured), stated \(stated[t])")
        }
        // The correction matters: after standing, the filter's own variance is several times too small.
        let end = 20
        #expect(squares[end] / Double(runs) > 3 * nominal[end], "after standing: \(squares[end] / Double(runs)) vs \(nominal[end])")
    }

    /// Without correlation (ρ = 0) the filter's variance is its error's: the inflation stays 1, whatever the scans.
    @Test func withoutCorrelationTheCloudIsTheError() {
        var memory = ShadowingMemory(start: (Point(0, 0), 2), share: 0.9)
        var p = 2.0
        for (q, r) in [(0.3, 1.0), (0.0, 4.0), (1.5, 0.5), (0.2, 100.0), (0.7, 2.0)] {
            let prior = p + q
            p = prior * r / (prior + r)
            memory.update(prior: (Point(0, 0), prior), posterior: (Point(1, 0), p), rho: 0)
            #expect(abs(memory.inflation - 1) < 1e-12)
        }
    }
}
