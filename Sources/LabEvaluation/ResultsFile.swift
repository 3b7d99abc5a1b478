import Foundation
import LabCore
import LabEstimators

/// The per-epoch results of a tournament or replay as CSV: one row per estimator and epoch.
/// Plots and later comparisons read this file instead of recomputing.
public enum ResultsFile {
    public static let header = "scenario,seed,estimator,walk,epoch,t,truth_x,truth_y,fix_x,fix_y,uncertainty,reason,error,crlb,beacons_heard,room_hit,exhibit_hit,frieze_looks,frieze_hits"

    public static func encode(_ results: [EpochResult]) -> String {
        var out = header + "\n"
        out.reserveCapacity(results.count * 120)
        func num(_ v: Double?, _ digits: Int = 4) -> String { v.map { Format.fixed($0, digits) } ?? "" }
        func flag(_ b: Bool?) -> String { b.map { $0 ? "1" : "0" } ?? "" }
        for r in results {
            out += "\(r.scenario),\(r.seed),\(r.estimator.rawValue),\(r.walk),\(r.epoch),\(Format.fixed(r.t, 3)),"
            out += "\(Format.fixed(r.truth.x, 4)),\(Format.fixed(r.truth.y, 4)),\(num(r.fix?.x)),\(num(r.fix?.y)),"
            out += "\(num(r.uncertainty)),\(r.reason ?? ""),\(num(r.error)),\(r.crlb.isFinite ? Format.fixed(r.crlb, 6) : "inf"),"
            out += "\(r.beaconsHeard),\(flag(r.roomHit)),\(flag(r.exhibitHit)),\(r.friezeLooks),\(r.friezeHits)\n"
        }
        return out
    }

    /// Reads a results CSV; a malformed row is reported with its line number and column.
    public static func decode(_ text: String, file: String) throws -> [EpochResult] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        guard let first = lines.first else { throw InputError(file: file, line: 1, "the file is empty; expected the header \(header)") }
        guard first == header else { throw InputError(file: file, line: 1, "unexpected header; expected: \(header)") }
        let names = header.split(separator: ",").map(String.init)
        var out: [EpochResult] = []
        out.reserveCapacity(lines.count)
        for (k, line) in lines.enumerated().dropFirst() {
            let n = k + 1
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count == names.count else {
                throw InputError(file: file, line: n, "expected \(names.count) fields, found \(f.count)")
            }
            func bad(_ i: Int, _ what: String) -> InputError {
                InputError(file: file, line: n, field: names[i], "expected \(what), found '\(f[i])'")
            }
            func d(_ i: Int) throws -> Double {
                if f[i] == "inf" { return .infinity }
                guard let v = Double(f[i]), !v.isNaN else { throw bad(i, "a number") }
                return v
            }
            func od(_ i: Int) throws -> Double? { f[i].isEmpty ? nil : try d(i) }
            func ob(_ i: Int) throws -> Bool? {
                switch f[i] { case "": return nil; case "1": return true; case "0": return false; default: throw bad(i, "0, 1 or nothing") }
            }
            func int(_ i: Int) throws -> Int { guard let v = Int(f[i]) else { throw bad(i, "a whole number") }; return v }
            guard let seed = UInt64(f[1]) else { throw bad(1, "a seed (whole number ≥ 0)") }
            guard let est = EstimatorKind(rawValue: f[2]) else {
                throw bad(2, "an estimator (\(EstimatorKind.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            let fx = try od(8), fy = try od(9)
            out.append(EpochResult(scenario: f[0], seed: seed, estimator: est, walk: f[3], epoch: try int(4), t: try d(5),
                                   truth: Point(try d(6), try d(7)), fix: fx.flatMap { x in fy.map { Point(x, $0) } },
                                   uncertainty: try od(10), reason: f[11].isEmpty ? nil : f[11], error: try od(12),
                                   crlb: try d(13), beaconsHeard: try int(14), roomHit: try ob(15), exhibitHit: try ob(16),
                                   friezeLooks: try int(17), friezeHits: try int(18)))
        }
        return out
    }

    public static func read(path: String) throws -> [EpochResult] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(file: path, "cannot read the results file (does it exist? run 'indoorlab compare --out DIR' first)")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw InputError(file: path, "not UTF-8 text") }
        return try decode(text, file: path)
    }
}

/// What a results directory holds besides the per-epoch rows: which scenarios (and their files),
/// seeds and estimators, and the leaderboard.
public struct RunManifest: Codable, Sendable {
    public struct ScenarioEntry: Codable, Sendable { public var name: String; public var path: String
        public init(name: String, path: String) { self.name = name; self.path = path } }
    public var scenarios: [ScenarioEntry]
    public var seeds: [UInt64]
    public var estimators: [EstimatorKind]
    public var leaderboard: Leaderboard

    public init(scenarios: [ScenarioEntry], seeds: [UInt64], estimators: [EstimatorKind], leaderboard: Leaderboard) {
        self.scenarios = scenarios; self.seeds = seeds; self.estimators = estimators; self.leaderboard = leaderboard
    }

    public static let fileName = "run.json"
    public static func resultsFileName(_ scenario: String) -> String { "\(scenario)-epochs.csv" }

    public static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }
    public static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return d
    }

    public static func read(directory: String) throws -> RunManifest {
        let path = directory + "/" + fileName
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(file: path, "cannot read the run manifest (run 'indoorlab compare --out \(directory)' first)")
        }
        do { return try decoder().decode(RunManifest.self, from: data) }
        catch { throw InputError(file: path, "not a valid run manifest: \(error)") }
    }
}
