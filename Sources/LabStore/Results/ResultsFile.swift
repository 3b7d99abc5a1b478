import Foundation
import LabCore
import LabEstimators
import LabResults

/// The per-epoch results of a tournament or replay as CSV: one row per estimator and epoch.
/// Plots and later comparisons read this file instead of recomputing.
public enum ResultsFile {
    public static let columns = ["scenario", "seed", "estimator", "walk", "epoch", "t", "truth_x", "truth_y", "fix_x", "fix_y",
                                 "uncertainty", "reason", "error", "crlb", "beacons_heard", "room_hit", "exhibit_hit",
                                 "frieze_looks", "frieze_hits"]
    /// Columns later versions added: written always, read when present.
    public static let optionalColumns = ["pcrb", "cov_xx", "cov_xy", "cov_yy"]
    public static var header: String { (columns + optionalColumns).joined(separator: ",") }

    public static func encode(_ results: [EpochResult]) -> String {
        var out = header + "\n"
        out.reserveCapacity(results.count * 120)
        func num(_ v: Double?, _ digits: Int = 4) -> String { v.map { Format.fixed($0, digits) } ?? "" }
        func flag(_ b: Bool?) -> String { b.map { $0 ? "1" : "0" } ?? "" }
        for r in results {
            out += "\(r.scenario),\(r.seed),\(r.estimator.rawValue),\(r.walk),\(r.epoch),\(Format.fixed(r.t, 3)),"
            out += "\(Format.fixed(r.truth.x, 4)),\(Format.fixed(r.truth.y, 4)),\(num(r.fix?.x)),\(num(r.fix?.y)),"
            out += "\(num(r.uncertainty)),\(r.reason ?? ""),\(num(r.error)),\(r.crlb.isFinite ? Format.fixed(r.crlb, 6) : "inf"),"
            out += "\(r.beaconsHeard),\(flag(r.roomHit)),\(flag(r.exhibitHit)),\(r.friezeLooks),\(r.friezeHits),"
            out += "\(r.pcrb.map { $0.isFinite ? Format.fixed($0, 6) : "inf" } ?? ""),"
            if let c = r.covariance, c.isCovarianceMatrix {
                // Nine significant digits: a variance of 1e9 m² keeps its relation to the others.
                out += String(format: "%.9g,%.9g,%.9g\n", c.xx, c.xy, c.yy)
            } else {
                out += ",,\n"
            }
        }
        return out
    }

    /// Reads results CSV text; a malformed row is reported with its line number and column.
    public static func decode(_ text: String, file: String) throws -> [EpochResult] {
        try decode(CSVFile(path: file, bytes: Array(text.utf8)))
    }

    /// Reads a results file written by ``encode(_:)``.
    /// `scenario`: every row must be of it (the file is named after it).
    public static func read(path: String, scenario: String? = nil) throws -> [EpochResult] {
        let csv: CSVFile
        do { csv = try CSVFile(path: path) } catch let e as InputError {
            throw InputError(e.location, "cannot read the results file: \(e.message) (run 'indoorlab compare --out DIR' first)")
        }
        return try decode(csv, scenario: scenario)
    }

