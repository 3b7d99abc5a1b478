import Foundation
import LabCore
import LabScenarioIO
import LabSimulation
import LabEstimators
import LabEvaluation
import IndoorLocator
import LocatorEngine
import CHeapStats

/// One figure of the benchmark.
public struct BenchFigure: Encodable, Sendable {
    public var name: String
    /// The median of the rounds (``rounds``), or the one measurement.
    public var value: Double
    public var unit: String
    /// The requirement it is measured against, when there is one.
    public var target: Double?
    public var note: String
    /// How many rounds the figure was measured in, and the lowest and highest of them (nil for a figure measured once,
    /// such as the tournament's wall time): on a shared machine a round can run at half speed, and the spread says so.
    public var rounds: Int?
    public var lowest: Double?
    public var highest: Double?
    /// The work units each round did (fixes, scan updates, readings): with `bench --work`, what an instruction count
    /// divides by.
    public var units: [Int]?

    public init(name: String, value: Double, unit: String, target: Double?, note: String) {
        self.name = name; self.value = value; self.unit = unit; self.target = target; self.note = note
    }

    /// ", N× one core": this every-core figure against its one-core figure `one`, for its note.
    func scaling(over one: BenchFigure) -> String {
        one.value > 0 ? String(format: ", %.2f× one core", value / one.value) : ""
    }

    /// A figure measured in rounds: its value the rounds' median.
    public init(name: String, measured: LabBenchmark.Measured, unit: String, target: Double?, note: String) {
        self.init(name: name, value: measured.median, unit: unit, target: target, note: note)
        let sorted = SortedSample(measured.rounds)
        rounds = sorted.count; lowest = sorted.values.first; highest = sorted.values.last
        units = measured.units
    }
}

/// The lab's benchmark: throughput figures of every stage; it measures, it never asserts a time.
public enum LabBenchmark {
    /// The groups of figures, in the order they run.
    public enum Group: String, CaseIterable, Sendable {
        case simulation, estimators, locator, store, tournament
    }

    /// The figures of `groups`, each measured for about `seconds` in `rounds` rounds of equal length (single-core unless
    /// its note says otherwise); a figure is its rounds' median.
    /// - Parameters:
    ///   - work: instead of `seconds`, each round of a rated figure does at least this many of its units (fixes, scan
    ///     updates, locations, readings), however long that takes: a fixed amount of work whose instructions can be
    ///     counted (callgrind, docs/speed.md). The tournament is a fixed amount of work already; the import figure still
    ///     times its 1 M-reading imports for `seconds`.
    ///   - figure: only the figures whose name matches this pattern (``nameMatches(_:_:)``) are measured; the others'
    ///     work is skipped, though their group still prepares its inputs.
    public static func run(seconds: Double, rounds: Int = defaultRounds, groups: Set<Group> = Set(Group.allCases),
                           work: Int? = nil, figure: String? = nil) throws -> [BenchFigure] {
        precondition(rounds >= 1)
        precondition(work.map { $0 >= 1 } ?? true)
        let timing = Timing(seconds: seconds, rounds: rounds, work: work, figure: figure)
        var figures: [BenchFigure] = []
        if groups.contains(.simulation) { figures += try BenchSimulation.figures(timing) }
        if groups.contains(.estimators) { figures += try BenchEstimators.figures(timing) }
        if groups.contains(.locator) { figures += try BenchLocator.figures(timing) }
        if groups.contains(.store), timing.measures(BenchStore.figureName) { figures += try BenchStore.figures(seconds: seconds) }
        if groups.contains(.tournament), let t = try BenchEstimators.tournament(timing) { figures.append(t) }
        return figures
    }

    /// Rounds per figure unless asked otherwise: the median of three shrugs off one round slowed by a neighbour on a
    /// shared machine, where one round's figure varies from run to run (docs/speed.md).
    public static let defaultRounds = 3

    /// How long each figure is measured, in how many rounds, and which figures.
    struct Timing {
        let seconds: Double, rounds: Int
        /// Units of work per round instead of `seconds`, when set.
        var work: Int? = nil
        /// Only the figures whose name matches this pattern, when set (``LabBenchmark/nameMatches(_:_:)``).
        var figure: String? = nil
        /// Whether the figure called `name` is measured.
        func measures(_ name: String) -> Bool { figure.map { LabBenchmark.nameMatches($0, name) } ?? true }
    }

