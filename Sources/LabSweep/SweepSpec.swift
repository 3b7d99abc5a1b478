import Foundation
import Yams
import LabCore
import LabEstimators
import LabScenarioIO

/// A parameter study (docs/sweeps.md): a base scenario, axes over its fields, the estimators and the seeds.
///
/// ```yaml
/// base: open-hall                     # a bundled name, or a path relative to the spec
/// condition: field                    # ideal (default) or field
/// evaluate: grid                      # grid (the static test points, default), walks, or both
/// axes:
///   radio.sigma: [2, 4, 6]            # any scenario field, by its path
///   radio.field.device_offset: [0, 8]
///   beacons: [4, 6, 8]                # the beacon count: the planner's layout of that many beacons
/// estimators: [offset-learning, least-squares]
/// seeds: 10                           # seeds 1…10, or a list: [3, 7, 11]
/// shards: 8                           # how many shards a local run splits into (default 8)
/// ```
///
/// It expands into jobs: every combination of the axes' values (the first axis varies slowest) for every seed, in
/// that order (``jobs``). A job simulates its scenario once and runs every estimator on it, so its cells (one per
/// estimator) share their readings. Shard I of N is the jobs whose index is I modulo N.
public struct SweepSpec: Sendable {
    public struct Axis: Sendable, Hashable {
        /// The field path (`radio.sigma`), or ``beaconsAxis``.
        public var path: String
        public var values: [AxisValue]
    }

    /// One value of an axis, as the spec writes it (kept as YAML so that any field takes it), with its line.
    public struct AxisValue: Sendable, Hashable {
        /// The value as the spec wrote it, for tables and file names.
        public var text: String
        /// The number, when the value is one (for plots).
        public var number: Double?
        public var line: Int
        let yaml: String
    }

    public enum Evaluate: String, Sendable, CaseIterable { case grid, walks, both }

    /// The axis that sets the beacon count through the planner.
    public static let beaconsAxis = "beacons"
    /// The planner's target when it places a count of beacons (the bound's search scores layouts by the points whose
    /// predicted P90 meets it).
    public static let beaconsTargetP90 = 2.5
    /// Jobs one spec may ask for (each simulates a venue and runs every estimator).
    public static let maximumJobs = 1_000_000
    public static let defaultShards = 8

    public var file: String
    public var baseName: String
    public var basePath: String
    public var condition: SimulationCondition
    public var evaluate: Evaluate
    public var axes: [Axis]
    public var estimators: [EstimatorKind]
    public var seeds: [UInt64]
    public var shards: Int
    /// The base scenario's YAML.
    let baseYAML: String

    /// One job: a combination of axis values (an index into each axis) and a seed.
    public struct Job: Sendable, Hashable {
        public var index: Int
        public var values: [Int]
        public var seed: UInt64
    }

    public var jobCount: Int { axes.reduce(1) { $0 * $1.values.count } * seeds.count }

    /// Job `index`: the first axis varies slowest, the seed fastest.
    public func job(_ index: Int) -> Job {
        var rest = index
        let seed = seeds[rest % seeds.count]
        rest /= seeds.count
        var values = [Int](repeating: 0, count: axes.count)
        for a in axes.indices.reversed() {
            values[a] = rest % axes[a].values.count
            rest /= axes[a].values.count
        }
        return Job(index: index, values: values, seed: seed)
    }

    /// The jobs of shard `shard` of `count`: every job whose index is `shard` modulo `count`.
    public func jobs(shard: Int, of count: Int) -> [Job] {
        stride(from: shard, to: jobCount, by: count).map(job)
    }

    /// The scenario of a job's axis values (the beacon count placed by the planner afterwards: ``SweepRunner``).
    public func scenario(values: [Int]) throws -> Scenario {
        var root = try Yams.compose(yaml: baseYAML)!
        for (a, axis) in axes.enumerated() where axis.path != Self.beaconsAxis {
            root = try Self.setting(root, path: axis.path.split(separator: ".").map(String.init), to: try Yams.compose(yaml: axis.values[values[a]].yaml)!)
        }
        return try ScenarioLoader.parse(yaml: try Yams.serialize(node: root), file: basePath)
    }

    /// The beacon count a job asks for, when the spec has a ``beaconsAxis``.
    public func beaconCount(values: [Int]) -> Int? {
        guard let a = axes.firstIndex(where: { $0.path == Self.beaconsAxis }) else { return nil }
        return axes[a].values[values[a]].number.map { Int($0) }
    }