    /// Reads every row, checking each value against what the lab writes: finite coordinates within
    /// ``EpochResult/coordinateLimit``, an error that is the fix's distance from the truth, counts ≥ 0, a known
    /// reason on rows without a fix, one row per scenario, seed, estimator, walk and epoch; with `scenario`, every row
    /// of that scenario. A file edited by hand or another program is refused with its line and field, never plotted.
    static func decode(_ csv: CSVFile, scenario expected: String? = nil) throws -> [EpochResult] {
        var out: [EpochResult] = []
        var seen: [String: Int] = [:]
        try csv.forEachRow(required: columns, optional: optionalColumns) { rec, c in
            func od(_ name: String) throws -> Double? { try rec.optionalDouble(c[name]!) }
            func d(_ name: String) throws -> Double { try rec.double(c[name]!) }
            func int(_ name: String) throws -> Int {
                let v = try rec.int(c[name]!)
                guard v >= 0 else { throw rec.error(c[name]!, "expected a count ≥ 0, found \(v)") }
                return v
            }
            func within(_ name: String, _ v: Double?, _ range: ClosedRange<Double>, _ unit: String) throws {
                if let v, let problem = Format.outside(range, v, unit: unit) { throw rec.error(c[name]!, problem) }
            }
            func flag(_ name: String) throws -> Bool? {
                let i = c[name]!
                switch rec.string(i) {
                case "": return nil
                case "1": return true
                case "0": return false
                default: throw rec.error(i, "expected 0, 1 or nothing, found '\(rec.string(i))'")
                }
            }
            let seedField = c["seed"]!, estField = c["estimator"]!, crlbField = c["crlb"]!
            guard let seed = UInt64(rec.string(seedField)) else {
                throw rec.error(seedField, "expected a seed (whole number ≥ 0), found '\(rec.string(seedField))'")
            }
            guard let est = EstimatorKind(rawValue: rec.string(estField)) else {
                throw rec.error(estField, "expected an estimator (\(EstimatorKind.knownNames)), found '\(rec.string(estField))'")
            }
            let crlb = rec.string(crlbField) == "inf" ? Double.infinity : try rec.double(crlbField)
            let pcrb: Double? = try c["pcrb"].flatMap { i in rec.string(i) == "inf" ? Double.infinity : try rec.optionalDouble(i) }
            let fx = try od("fix_x"), fy = try od("fix_y")
            let reason = rec.string(c["reason"]!)
            let scenario = rec.string(c["scenario"]!), walk = rec.string(c["walk"]!), epoch = try int("epoch"), t = try d("t")
            let truth = Point(try d("truth_x"), try d("truth_y")), error = try od("error"), uncertainty = try od("uncertainty")
            if let expected, scenario != expected {
                throw rec.error(c["scenario"]!, "expected scenario '\(expected)' (the file's name says so), found '\(abbreviated(scenario))'")
            }
            let limit = -EpochResult.coordinateLimit...EpochResult.coordinateLimit
            for (name, v) in [("truth_x", truth.x), ("truth_y", truth.y), ("fix_x", fx), ("fix_y", fy)] { try within(name, v, limit, "m") }
            try within("t", t, -EpochResult.timeLimit...EpochResult.timeLimit, "s")
            for (name, v, what) in [("uncertainty", uncertainty, "an uncertainty ≥ 0 m"), ("crlb", crlb, "a bound ≥ 0 m² or inf"),
                                    ("pcrb", pcrb, "a bound ≥ 0 m² or inf")] where v.map({ !($0 >= 0) }) == true {
                throw rec.error(c[name]!, "expected \(what), found '\(rec.shown(c[name]!))'")
            }
            if (fx == nil) != (fy == nil) { throw rec.error(c[fx == nil ? "fix_x" : "fix_y"]!, "a fix needs fix_x and fix_y together") }
            if let fx, let fy {
                // The writer rounds each to 4 decimals: the error it wrote is the distance to within 10⁻³ m.
                let distance = Point(fx, fy).distance(to: truth)
                guard let error, abs(error - distance) <= 1e-3 + 1e-9 * distance else {
                    throw rec.error(c["error"]!, "expected the fix's distance from the truth, \(Format.fixed(distance, 4)) m, found '\(rec.shown(c["error"]!))'")
                }
                if !reason.isEmpty { throw rec.error(c["reason"]!, "a row with a fix gives no reason, found '\(rec.shown(c["reason"]!))'") }
            } else {
                if error != nil { throw rec.error(c["error"]!, "a row without a fix has no error, found '\(rec.shown(c["error"]!))'") }
                if !reason.isEmpty && !NoFixReason.codes.contains(reason) {
                    throw rec.error(c["reason"]!, "expected a no-fix reason (\(NoFixReason.codes.sorted().joined(separator: ", "))), found '\(rec.shown(c["reason"]!))'")
                }
            }
            let looks = try int("frieze_looks"), hits = try int("frieze_hits")
            if hits > looks { throw rec.error(c["frieze_hits"]!, "expected at most frieze_looks (\(looks)), found \(hits)") }
            let key = "\(scenario)\u{1F}\(seed)\u{1F}\(est.rawValue)\u{1F}\(walk)\u{1F}\(epoch)"
            if let first = seen[key] {
                throw rec.error(nil, "the same epoch as line \(first) (scenario, seed, estimator, walk and epoch): a row appears twice")
            }
            seen[key] = rec.line
            out.append(EpochResult(scenario: scenario, seed: seed, estimator: est, walk: walk,
                                   epoch: epoch, t: t, truth: truth,
                                   fix: fx.flatMap { x in fy.map { Point(x, $0) } }, uncertainty: uncertainty,
                                   reason: reason.isEmpty ? nil : reason, error: error, crlb: crlb,
                                   beaconsHeard: try int("beacons_heard"), roomHit: try flag("room_hit"),
                                   exhibitHit: try flag("exhibit_hit"), friezeLooks: looks, friezeHits: hits))
            out[out.count - 1].pcrb = pcrb
            // The stated covariance: all three entries or none, a covariance matrix (``Covariance2/isCovarianceMatrix``).
            let names = ["cov_xx", "cov_xy", "cov_yy"]
            let entries = try names.map { name in try c[name].flatMap { try rec.optionalDouble($0) } }
            if let xx = entries[0], let xy = entries[1], let yy = entries[2] {
                if xx < 0 || yy < 0 { throw rec.error(c[xx < 0 ? "cov_xx" : "cov_yy"]!, "expected a variance ≥ 0, found \(xx < 0 ? xx : yy)") }
                if !Covariance2(xx: xx, xy: xy, yy: yy).isCovarianceMatrix {
                    throw rec.error(c["cov_xy"]!, "not a covariance: cov_xy² (\(xy * xy)) exceeds cov_xx·cov_yy (\(xx * yy))")
                }
                out[out.count - 1].covariance = Covariance2(xx: xx, xy: xy, yy: yy)
            } else if entries.contains(where: { $0 != nil }), let empty = zip(names, entries).first(where: { $0.1 == nil }) {
                throw rec.error(c[empty.0], "\(empty.0) is empty: a covariance needs cov_xx, cov_xy and cov_yy together")
            }
        }
        return out
    }
}

