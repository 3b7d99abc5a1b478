import ArgumentParser
import Foundation
import LabCore
import LabSimulation

/// The lab's benchmark: prints throughput figures; never asserts a time.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the lab's speed: simulated readings per second (more figures as the lab grows).",
        discussion: "Single-core figures unless stated. Example: indoorlab bench --json")

    @Flag(help: "Print the figures as JSON.")
    var json = false

    @Option(help: "Approximate seconds to spend on each figure.")
    var seconds: Double = 1.0

    struct Figure: Encodable { var name: String; var value: Double; var unit: String; var target: Double?; var note: String }

    func run() throws {
        var figures: [Figure] = []
        figures += try BenchSimulation.figures(seconds: seconds)
        if json {
            try writeOutput(jsonString(figures), to: nil)
        } else {
            for f in figures {
                let target = f.target.map { "  (target ≥ \(Bench.human($0)))" } ?? ""
                print("\(f.name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(Bench.human(f.value).leftPad(10)) \(f.unit)\(target)  \(f.note)")
            }
        }
    }

    static func human(_ v: Double) -> String {
        if v >= 1e6 { return Format.fixed(v / 1e6, 2) + " M" }
        if v >= 1e3 { return Format.fixed(v / 1e3, 1) + " k" }
        return Format.fixed(v, 1)
    }

    /// Runs `body` repeatedly for about `seconds`; returns work units done per second.
    static func rate(seconds: Double, _ body: () -> Int) -> Double {
        var units = 0
        let start = DispatchTime.now().uptimeNanoseconds
        var elapsed = 0.0
        repeat {
            units += body()
            elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        } while elapsed < seconds
        return Double(units) / elapsed
    }
}

extension String {
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}

enum BenchSimulation {
    static func figures(seconds: Double) throws -> [Bench.Figure] {
        var out: [Bench.Figure] = []
        for (name, target) in [("open-hall", 5e6), ("esoc-office", 1e6)] {
            let s = try loadScenario(name)
            let sim = Simulator(scenario: s)
            let rng = RandomSource(seed: 1)
            let points = sim.testPoints(spacing: 1)
            var buffer: [RSSIReading] = []
            buffer.reserveCapacity(s.beacons.count * s.radio.advertisementsPerWindow)
            var shadow: Simulator.ShadowState? = nil
            var i = 0
            let r = Bench.rate(seconds: seconds) {
                var n = 0
                for _ in 0..<50 {
                    buffer.removeAll(keepingCapacity: true)
                    n += sim.scan(at: points[i % points.count], startTime: 0, rng: rng, shadow: &shadow, into: &buffer)
                    i += 1
                }
                return n
            }
            out.append(.init(name: "simulate readings/s [\(name)]", value: r, unit: "readings/s", target: target,
                             note: "\(s.beacons.count) beacons, \(s.walls.count) walls, 1 core"))
        }
        return out
    }
}