    /// Whether a figure's `name` matches `pattern`: the whole name, case-insensitively, where each `*` in the pattern
    /// stands for any text (`*offset-free*`; `fixes/s [offset-free]` is that one figure: brackets are plain text).
    public static func nameMatches(_ pattern: String, _ name: String) -> Bool {
        let parts = pattern.lowercased().split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        let text = name.lowercased()
        guard parts.count > 1 else { return text == parts[0] }
        guard text.hasPrefix(parts[0]) else { return false }
        var rest = text.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let found = rest.range(of: part) else { return false }
            rest = rest[found.upperBound...]
        }
        return rest.hasSuffix(parts[parts.count - 1])
    }

    /// A figure's rounds, in work units per second.
    public struct Measured: Sendable {
        public var rounds: [Double]
        /// The units each round did.
        public var units: [Int]
        /// The median round (the mean of the two middle ones for an even count: the lab's linear quantile).
        public var median: Double { SortedSample(rounds).quantile(0.5) }
    }

    /// Runs `body` repeatedly for about `timing.seconds` (or for `timing.work` units a round), in `timing.rounds` rounds
    /// of equal length; each round's work units done per second.
    static func rate(_ timing: Timing, _ body: () -> Int) -> Measured {
        let rounds = (0..<timing.rounds).map { _ in
            var units = 0
            let start = DispatchTime.now().uptimeNanoseconds
            var elapsed = 0.0
            repeat {
                units += body()
                elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            } while timing.work.map { units < $0 } ?? (elapsed < timing.seconds / Double(timing.rounds))
            return (rate: Double(units) / elapsed, units: units)
        }
        return Measured(rounds: rounds.map(\.rate), units: rounds.map(\.units))
    }

    /// The figure `name`, rated by `body` (``rate(_:_:)``), or nil when `timing` does not measure it; its note is asked
    /// for after the work (it may count what the work did).
    static func figure(_ timing: Timing, _ name: String, unit: String, target: Double? = nil, _ body: () -> Int,
                       note: () -> String) -> BenchFigure? {
        guard timing.measures(name) else { return nil }
        let measured = rate(timing, body)
        return BenchFigure(name: name, measured: measured, unit: unit, target: target, note: note())
    }
}

enum BenchSimulation {
    static func figures(_ timing: LabBenchmark.Timing) throws -> [BenchFigure] {
        var out: [BenchFigure] = []
        for (name, target) in [("open-hall", 5e6), ("esoc-office", 1e6)] {
            let s = try BundledScenarios.load(name)
            let sim = try Simulator(scenario: s)
            let rng = RandomSource(seed: 1)
            let points = sim.testPoints(spacing: 1)
            var buffer: [RSSIReading] = []
            buffer.reserveCapacity(s.beacons.count * s.radio.advertisementsPerWindow)
            var shadow: Simulator.ShadowState? = nil
            var i = 0
            let f = LabBenchmark.figure(timing, "simulate readings/s [\(name)]", unit: "readings/s", target: target, {
                var n = 0
                for _ in 0..<50 {
                    buffer.removeAll(keepingCapacity: true)
                    n += sim.scan(at: points[i % points.count], startTime: 0, rng: rng, shadow: &shadow, into: &buffer)
                    i += 1
                }
                return n
            }, note: { "\(s.beacons.count) beacons, \(s.walls.count) walls, 1 core" })
            if let f { out.append(f) }
        }
        return out
    }
}

enum BenchEstimators {
    /// Observations with every beacon heard: open-hall's 8 beacons (static test points), and
    /// killian-court's test points (12 beacons, up to 3 frieze headings) for the bearing estimators.
    static func observations(_ name: String, requireAll: Bool) throws -> (Venue, [Observation]) {
        let s = try BundledScenarios.load(name)
        // With the venue's survey, for the fingerprinting estimators.
        let venue = try Tournament.venue(scenario: s, condition: .ideal, seed: 1)
        let sim = try Simulator(scenario: s)
        let epochs = sim.simulate(points: sim.testPoints(spacing: 1), seed: 1)
        let obs = epochs.map { Observation(readings: $0.readings, headings: $0.headings, beaconCount: venue.beaconCount) }
            .filter { !requireAll || $0.beacons.count == venue.beaconCount }
        return (venue, obs)
    }

