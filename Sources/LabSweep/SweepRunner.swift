import Foundation
import LabCore
import LabEstimators
import LabEvaluation
import LabPlanning
import LabResults
import LabStore

/// One cell of a sweep: a job's axis values and seed, one estimator, and how it did.
public struct SweepRow: Sendable, Hashable {
    public var job: Int
    /// The axis values as the spec wrote them, axis by axis.
    public var values: [String]
    public var seed: UInt64
    public var estimator: String
    /// Epochs attempted, and those with a fix.
    public var epochs: Int
    public var fixes: Int
    /// Mean and P90 horizontal error of the fixes, metres (NaN without a fix).
    public var meanError: Double
    public var p90Error: Double
}

/// Runs a sweep's jobs and keeps each shard's rows in a file of its own (docs/sweeps.md, "Files").
///
/// A shard's file is written whole, under a temporary name renamed into place (``OutputFile``): a file there is a
/// finished shard, and a run that was killed lost at most the shards in flight. A local run skips the shards whose file
/// exists, so running it again after an interruption finishes the study.
public struct SweepRunner: Sendable {
    public let spec: SweepSpec
    /// The folder of the shard files and the merged results.
    public let directory: String
    /// The planner's layouts by axis values: every seed of a combination places the same beacons.
    private let layouts = LayoutCache()

    public init(spec: SweepSpec, directory: String) {
        self.spec = spec; self.directory = directory
    }

    /// `DIR/shards/shard-0003-of-0020.csv`.
    public func shardPath(_ shard: Int, of count: Int) -> String {
        directory + "/shards/" + String(format: "shard-%04d-of-%04d.csv", shard, count)
    }

    /// A shard is done when its file is there (a regular file: written whole and renamed into place).
    public func isDone(_ shard: Int, of count: Int) -> Bool {
        var st = stat()
        return stat(shardPath(shard, of: count), &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// The rows of one job: its scenario simulated once with its seed, every estimator run on it.
    public func run(_ job: SweepSpec.Job) throws -> [SweepRow] {
        var scenario = try spec.scenario(values: job.values)
        if let n = spec.beaconCount(values: job.values) {
            let placed = scenario
            scenario.beacons = layouts.beacons(for: job.values) {
                let planner = Planner(scenario: placed, options: Planner.Options(targetP90: SweepSpec.beaconsTargetP90))
                return planner.beacons(for: planner.layout(count: n))
            }
        }
        var tournament = Tournament(scenarios: [scenario], seeds: [job.seed], estimators: spec.estimators, conditions: [spec.condition])
        tournament.includeGrid = spec.evaluate != .walks
        tournament.includeWalks = spec.evaluate != .grid
        let results = try tournament.run()
        let values = job.values.enumerated().map { spec.axes[$0].values[$1].text }
        return spec.estimators.map { kind in
            let mine = results.filter { $0.estimator == kind }
            let stats = ErrorStatistics(errors: mine.compactMap(\.error), attempts: mine.count)
            return SweepRow(job: job.index, values: values, seed: job.seed, estimator: kind.rawValue, epochs: stats.count,
                            fixes: stats.fixes, meanError: stats.mean, p90Error: stats.p90)
        }
    }

    /// Runs shard `shard` of `count` and writes its file.
    public func runShard(_ shard: Int, of count: Int) throws {
        var rows: [SweepRow] = []
        for job in spec.jobs(shard: shard, of: count) { rows += try run(job) }
        try OutputFile.write(Data(SweepCSV.text(rows, axes: spec.axes.map(\.path)).utf8), to: shardPath(shard, of: count), inputs: [spec.file])
    }

    /// Runs every shard of `count` that has no file yet, on all cores; `progress(done, total)` after each shard.
    /// - Returns: the shards run (those skipped as done are not among them).
    @discardableResult
    public func runLocally(shards count: Int, progress: (@Sendable (Int, Int) -> Void)? = nil) throws -> [Int] {
        let pending = (0..<count).filter { !isDone($0, of: count) }
        let finished = Counter()
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: pending.count) { k in
            do { try runShard(pending[k], of: count) } catch { failures.record(k, error) }
            progress?(count - pending.count + finished.next(), count)
        }
        if let first = failures.first { throw first }
        return pending
    }
}

/// Layouts the planner placed, by a job's axis values (computed once, whichever thread asks first; the layout is the
/// same whoever computes it).
final class LayoutCache: @unchecked Sendable {
    private var placed: [[Int]: [Beacon]] = [:]
    private let lock = NSLock()
    func beacons(for values: [Int], _ make: () -> [Beacon]) -> [Beacon] {
        lock.lock()
        if let b = placed[values] { lock.unlock(); return b }
        lock.unlock()
        let b = make()
        lock.lock(); placed[values] = b; lock.unlock()
        return b
    }
}

/// The errors of shards run concurrently; the one of the lowest shard is reported (the same whatever the schedule).
final class Failures: @unchecked Sendable {
    private var errors: [Int: any Error] = [:]
    private let lock = NSLock()
    func record(_ k: Int, _ e: any Error) { lock.lock(); errors[k] = e; lock.unlock() }
    var first: (any Error)? { lock.lock(); defer { lock.unlock() }; return errors.keys.min().map { errors[$0]! } }
}

/// A thread-safe count.
final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func next() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}

