import ArgumentParser
import Foundation
import LabCore
import LabPlot
import LabReport
import LabSweep

struct Sweep: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Run a parameter study: a spec's axes × estimators × seeds, in shards, merged with 95% intervals.",
        discussion: """
        A spec (YAML, docs/sweeps.md) names a base scenario, axes over its fields by path (radio.sigma: [2, 4, 6]; beacons: [4, 6, 8] places that many beacons with the planner), the estimators and the seeds. It expands into jobs (every combination of axis values, for every seed) and shards: shard I of N is the jobs whose index is I modulo N.

        `sweep SPEC` runs every shard that has no results yet on all cores, then merges: a killed run, run again, finishes the study. `sweep SPEC --slurm [--wait]` submits those shards as a Slurm job array instead (sbatch; see `indoorlab sweep start --help`). `sweep run SPEC --shard I/N` runs one shard (what an array task runs), `sweep merge SPEC` merges. The merged files (sweep.csv, summary.csv) and the plots are byte-identical however the study was sharded or scheduled.

        Example:
          indoorlab sweep Scenarios/sweeps/open-hall-sigma.yaml --out out/sweep
        """,
        subcommands: [SweepStart.self, SweepRun.self, SweepMergeCommand.self],
        defaultSubcommand: SweepStart.self)
}

/// Options every sweep subcommand shares.
struct SweepOptions: ParsableArguments {
    @Argument(help: "The sweep spec (YAML).")
    var spec: String

    @Option(help: "Folder of the shard files and the merged results (default: out/sweep-<spec name>).")
    var out: String?

    func load() throws -> (SweepSpec, SweepRunner) {
        let spec = try reportingInputErrors { try SweepSpec.load(path: self.spec) }
        let name = URL(fileURLWithPath: self.spec).deletingPathExtension().lastPathComponent
        return (spec, SweepRunner(spec: spec, directory: out ?? "out/sweep-\(name)"))
    }
}

/// The shard count and what a merge writes and prints (`sweep` and `sweep merge`).
struct SweepMergeOptions: ParsableArguments {
    @Option(help: "Shards the jobs are split into (default: the spec's shards, else 8).")
    var shards: Int?

    @Option(help: "Directory for the plots (error against each numeric axis).")
    var plots: String = "out/plots"

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func shardCount(_ spec: SweepSpec) throws -> Int {
        let count = shards ?? spec.shards
        guard (1...100_000).contains(count) else { throw ValidationError("--shards must be from 1 to 100000, found \(count)") }
        return count
    }

    /// Merges, plots and prints.
    func mergeAndReport(_ runner: SweepRunner, shards: Int) throws {
        let summary = try reportingInputErrors { try SweepMerge.merge(runner, shards: shards) }
        let directories = try reportingInputErrors { try OutputDirectories([("--plots", plots)]) }
        let name = URL(fileURLWithPath: runner.spec.file).deletingPathExtension().lastPathComponent
        var figures: [String] = []
        for axis in Set(summary.curves.map(\.axis)).sorted() {
            let figure = SweepFigures.errorAgainst(summary.curves, axis: axis, title: name, seeds: runner.spec.seeds.count)
            figures += try reportingInputErrors { try PlotRenderer.shared.render(figure, to: plots + "/" + SweepFigures.fileName(name: name, axis: axis)) }
        }
        directories.finish(succeeded: true)
        if json {
            try writeOutput(jsonString(SweepReport.JSON(summary, directory: runner.directory, plots: figures)), to: nil)
        } else {
            print(SweepReport.text(summary), terminator: "")
            print("merged: \(runner.directory)/sweep.csv, \(runner.directory)/summary.csv" + (figures.isEmpty ? "" : "; plots: " + figures.joined(separator: ", ")))
        }
    }
}

/// A shard: "I/N", 0 ≤ I < N.
struct ShardSelector: ExpressibleByArgument {
    var index: Int
    var count: Int
    init?(argument: String) {
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, n <= 100_000, i >= 0, i < n else { return nil }
        index = i; count = n
    }
}