    /// The scans of a scenario's walks in the field condition, in order, and where each walk starts.
    static func walkObservations(_ name: String) throws -> (venue: Venue, observations: [Observation], starts: Set<Int>, walls: Int) {
        let s = try BundledScenarios.load(name)
        var venue = Venue(s, condition: .field)
        venue.seed = 1
        let sim = try Simulator(scenario: s, condition: .field)
        var observations: [Observation] = [], starts: Set<Int> = []
        for w in s.walks {
            starts.insert(observations.count)
            observations += sim.simulate(walk: w, seed: 1).map { Observation(readings: $0.readings, headings: $0.headings, beaconCount: venue.beaconCount, t: $0.t, steps: $0.steps) }
        }
        return (venue, observations, starts, s.walls.count)
    }

    static func figures(_ timing: LabBenchmark.Timing) throws -> [BenchFigure] {
        let (hall, hallObs) = try observations("open-hall", requireAll: true)
        let (court, courtObs) = try observations("killian-court", requireAll: false)
        let targets: [EstimatorKind: Double] = [.trilateration: 2e6, .proximity: 5e6]
        // The solver-bound fits are also timed on every core (their targets are throughput: a replay or a tournament fixes
        // independent scans on all cores); their one-core figures stay for comparing machines and changes.
        let allCoreTargets: [EstimatorKind: Double] = [.leastSquares: 1e5, .offsetFree: 1e5]
        var out: [BenchFigure] = []
        let walks = try walkObservations("esoc-office")
        for kind in EstimatorKind.allCases where kind.inputs.uses.contains(.motion) {
            // Trackers carry the walker from scan to scan: they are timed along esoc-office's walks (field
            // condition), a new phone at each walk's start.
            let est = kind.make(venue: walks.venue)
            var i = 0, fixes = 0
            let f = LabBenchmark.figure(timing, "scan updates/s [\(kind.rawValue)]", unit: "updates/s", target: kind == .particleFilter ? 2000 : nil, {
                for _ in 0..<20 {
                    if walks.starts.contains(i % walks.observations.count) { est.startDevice() }
                    if case .fix = est.locate(walks.observations[i % walks.observations.count]) { fixes += 1 }
                    i += 1
                }
                return 20
            }, note: { "esoc-office walks (\(walks.walls) walls, field condition, the phone's steps), 1 core" + String(format: ", %.0f%% fixed", 100 * Double(fixes) / Double(max(i, 1))) })
            if let f { out.append(f) }
        }
        for kind in EstimatorKind.allCases where !kind.inputs.uses.contains(.motion) {
            // Estimators that need headings (RSSI alone never fixes) are timed where there are friezes to look at.
            let bearingBased = kind.inputs.minimumBeacons == 0 && kind.inputs.uses.contains(.headings)
            let (venue, obs) = bearingBased ? (court, courtObs.filter { $0.headings.count >= 2 }) : (hall, hallObs)
            let est = kind.make(venue: venue)
            var i = 0, fixes = 0
            let heard = obs.map(\.beacons.count).reduce(0, +) / max(obs.count, 1)
            let note = bearingBased ? "killian-court, \(heard) beacons + ≥2 headings, 1 core" : "open-hall, \(heard) beacons heard, 1 core"
            let f = LabBenchmark.figure(timing, "fixes/s [\(kind.rawValue)]", unit: "fixes/s", target: targets[kind], {
                for _ in 0..<100 {
                    if case .fix = est.locate(obs[i % obs.count]) { fixes += 1 }
                    i += 1
                }
                return 100
            }, note: { note + String(format: ", %.0f%% fixed", 100 * Double(fixes) / Double(max(i, 1))) })
            if let f { out.append(f) }
            if let target = allCoreTargets[kind], var all = onAllCores(kind, venue: venue, observations: obs, timing, target: target, heard: heard) {
                if let f { all.note += all.scaling(over: f) }
                out.append(all)
            }
        }
        return out
    }