/// What a results directory holds besides the per-epoch rows: which scenarios (and their files),
/// seeds and estimators, and the leaderboard.
public struct RunManifest: Codable, Sendable {
    public struct ScenarioEntry: Codable, Sendable {
        public var name: String
        public var path: String
        /// The scenario file's contents as the run read them (``fingerprint(ofFileAt:)``), so that figures are never drawn
        /// on a floorplan edited since; absent from manifests written before it was kept.
        public var fingerprint: String?
        public init(name: String, path: String, fingerprint: String? = nil) { self.name = name; self.path = path; self.fingerprint = fingerprint }

        /// FNV-1a (64 bits, hex) of the file's bytes; nil when it cannot be read. Tells an edited file from the one a run
        /// read (not a cryptographic hash: it guards against accidents, not forgery).
        public static func fingerprint(ofFileAt path: String) -> String? {
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in data { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return String(h, radix: 16)
        }
    }
    /// A real recording scored under a protocol (`compare --real`): its label and what was calibrated on what.
    public struct RealEntry: Codable, Sendable, Hashable { public var name: String; public var summary: String
        public init(name: String, summary: String) { self.name = name; self.summary = summary } }
    public var scenarios: [ScenarioEntry]
    /// The real protocols of the run, whose epochs are saved beside the scenarios' (no scenario file: their venues
    /// came from recordings). Absent from manifests written before real protocols were saved.
    public var real: [RealEntry]
    public var seeds: [UInt64]
    public var estimators: [EstimatorKind]
    public var leaderboard: Leaderboard

    public init(scenarios: [ScenarioEntry], real: [RealEntry] = [], seeds: [UInt64], estimators: [EstimatorKind], leaderboard: Leaderboard) {
        self.scenarios = scenarios; self.real = real; self.seeds = seeds; self.estimators = estimators; self.leaderboard = leaderboard
    }

    enum CodingKeys: String, CodingKey { case scenarios, real, seeds, estimators, leaderboard }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        scenarios = try c.decode([ScenarioEntry].self, forKey: .scenarios)
        real = try c.decodeIfPresent([RealEntry].self, forKey: .real) ?? []
        seeds = try c.decode([UInt64].self, forKey: .seeds)
        estimators = try c.decode([EstimatorKind].self, forKey: .estimators)
        leaderboard = try c.decode(Leaderboard.self, forKey: .leaderboard)
    }

    public static let fileName = "run.json"
    public static func resultsFileName(_ scenario: String) -> String { "\(scenario)-epochs.csv" }
    public static func boundMapFileName(_ scenario: String) -> String { "\(scenario)-crlb-map.json" }