/// The shard and merged files: CSV with a header, one row per cell (docs/sweeps.md, "Files").
public enum SweepCSV {
    public static func header(axes: [String]) -> [String] {
        ["job"] + axes + ["seed", "estimator", "epochs", "fixes", "mean_error_m", "p90_error_m"]
    }

    public static func text(_ rows: [SweepRow], axes: [String]) -> String {
        var out = header(axes: axes).map(field).joined(separator: ",") + "\n"
        for r in rows {
            let cells = ["\(r.job)"] + r.values + ["\(r.seed)", r.estimator, "\(r.epochs)", "\(r.fixes)", number(r.meanError), number(r.p90Error)]
            out += cells.map(field).joined(separator: ",") + "\n"
        }
        return out
    }

    /// Six decimals (micrometres), or empty for NaN: the same on every machine.
    static func number(_ v: Double) -> String { v.isFinite ? String(format: "%.6f", v) : "" }

    /// A CSV field, quoted when it holds a comma, a quote or a line break.
    static func field(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Reads a shard file written by ``text(_:axes:)``.
    /// - Throws: ``InputError`` naming the file and line when it is not one (another spec's, or damaged).
    public static func read(_ path: String, axes: [String]) throws -> [SweepRow] {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw InputError(file: path, "cannot read the shard file: \((error as NSError).localizedFailureReason ?? error.localizedDescription)")
        }
        var lines = records(text)
        guard let head = lines.first, head == header(axes: axes) else {
            throw InputError(file: path, line: 1, "not a shard of this spec: expected the header \(header(axes: axes).joined(separator: ","))")
        }
        lines.removeFirst()
        return try lines.enumerated().map { i, f in
            let n = axes.count
            guard f.count == n + 7, let job = Int(f[0]), let seed = UInt64(f[n + 1]), let epochs = Int(f[n + 3]), let fixes = Int(f[n + 4]) else {
                throw InputError(file: path, line: i + 2, "not a row of this spec's shards (\(header(axes: axes).count) fields expected)")
            }
            return SweepRow(job: job, values: Array(f[1...n]), seed: seed, estimator: f[n + 2], epochs: epochs, fixes: fixes,
                            meanError: Double(f[n + 5]) ?? .nan, p90Error: Double(f[n + 6]) ?? .nan)
        }
    }

    /// Splits CSV text into records of fields (RFC 4180 quoting).
    static func records(_ text: String) -> [[String]] {
        var out: [[String]] = [], fields: [String] = [], field = "", quoted = false, started = false
        var it = Array(text).makeIterator()
        var pending: Character? = nil
        while let c = pending ?? it.next() {
            pending = nil
            started = true
            if quoted {
                if c == "\"" {
                    if let n = it.next() {
                        if n == "\"" { field.append("\"") } else { quoted = false; pending = n }
                    } else { quoted = false }
                } else { field.append(c) }
            } else if c == "\"" && field.isEmpty {
                quoted = true
            } else if c == "," {
                fields.append(field); field = ""
            } else if c == "\n" {
                fields.append(field); out.append(fields); fields = []; field = ""; started = false
            } else if c != "\r" {
                field.append(c)
            }
        }
        if started { fields.append(field); out.append(fields) }
        return out
    }
}