    /// `kind`'s fixes of `observations` on every core: one estimator per core (each with its own workspaces), each core
    /// walking the scans from its own place, joined every ``PerCore/slice``.
    static func onAllCores(_ kind: EstimatorKind, venue: Venue, observations obs: [Observation], _ timing: LabBenchmark.Timing,
                           target: Double, heard: Int) -> BenchFigure? {
        let cores = max(ProcessInfo.processInfo.activeProcessorCount, 1)
        let name = "fixes/s [\(kind.rawValue), \(cores) cores]"
        guard timing.measures(name) else { return nil }
        let estimators = PerCore(cores: cores) { kind.make(venue: venue) }
        return LabBenchmark.figure(timing, name, unit: "fixes/s", target: target, {
            estimators.run { c, estimator, done in
                let first = c * obs.count / cores + done
                return (100, (0..<100).reduce(0) { fixed, k in fixed + (estimator.locate(obs[(first + k) % obs.count]).fix != nil ? 1 : 0) })
            }
        }, note: {
            "open-hall, \(heard) beacons heard, one estimator per core"
                + String(format: ", %.0f%% fixed", 100 * Double(estimators.counted) / Double(max(estimators.units, 1)))
        })
    }

    /// Wall time of the whole tournament on the bundled scenarios, on all cores (nil when `timing` does not measure it).
    static func tournament(_ timing: LabBenchmark.Timing) throws -> BenchFigure? {
        let scenarios = try BundledScenarios.paths().map { try BundledScenarios.load($0) }
        guard !scenarios.isEmpty else { throw InputError(file: "bench", BundledScenarios.noneFound) }
        let name = "tournament wall time [\(scenarios.count) scenarios × 10 seeds]"
        guard timing.measures(name) else { return nil }
        let t = Tournament(scenarios: scenarios, seeds: Array(1...10))
        let start = DispatchTime.now().uptimeNanoseconds
        let results = try t.run()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return .init(name: name, value: elapsed, unit: "s",
                     target: nil, note: "\(results.count) fixes, \(ProcessInfo.processInfo.activeProcessorCount) cores (target ≤ 30 s)")
    }
}

enum BenchLocator {
    /// The shipped library through its public API: open-hall's 8 beacons given iBeacon identities,
    /// scans as simulated (about 9 samples per beacon per window).
    /// Scenario `s` as an app describes it to the library (iBeacon identities, its walls), and its test grid's scans as
    /// simulated: raw, and as a phone's ranging API reports them (one averaged RSSI per beacon heard per second).
    /// With `everyBeacon`, only the scans that heard every beacon.
    static func library(_ s: Scenario, everyBeacon: Bool) throws -> (placements: [BeaconPlacement], model: PathLossModel, walls: [WallSegment],
                                                                     area: (width: Double, depth: Double), scans: [[RSSISample]], ranged: [[RSSISample]]) {
        let uuid = UUID(uuidString: "B9407F30-F5F8-466E-AFF9-25556B57FE6D")!
        let ids = s.beacons.indices.map { BeaconIdentity(uuid: uuid, major: 1, minor: UInt16($0)) }
        let placements = zip(s.beacons, ids).map { b, id in
            BeaconPlacement(identity: id, position: Position(x: b.position.x, y: b.position.y), height: b.height, measuredPower: b.p0)
        }
        let model = PathLossModel(measuredPower: s.radio.p0, exponent: s.radio.exponent, shadowingSigma: s.radio.sigma,
                                  receiverHeight: s.radio.receiverHeight, scanWindow: s.radio.scanWindow)
        let walls = s.walls.map { WallSegment(from: Position(x: $0.segment.a.x, y: $0.segment.a.y), to: Position(x: $0.segment.b.x, y: $0.segment.b.y), loss: $0.loss) }
        let sim = try Simulator(scenario: s)
        let scans = sim.simulate(points: sim.testPoints(spacing: 1), seed: 1)
            .filter { e in
                let heard = Set(e.readings.map(\.beacon)).count
                return everyBeacon ? heard == s.beacons.count : heard >= 3
            }
            .map { e in e.readings.map { RSSISample(beacon: ids[$0.beacon], rssi: $0.rssi, timestamp: Date(timeIntervalSinceReferenceDate: $0.t)) } }
        let ranged = scans.map { scan in
            ids.compactMap { id -> RSSISample? in
                let mine = scan.filter { $0.beacon == id }
                return mine.isEmpty ? nil : RSSISample(beacon: id, rssi: mine.map { $0.rssi }.reduce(0, +) / Double(mine.count))
            }
        }
        return (placements, model, walls, (width: s.bounds.maxX, depth: s.bounds.maxY), scans, ranged)
    }

