import Foundation
import Testing
import LabCore
import LabStore
@testable import LabSweep

let scenariosDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Scenarios").path

/// A spec in a fresh folder; the base is the bundled open-hall by its path.
func specFile(_ body: String) throws -> (path: String, dir: String) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let path = dir + "/spec.yaml"
    try body.replacingOccurrences(of: "BASE", with: scenariosDir + "/open-hall.yaml").write(toFile: path, atomically: true, encoding: .utf8)
    return (path, dir)
}

let smallSpec = """
base: BASE
evaluate: grid
axes:
  radio.sigma: [3, 6]
  beacons: [4, 6]
estimators: [least-squares, weighted-centroid]
seeds: 3
shards: 4

"""

@Suite struct SweepSpecTests {
    @Test func jobsExpandWithTheFirstAxisSlowestAndShardsCoverEachOnce() throws {
        let spec = try SweepSpec.load(path: try specFile(smallSpec).path)
        #expect(spec.jobCount == 2 * 2 * 3)
        #expect(spec.job(0).values == [0, 0] && spec.job(0).seed == 1)
        #expect(spec.job(3).values == [0, 1] && spec.job(3).seed == 1)
        #expect(spec.job(11).values == [1, 1] && spec.job(11).seed == 3)
        for n in [1, 4, 5, 12, 20] {
            let all = (0..<n).flatMap { spec.jobs(shard: $0, of: n).map(\.index) }
            #expect(all.sorted() == Array(0..<spec.jobCount), "\(n) shards")
        }
        #expect(try spec.scenario(values: [1, 0]).radio.sigma == 6)
        #expect(spec.beaconCount(values: [0, 1]) == 6)
    }

    /// Every problem at once, each at the spec's line with its field path; a value the validator refuses says what it said.
    @Test func badSpecsNameTheLineAndTheFieldPath() throws {
        let (path, _) = try specFile("""
        base: BASE
        axes:
          radio.sigma: [2, -1]
          radio.no_such_key: [1]
          walls: []
          beacons: [2]
        estimators: [least-squares, no-such-estimator]
        seeds: 0
        extra: 1

        """)
        let e = try #require(throws: InputErrors.self) { try SweepSpec.load(path: path) }
        let text = e.errors.map(\.description)
        func has(_ line: Int, _ field: String, _ words: String) -> Bool {
            e.errors.contains { $0.location.line == line && $0.location.field == field && $0.message.contains(words) }
        }
        #expect(has(3, "axes.radio.sigma[1]", "refused by the scenario validator: radio.sigma"), "\(text)")
        #expect(has(4, "axes.radio.no_such_key[0]", "unknown"), "\(text)")
        #expect(has(5, "axes.walls", "non-empty list"), "\(text)")
        #expect(has(6, "axes.beacons[0]", "beacon count"), "\(text)")
        #expect(has(7, "estimators[1]", "unknown estimator 'no-such-estimator'"), "\(text)")
        #expect(has(8, "seeds", "from 1"), "\(text)")
        #expect(has(9, "extra", "unknown key"), "\(text)")
        #expect(e.errors.allSatisfy { $0.location.file == path })
    }

    @Test func aMissingBaseIsSaidWithWhatToGive() throws {
        let (path, _) = try specFile("estimators: [least-squares]\nseeds: 2\n")
        let e = try #require(throws: InputErrors.self) { try SweepSpec.load(path: path) }
        #expect(e.errors.contains { $0.location.field == "base" && $0.message.contains("missing") })
    }
}

@Suite struct SweepRunTests {
    /// The same spec gives byte-identical merged files whether it ran as 1, 4 or 7 shards, and in whatever order.
    @Test func mergedResultsDoNotDependOnSharding() throws {
        let (path, dir) = try specFile(smallSpec)
        let spec = try SweepSpec.load(path: path)
        var outputs: [[Data]] = []
        for n in [1, 4, 7] {
            let runner = SweepRunner(spec: spec, directory: dir + "/run\(n)")
            if n == 7 { for k in (0..<n).reversed() { try runner.runShard(k, of: n) } } else { try runner.runLocally(shards: n) }
            let summary = try SweepMerge.merge(runner, shards: n)
            #expect(summary.rows.count == spec.jobCount * 2)
            outputs.append(try ["sweep.csv", "summary.csv"].map { try Data(contentsOf: URL(fileURLWithPath: runner.directory + "/" + $0)) })
        }
        #expect(outputs[0] == outputs[1] && outputs[1] == outputs[2])
        // The summary has a cell per combination and estimator, each over three seeds with an interval around its mean.
        let summary = try SweepMerge.merge(SweepRunner(spec: spec, directory: dir + "/run1"), shards: 1)
        #expect(summary.cells.count == 4 * 2)
        for c in summary.cells {
            #expect(c.meanError.count == 3 && c.meanError.low <= c.meanError.mean && c.meanError.mean <= c.meanError.high, "\(c)")
        }
        // Curves: error against each numeric axis, one per estimator.
        #expect(Set(summary.curves.map(\.axis)) == ["radio.sigma", "beacons"] && summary.curves.count == 4)
        // More shadowing, more error, for the least-squares fit.
        let ls = try #require(summary.curves.first { $0.axis == "radio.sigma" && $0.estimator == "least-squares" })
        #expect(ls.error[1].mean > ls.error[0].mean)
    }