    public static func read(directory: String) throws -> RunManifest {
        let path = directory + "/" + fileName
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw InputError(file: directory, "is a file: expected the results directory that 'indoorlab compare --out DIR' wrote")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(file: path, "cannot read the run manifest (run 'indoorlab compare --out \(directory)' first)")
        }
        let manifest = try LabJSON.decode(RunManifest.self, from: data, file: path, as: "a valid run manifest")
        // The names become file names (`<name>-epochs.csv`, the figures): '../x' would read and write outside. A scenario's
        // is its label in a condition (`name@field`).
        for (i, name) in manifest.scenarios.map(\.name).enumerated() where !isFileSafe(SimulationCondition.scenarioName(inLabel: name)) {
            throw InputError(file: path, field: "scenarios[\(i)].name", "'\(abbreviated(name))' \(fileSafeRule)")
        }
        for (i, name) in manifest.real.map(\.name).enumerated() where !isFileSafe(name) {
            throw InputError(file: path, field: "real[\(i)].name", "'\(abbreviated(name))' \(fileSafeRule)")
        }
        if let (field, problem) = manifest.leaderboardProblem { throw InputError(file: path, field: field, problem) }
        return manifest
    }

    /// Where the leaderboard disagrees with the run it belongs to, or holds figures no run gives (field, message), or
    /// nil: its scenarios and seeds are the run's, its estimators the run's, each score's counts and rates within
    /// range and its errors ≥ 0 m (NaN or ∞: no fix), and an overall ranking when there are scores.
    var leaderboardProblem: (String, String)? {
        let b = leaderboard
        // A manifest from before real protocols were saved lists them only in its leaderboard.
        let names = Set(scenarios.map(\.name) + real.map(\.name) + (real.isEmpty ? b.scenarios : []))
        if let i = b.scenarios.firstIndex(where: { !names.contains($0) }) {
            return ("leaderboard.scenarios[\(i)]", "'\(abbreviated(b.scenarios[i]))' is no scenario or real protocol of the run")
        }
        if let missing = scenarios.first(where: { !b.scenarios.contains($0.name) }) {
            return ("leaderboard.scenarios", "expected every scenario of the run; '\(missing.name)' is missing")
        }
        if b.seeds != seeds { return ("leaderboard.seeds", "expected the run's seeds, \(seeds.map(String.init).joined(separator: ", "))") }
        let known = Set(estimators)
        for (i, s) in b.scores.enumerated() {
            let field = "leaderboard.scores[\(i)]"
            if !b.scenarios.contains(s.scenario) { return (field + ".scenario", "'\(abbreviated(s.scenario))' is no scenario or real protocol of the run") }
            if !known.contains(s.estimator) { return (field + ".estimator", "'\(s.estimator.rawValue)' is not among the run's estimators") }
            let st = s.stats
            if !(0...st.count).contains(st.fixes) { return (field + ".stats.fixes", "expected 0–\(st.count) (the epochs), found \(st.fixes)") }
            if let p = Format.outside(0...1, st.availability) { return (field + ".stats.availability", p) }
            for (name, v) in [("mean", st.mean), ("median", st.median), ("p75", st.p75), ("p90", st.p90), ("p95", st.p95), ("rmse", st.rmse), ("max", st.max)]
            where v < 0 {
                return (field + ".stats.\(name)", "expected an error ≥ 0 m (nan or inf: no fix), found \(Format.number(v))")
            }
        }
        for (i, o) in b.overall.enumerated() {
            if !known.contains(o.estimator) { return ("leaderboard.overall[\(i)].estimator", "'\(o.estimator.rawValue)' is not among the run's estimators") }
            if o.meanP75 < 0 { return ("leaderboard.overall[\(i)].meanP75", "expected an error ≥ 0 m (nan or inf: no fix), found \(Format.number(o.meanP75))") }
        }
        if !b.scores.isEmpty && b.overall.isEmpty { return ("leaderboard.overall", "empty, though the leaderboard has scores") }
        return nil
    }
}

/// A results directory: the per-epoch rows of every scenario, each scenario's √CRLB map, and the manifest.
public enum ResultsDirectory {
    /// Writes every scenario's results and bound map and every real protocol's results, then the manifest (last,
    /// so a directory with a manifest is complete), each file atomically.
    public static func write(results: [EpochResult], boundMaps: [String: BoundMap], manifest: RunManifest, to dir: String) throws {
        // An earlier run's manifest goes first: were a later write to fail, the directory must not look complete with
        // this run's epochs under that run's leaderboard.
        let old = dir + "/" + RunManifest.fileName
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: old, isDirectory: &isDirectory), !isDirectory.boolValue {
            do { try FileManager.default.removeItem(atPath: old) }
            catch { throw InputError(file: old, "cannot remove the earlier run's manifest: \(error.localizedDescription)") }
        }
        let grouped = Dictionary(grouping: results, by: \.scenario)
        for name in manifest.real.map(\.name) + manifest.scenarios.map(\.name) {
            try OutputFile.write(Data(ResultsFile.encode(grouped[name] ?? []).utf8), to: dir + "/" + RunManifest.resultsFileName(name))
        }
        for s in manifest.scenarios {
            if let map = boundMaps[s.name] {
                try OutputFile.write(try LabJSON.encoder().encode(map), to: dir + "/" + RunManifest.boundMapFileName(s.name))
            }
        }
        try OutputFile.write(try LabJSON.encoder().encode(manifest), to: dir + "/" + RunManifest.fileName)
    }

    /// The bound map of `scenario` in the results directory.
    public static func readBoundMap(directory: String, scenario: String) throws -> BoundMap {
        let path = directory + "/" + RunManifest.boundMapFileName(scenario)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(file: path, "cannot read the √CRLB map (written by 'indoorlab compare --out \(directory)')")
        }
        let map = try LabJSON.decode(BoundMap.self, from: data, file: path, as: "a valid √CRLB map")
        if let (field, problem) = map.problem(scenario: scenario) { throw InputError(file: path, field: field, problem) }
        return map
    }
}