    static func figures(_ timing: LabBenchmark.Timing) throws -> [BenchFigure] {
        let s = try BundledScenarios.load("open-hall")
        let (placements, model, _, area, scans, ranged) = try library(s, everyBeacon: true)
        // The heap a locator holds after its creation and a first fix (the solver's workspace is allocated on first use),
        // counted for a second one: the first also makes the process's tables (the logs', the truncated normal's), once
        // however many locators there are, unless an earlier figure of the run made them already.
        let before = indoorlab_heap_in_use()
        let first = try IndoorLocator(beacons: placements, pathLoss: model, area: area)
        _ = first.locate(scans[0])
        let between = indoorlab_heap_in_use()
        let locator = try IndoorLocator(beacons: placements, pathLoss: model, area: area)
        _ = locator.locate(scans[0])
        let bytes = Int(indoorlab_heap_in_use()) - Int(between), firstBytes = Int(between) - Int(before)
        withExtendedLifetime(first) {}
        // Measured in this order (the one-scan figures share a locator, which learns the phone as it goes), printed in
        // the order of `printed`.
        var k = 0
        // One core: for comparing machines and changes. The throughput target sits on every core's figure below.
        let fixes = LabBenchmark.figure(timing, "IndoorLocator fixes/s", unit: "fixes/s", {
            for _ in 0..<100 { _ = locator.locate(ranged[k % ranged.count]); k += 1 }
            return 100
        }, note: { "public API, 8 beacons heard, one averaged sample each (as phone ranging reports), 1 core, pure Swift; the 400 k target is the every-core figure's" })
        // A locator per core (a server locating several phones at once), each walking the same scans from its own place,
        // joined every ``PerCore/slice``.
        let cores = max(ProcessInfo.processInfo.activeProcessorCount, 1)
        let parallelName = "IndoorLocator fixes/s [\(cores) cores]"
        var parallel: BenchFigure? = nil
        if timing.measures(parallelName) {
            let phones = try PerCore(cores: cores) { try IndoorLocator(beacons: placements, pathLoss: model, area: area) }
            parallel = LabBenchmark.figure(timing, parallelName, unit: "fixes/s", target: 4e5, {
                phones.run { c, locator, done in
                    let first = c * ranged.count / cores + done
                    for k in 0..<100 { _ = locator.locate(ranged[(first + k) % ranged.count]) }
                    return (100, 0)
                }
            }, note: { "public API, 8 beacons heard, one averaged sample each, a locator (a phone) per core, pure Swift" })
            if let one = fixes, var all = parallel { all.note += all.scaling(over: one); parallel = all }
        }
        let perScan = scans.map(\.count).reduce(0, +) / scans.count
        var i = 0
        let raw = LabBenchmark.figure(timing, "IndoorLocator fixes/s [raw samples]", unit: "fixes/s", {
            for _ in 0..<100 { _ = locator.locate(scans[i % scans.count]); i += 1 }
            return 100
        }, note: { "public API, 8 beacons heard, \(perScan) raw samples per scan, 1 core" })
        // The reference: the same algorithm on the same scans with GSL's solver (the lab's offset-learning
        // estimator, which the library matches to 1 mm), without the public API around it.
        let gsl = EstimatorKind.shipped.make(venue: Venue(s))
        let observations = ranged.map { scan in
            Observation(beacons: scan.enumerated().map { BeaconObservation(beacon: $0.offset, rssi: $0.element.rssi, count: 1) }, headings: [])
        }
        var g = 0
        let reference = LabBenchmark.figure(timing, "IndoorLocator's algorithm with GSL (reference)", unit: "fixes/s", {
            for _ in 0..<100 { _ = gsl.locate(observations[g % observations.count]); g += 1 }
            return 100
        }, note: { "the same fit and scans through the lab's \(EstimatorKind.shipped.rawValue) estimator (Swift calling GSL), no API layer, 1 core" })
        // The stream: the same averaged scans, one per second, through add(_:) and currentLocation(at:), tracked by the
        // particle filter (the test grid walked row by row, 1 m a second).
        let tracking = try IndoorLocator(beacons: placements, pathLoss: model, area: area)
        var clock = 0.0, w = 0
        let stream = LabBenchmark.figure(timing, "IndoorLocator stream locations/s", unit: "locations/s", {
            for _ in 0..<10 {
                clock += 1
                for sample in ranged[w % ranged.count] {
                    var timed = sample
                    timed.timestamp = Date(timeIntervalSinceReferenceDate: clock)
                    tracking.add(timed)
                }
                _ = tracking.currentLocation(at: Date(timeIntervalSinceReferenceDate: clock + 0.5))
                w += 1
            }
            return 10
        }, note: { "public API, add(_:) and currentLocation(at:), the \(IndoorLocator.estimatorName) (1,000 particles), 8 beacons, 1 core" })
        // In a walled venue: esoc-office's 30 walls in the fit, its grid's scans that heard three beacons or more.
        var walledFigure: BenchFigure? = nil
        let walledName = "IndoorLocator fixes/s [esoc-office, walls]"
        if timing.measures(walledName) {
            let office = try BundledScenarios.load("esoc-office")
            let walled = try library(office, everyBeacon: false)
            let officeLocator = try IndoorLocator(beacons: walled.placements, pathLoss: walled.model, walls: walled.walls, area: walled.area)
            let officeHeard = Double(walled.ranged.map(\.count).reduce(0, +)) / Double(max(walled.ranged.count, 1))
            var o = 0
            walledFigure = LabBenchmark.figure(timing, walledName, unit: "fixes/s", {
                for _ in 0..<100 { _ = officeLocator.locate(walled.ranged[o % walled.ranged.count]); o += 1 }
                return 100
            }, note: {
                String(format: "public API, %d walls in the fit, %.1f beacons heard on average, one averaged sample each, 1 core",
                       office.walls.count, officeHeard)
            })
        }
        let memoryName = "IndoorLocator memory (one locator)"
        let memory = timing.measures(memoryName)
            ? BenchFigure(name: memoryName, value: Double(bytes) / 1024, unit: "KiB", target: nil,
                          note: String(format: "heap in use after creation and a first fix (glibc mallinfo2); the first locator %.1f KiB, with the process's tables",
                                       Double(firstBytes) / 1024))
            : nil
        let printed = [stream, fixes, parallel, walledFigure, reference, raw, memory]
        return printed.compactMap { $0 }
    }
}