struct SweepStart: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Run every shard not yet done, on all cores, then merge (the default: `indoorlab sweep SPEC`).")

    @OptionGroup var options: SweepOptions
    @OptionGroup var merging: SweepMergeOptions

    @Flag(help: "Submit the shards not yet done as a Slurm job array (sbatch) instead of running them here; --out must be on a filesystem the nodes share.")
    var slurm = false

    @Option(help: "With --slurm: the partition.")
    var partition: String?

    @Option(help: "With --slurm: each task's time limit (Slurm's format: minutes, or [days-]hours:minutes:seconds).")
    var time: String?

    @Option(help: "With --slurm: run at most this many tasks at once.")
    var arrayLimit: Int?

    @Flag(help: "With --slurm: wait until every task has ended, then merge (or name the shards that failed).")
    var wait = false

    @Option(help: "With --slurm: the sbatch program.")
    var sbatch: String = "sbatch"

    func validate() throws {
        if !slurm && (partition != nil || time != nil || arrayLimit != nil || wait) {
            throw ValidationError("--partition, --time, --array-limit and --wait go with --slurm")
        }
        if let k = arrayLimit, k < 1 { throw ValidationError("--array-limit must be at least 1, found \(k)") }
    }

    func run() throws {
        let (spec, runner) = try options.load()
        let count = try merging.shardCount(spec)
        if slurm { return try submit(runner, count) }
        let progress = Progress("sweep", total: count)
        let ran = try reportingInputErrors { try runner.runLocally(shards: count) { done, total in progress.note("\(done)/\(total) shards") } }
        progress.clear()
        if ran.count < count { printError("note: \(count - ran.count) of \(count) shards were already done in \(runner.directory); they were kept") }
        try merging.mergeAndReport(runner, shards: count)
    }
}

extension SweepStart {
    /// `--slurm`: submits the missing shards; with --wait, merges when they are all done.
    func submit(_ runner: SweepRunner, _ count: Int) throws {
        var o = SlurmSubmission.Options()
        o.partition = partition; o.time = time; o.arrayLimit = arrayLimit; o.sbatch = sbatch
        let binary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let submission = SlurmSubmission(runner: runner, shards: count, options: o, binary: binary)
        let missing = submission.missing
        guard !missing.isEmpty else {
            printError("note: all \(count) shards are done in \(runner.directory); merging")
            return try merging.mergeAndReport(runner, shards: count)
        }
        let id = try reportingInputErrors { try submission.submit(wait: wait) }
        printError("submitted Slurm job \(id): \(missing.count) of \(count) shards (array \(SlurmSubmission.arraySpec(missing, limit: arrayLimit)))")
        guard wait else {
            print(id)
            return
        }
        let failed = submission.missing
        guard failed.isEmpty else {
            printError("error: \(failed.count) of \(count) shards did not finish (\(SlurmSubmission.arraySpec(failed, limit: nil))); their logs are in \(runner.directory)/slurm/; run the same command again to submit only those")
            throw ExitCode(1)
        }
        try merging.mergeAndReport(runner, shards: count)
    }
}

struct SweepRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run one shard (I/N) and write its file: what each task of a Slurm array runs.")

    @OptionGroup var options: SweepOptions

    @Option(help: "The shard, I/N (0 ≤ I < N).")
    var shard: ShardSelector

    func run() throws {
        let (_, runner) = try options.load()
        try reportingInputErrors { try runner.runShard(shard.index, of: shard.count) }
        print(runner.shardPath(shard.index, of: shard.count))
    }
}

struct SweepMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the shards' files into sweep.csv and summary.csv, and plot error against each axis.")

    @OptionGroup var options: SweepOptions
    @OptionGroup var merging: SweepMergeOptions

    func run() throws {
        let (spec, runner) = try options.load()
        try merging.mergeAndReport(runner, shards: try merging.shardCount(spec))
    }
}