    // MARK: Reading

    /// Reads and checks a spec: every axis value is applied to the base alone and validated, so a value the scenario
    /// validator refuses is reported at the spec's line, with the axis path and the validator's words.
    /// - Throws: ``InputErrors``, every problem found.
    public static func load(path: String) throws -> SweepSpec {
        let text = try ScenarioLoader.readText(path, expecting: "a sweep spec (.yaml)")
        return try parse(yaml: text, file: path)
    }

    public static func parse(yaml: String, file: String) throws -> SweepSpec {
        var errors: [InputError] = []
        func fail(_ node: Node?, _ field: String, _ message: String) {
            errors.append(InputError(InputLocation(file: file, line: node.map { $0.mark.map { $0.line } } ?? nil, field: field), message))
        }
        let root: Node
        do {
            guard let r = try Yams.compose(yaml: yaml) else { throw InputErrors([InputError(file: file, "the file is empty; expected a sweep spec mapping")]) }
            root = r
        } catch let e as YamlError {
            throw InputErrors([InputError(file: file, "not valid YAML: \(e)")])
        }
        guard let map = root.mapping else { throw InputErrors([InputError(file: file, line: root.mark?.line, "expected a mapping with base, axes, estimators and seeds")]) }
        let known = ["base", "condition", "evaluate", "axes", "estimators", "seeds", "shards"]
        for (k, _) in map where !known.contains(k.string ?? "") {
            fail(k, k.string ?? "?", "unknown key; expected one of \(known.joined(separator: ", "))")
        }
        func value(_ key: String) -> Node? { map[Node(key)] }

        // base
        var baseName = "", basePath = "", baseYAML = ""
        if let b = value("base"), let name = b.string, !name.isEmpty {
            baseName = name
            let relative = name.hasSuffix(".yaml") || name.contains("/")
            basePath = relative && !name.hasPrefix("/")
                ? URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent(name).path
                : BundledScenarios.resolve(name)
            do {
                baseYAML = try ScenarioLoader.readText(basePath, expecting: "a scenario file (.yaml)")
                _ = try ScenarioLoader.parse(yaml: baseYAML, file: basePath)
            } catch let e as InputErrors {
                for x in e.errors { fail(b, "base", "\(x)") }
            } catch let e as InputError {
                fail(b, "base", "\(e)")
            }
        } else {
            fail(value("base"), "base", "missing: the scenario the axes vary (a bundled name such as open-hall, or a path)")
        }

        // condition, evaluate
        var condition = SimulationCondition.ideal
        if let c = value("condition") {
            if let v = c.string.flatMap(SimulationCondition.init(rawValue:)) { condition = v }
            else { fail(c, "condition", "expected ideal or field, found '\(c.string ?? "?")'") }
        }
        var evaluate = Evaluate.grid
        if let e = value("evaluate") {
            if let v = e.string.flatMap(Evaluate.init(rawValue:)) { evaluate = v }
            else { fail(e, "evaluate", "expected grid, walks or both, found '\(e.string ?? "?")'") }
        }

        // estimators
        var estimators: [EstimatorKind] = []
        if let e = value("estimators"), let list = e.sequence, !list.isEmpty {
            for (i, n) in list.enumerated() {
                if let k = n.string.flatMap(EstimatorKind.init(rawValue:)) {
                    if estimators.contains(k) { fail(n, "estimators[\(i)]", "'\(k.rawValue)' is listed twice") } else { estimators.append(k) }
                } else {
                    fail(n, "estimators[\(i)]", "unknown estimator '\(n.string ?? "?")'; known: \(EstimatorKind.allCases.map(\.rawValue).joined(separator: ", "))")
                }
            }
        } else {
            fail(value("estimators"), "estimators", "expected a non-empty list of estimator names, e.g. [offset-learning, least-squares]")
        }

        // seeds
        var seeds: [UInt64] = []
        if let s = value("seeds") {
            if let n = s.int, s.sequence == nil {
                if n >= 1 && n <= 10_000 { seeds = (1...UInt64(n)).map { $0 } } else { fail(s, "seeds", "expected a count from 1 to 10000, found \(n)") }
            } else if let list = s.sequence, !list.isEmpty {
                for (i, n) in list.enumerated() {
                    if let v = n.string.flatMap(UInt64.init) {
                        if seeds.contains(v) { fail(n, "seeds[\(i)]", "seed \(v) is listed twice") } else { seeds.append(v) }
                    } else { fail(n, "seeds[\(i)]", "expected a whole number ≥ 0, found '\(n.string ?? "?")'") }
                }
            } else { fail(s, "seeds", "expected a count (10: seeds 1…10) or a non-empty list of seeds") }
        } else { fail(nil, "seeds", "missing: a count (10: seeds 1…10) or a list of seeds") }

        // shards
        var shards = defaultShards
        if let s = value("shards") {
            if let n = s.int, n >= 1, n <= 100_000 { shards = n } else { fail(s, "shards", "expected a whole number from 1 to 100000, found '\(s.string ?? "?")'") }
        }

        // axes: each value applied to the base alone, and validated
        var axes: [Axis] = []
        if let a = value("axes") {
            if let m = a.mapping {
                for (k, v) in m {
                    let path = k.string ?? ""
                    let field = "axes.\(path)"
                    guard !path.isEmpty, path.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({ !$0.isEmpty }) else {
                        fail(k, field, "expected a field path such as radio.sigma"); continue
                    }
                    guard let list = v.sequence, !list.isEmpty else { fail(v, field, "expected a non-empty list of values"); continue }
                    var values: [AxisValue] = []
                    for (i, n) in list.enumerated() {
                        let text = (try? Yams.serialize(node: n).trimmingCharacters(in: .whitespacesAndNewlines)) ?? "?"
                        let value = AxisValue(text: n.scalar != nil ? (n.string ?? text) : text, number: n.float ?? n.int.map(Double.init),
                                              line: n.mark?.line ?? 0, yaml: text)
                        if values.contains(where: { $0.text == value.text }) { fail(n, "\(field)[\(i)]", "\(value.text) is listed twice"); continue }
                        if path == beaconsAxis {
                            if let c = n.int, c >= 3, c <= 1000 { values.append(value) }
                            else { fail(n, "\(field)[\(i)]", "expected a beacon count from 3 to 1000, found \(value.text)") }
                            continue
                        }
                        guard !baseYAML.isEmpty else { values.append(value); continue }
                        do {
                            var r = try Yams.compose(yaml: baseYAML)!
                            r = try setting(r, path: path.split(separator: ".").map(String.init), to: n)
                            _ = try ScenarioLoader.parse(yaml: try Yams.serialize(node: r), file: basePath)
                            values.append(value)
                        } catch let e as InputErrors {
                            for x in e.errors { fail(n, "\(field)[\(i)]", "\(value.text) is refused by the scenario validator: \(x.location.field.map { "\($0): " } ?? "")\(x.message)") }
                        } catch let e as PathError {
                            fail(k, field, e.message)
                            break
                        }
                    }
                    if !values.isEmpty { axes.append(Axis(path: path, values: values)) }
                }
            } else { fail(a, "axes", "expected a mapping of field paths to lists of values") }
        }

        let spec = SweepSpec(file: file, baseName: baseName, basePath: basePath, condition: condition, evaluate: evaluate, axes: axes,
                             estimators: estimators, seeds: seeds, shards: shards, baseYAML: baseYAML)
        if errors.isEmpty && spec.jobCount > maximumJobs {
            fail(value("axes"), "axes", "\(spec.jobCount) jobs (axis values × seeds); the most one spec may ask for is \(maximumJobs)")
        }
        if !errors.isEmpty { throw InputErrors(errors.enumerated().sorted { ($0.element.location.line ?? 0, $0.offset) < ($1.element.location.line ?? 0, $1.offset) }.map(\.element)) }
        return spec
    }

    struct PathError: Error { var message: String }

    /// `node` with the value at `path` replaced (or added) by `value`. A path through a list is refused: the axes vary
    /// fields of the scenario's mappings (radio, its field impairments, test_grid).
    static func setting(_ node: Node, path: [String], to value: Node) throws -> Node {
        guard let key = path.first else { return value }
        guard var m = node.mapping else {
            throw PathError(message: "the path goes through a value that is not a mapping at '\(key)'; axes vary fields such as radio.sigma")
        }
        let child = m[Node(key)] ?? Node.mapping(Node.Mapping([]))
        m[Node(key)] = try setting(child, path: Array(path.dropFirst()), to: value)
        return .mapping(m)
    }
}