    /// A run killed between shards loses nothing finished: run again, only the missing shards run; a half-written
    /// temporary file is not a finished shard; merge says which shards are missing and how to run them.
    @Test func anInterruptedRunResumesWithTheMissingShardsOnly() throws {
        let (path, dir) = try specFile(smallSpec)
        let spec = try SweepSpec.load(path: path)
        let runner = SweepRunner(spec: spec, directory: dir + "/out")
        try runner.runShard(0, of: 4)
        try runner.runShard(2, of: 4)
        // What a kill during a write leaves: a hidden partial file beside the shards (of a pid no process has).
        try "job,radio.sigma\n0,3".write(toFile: dir + "/out/shards/" + PartialFiles.name(for: "shard-0001-of-0004.csv", pid: 99_999_999, tag: "-9"),
                                         atomically: false, encoding: .utf8)
        let e = try #require(throws: InputError.self) { try SweepMerge.rows(runner, shards: 4) }
        #expect(e.message.contains("2 of 4 shards") && e.message.contains("(1, 3)") && e.message.contains("--shard I/4"), "\(e)")
        let ran = try runner.runLocally(shards: 4)
        #expect(ran == [1, 3])
        #expect(try runner.runLocally(shards: 4).isEmpty)
        #expect(try SweepMerge.rows(runner, shards: 4).count == spec.jobCount * 2)
    }

    /// A shard file of another spec (other axes) is refused with its name, not merged.
    @Test func aShardOfAnotherSpecIsRefused() throws {
        let (path, dir) = try specFile(smallSpec)
        let spec = try SweepSpec.load(path: path)
        let runner = SweepRunner(spec: spec, directory: dir + "/out")
        try runner.runLocally(shards: 2)
        try "job,x,seed,estimator,epochs,fixes,mean_error_m,p90_error_m\n".write(toFile: runner.shardPath(1, of: 2), atomically: true, encoding: .utf8)
        let e = try #require(throws: InputError.self) { try SweepMerge.rows(runner, shards: 2) }
        #expect(e.location.file == runner.shardPath(1, of: 2) && e.message.contains("not a shard of this spec"))
    }
}

@Suite struct MeanIntervalTests {
    /// Student's t: 1…5 has mean 3, s = √2.5, t(0.975, 4) = 2.776445, so the half-width is 1.963243.
    @Test func theIntervalIsStudentsT() {
        let i = MeanInterval([1, 2, 3, 4, 5])
        #expect(i.mean == 3 && i.count == 5)
        #expect(abs((i.high - i.mean) - 2.776445105 * 2.5.squareRoot() / 5.0.squareRoot()) < 1e-6)
        #expect(abs((i.mean - i.low) - (i.high - i.mean)) < 1e-12)
        let one = MeanInterval([4, .nan])
        #expect(one.mean == 4 && one.count == 1 && one.low.isNaN && one.high.isNaN)
    }

    @Test func csvFieldsRoundTrip() {
        let fields = ["plain", "a,b", "say \"hi\"", "{mean: 0, sigma: 8}", ""]
        let line = fields.map(SweepCSV.field).joined(separator: ",") + "\n"
        #expect(SweepCSV.records(line) == [fields])
    }
}

@Suite struct SlurmScriptTests {
    @Test func theArrayListsOnlyTheMissingShardsAsRanges() {
        #expect(SlurmSubmission.arraySpec(Array(0..<20), limit: nil) == "0-19")
        #expect(SlurmSubmission.arraySpec([3, 7, 8, 9, 12], limit: 4) == "3,7-9,12%4")
        #expect(SlurmSubmission.arraySpec([5], limit: nil) == "5")
    }

    /// The script runs one shard per task on absolute paths, quoted for the shell, with the options given.
    @Test func theScriptRunsOneShardPerTask() throws {
        let (path, dir) = try specFile(smallSpec)
        let runner = SweepRunner(spec: try SweepSpec.load(path: path), directory: dir + "/it's out")
        try runner.runShard(1, of: 3)
        var o = SlurmSubmission.Options()
        o.partition = "debug"; o.time = "10:00"; o.arrayLimit = 2
        let script = SlurmSubmission(runner: runner, shards: 3, options: o, binary: "/opt/indoorlab/bin/indoorlab").script()
        #expect(script.contains("#SBATCH --array=0,2%2\n"))
        #expect(script.contains("#SBATCH --partition='debug'\n") && script.contains("#SBATCH --time='10:00'\n"))
        #expect(script.contains("exec '/opt/indoorlab/bin/indoorlab' sweep run '\(path)' --shard \"$SLURM_ARRAY_TASK_ID/3\" --out '\(dir)/it'\\''s out'"))
    }
}