/// One worker per core — an estimator, a locator: each keeps its own workspaces — and what each core did and counted.
/// Each core touches only its own worker and tallies, hence unchecked.
final class PerCore<Worker>: @unchecked Sendable {
    let cores: Int
    private let workers: [Worker]
    /// Per core: the units done so far, and what its calls counted besides (fixes that fixed).
    private let done: UnsafeMutablePointer<Int>, counts: UnsafeMutablePointer<Int>

    /// How long every core works between joins, seconds: long enough that the threads' wake-ups at each join cost a
    /// negligible share of the time, which joins after every hundred fixes do not (docs/speed.md, "Measuring with
    /// `indoorlab bench`").
    static var slice: Double { 0.02 }

    /// `cores` workers (at least one), each made by `make`.
    init(cores: Int, _ make: () throws -> Worker) rethrows {
        self.cores = max(cores, 1)
        workers = try (0..<self.cores).map { _ in try make() }
        done = .allocate(capacity: self.cores)
        done.initialize(repeating: 0, count: self.cores)
        counts = .allocate(capacity: self.cores)
        counts.initialize(repeating: 0, count: self.cores)
    }
    deinit { done.deallocate(); counts.deallocate() }

    /// Every core at once (`DispatchQueue.concurrentPerform`) for one ``slice``: core c calls `body` with its worker and
    /// the units it has done so far, again and again until the slice is over (the clock read between calls), adding up
    /// the units each call did and what it counted. Returns the units all cores did in the slice.
    func run(_ body: @Sendable (_ core: Int, _ worker: Worker, _ done: Int) -> (units: Int, counted: Int)) -> Int {
        let before = units
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(PerCore.slice * 1e9)
        DispatchQueue.concurrentPerform(iterations: cores) { c in
            var units = done[c], counted = 0
            repeat {
                let r = body(c, workers[c], units)
                units += r.units; counted += r.counted
            } while DispatchTime.now().uptimeNanoseconds < end
            done[c] = units; counts[c] += counted
        }
        return units - before
    }

    /// The units done so far, all cores.
    var units: Int { (0..<cores).reduce(0) { $0 + done[$1] } }
    /// What the calls counted so far, all cores.
    var counted: Int { (0..<cores).reduce(0) { $0 + counts[$1] } }
}
