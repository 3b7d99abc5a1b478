import Foundation
import LabCore
import LabStore

/// A sweep as a Slurm job array (docs/sweeps.md, "On a cluster"): one array task per shard not yet done, each running
/// `indoorlab sweep run SPEC --shard $SLURM_ARRAY_TASK_ID/N` on the shared filesystem. Submitting again submits only
/// the shards still missing, which is how a failed or killed task is recovered.
public struct SlurmSubmission: Sendable {
    public struct Options: Sendable {
        public var partition: String?
        /// Each task's time limit, in Slurm's format (`30`, `1:00:00`, `1-0`).
        public var time: String?
        /// At most this many tasks run at once (`--array=…%K`).
        public var arrayLimit: Int?
        /// The program sbatch is (a path, or a name looked up on PATH).
        public var sbatch = "sbatch"
        public init() {}
    }

    public let runner: SweepRunner
    public let shards: Int
    public let options: Options
    /// The indoorlab binary the tasks run (on the shared filesystem).
    public let binary: String

    public init(runner: SweepRunner, shards: Int, options: Options, binary: String) {
        self.runner = runner; self.shards = shards; self.options = options; self.binary = binary
    }

    /// The shards without a finished file: the array's task ids.
    public var missing: [Int] { (0..<shards).filter { !runner.isDone($0, of: shards) } }

    /// `--array`'s value: ranges of the missing shards (`0-19`, `3,7-9`), with `%K` when limited.
    public static func arraySpec(_ ids: [Int], limit: Int?) -> String {
        var parts: [String] = [], start = ids.first, previous = ids.first
        for id in ids.dropFirst() + [Int.min] {
            if let p = previous, id == p + 1 { previous = id; continue }
            if let s = start, let p = previous { parts.append(s == p ? "\(s)" : "\(s)-\(p)") }
            start = id; previous = id
        }
        return parts.joined(separator: ",") + (limit.map { "%\($0)" } ?? "")
    }

    /// The batch script for the missing shards: paths absolute, every value quoted for the shell.
    public func script() -> String {
        func q(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let dir = absolute(runner.directory)
        let name = URL(fileURLWithPath: runner.spec.file).deletingPathExtension().lastPathComponent
        var lines = ["#!/bin/sh",
                     "#SBATCH --job-name=\(q("indoorlab-sweep-" + name))",
                     "#SBATCH --array=\(Self.arraySpec(missing, limit: options.arrayLimit))",
                     "#SBATCH --output=\(q(dir + "/slurm/shard-%a.out"))",
                     "#SBATCH --ntasks=1",
                     "#SBATCH --cpus-per-task=1"]
        if let p = options.partition { lines.append("#SBATCH --partition=\(q(p))") }
        if let t = options.time { lines.append("#SBATCH --time=\(q(t))") }
        lines.append("# Written by indoorlab sweep --slurm: one task per shard of \(shards); submitting again runs only the missing ones.")
        lines.append("exec \(q(absolute(binary))) sweep run \(q(absolute(runner.spec.file))) --shard \"$SLURM_ARRAY_TASK_ID/\(shards)\" --out \(q(dir))")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes the script to `DIR/slurm/sweep.sbatch` and submits it; returns the job id sbatch printed.
    /// - Parameter wait: sbatch waits until every task has ended (`--wait`).
    /// - Throws: ``InputError`` when sbatch cannot be run or refuses the job (its own words).
    public func submit(wait: Bool) throws -> String {
        let dir = absolute(runner.directory)
        let path = dir + "/slurm/sweep.sbatch"
        try OutputFile.write(Data(script().utf8), to: path, inputs: [runner.spec.file])
        _ = chmod(path, 0o755)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [options.sbatch, "--parsable"] + (wait ? ["--wait"] : []) + [path]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        do { try p.run() } catch {
            throw InputError(file: options.sbatch, "cannot run sbatch: \(error.localizedDescription)")
        }
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let id = output.split(separator: "\n").first.map { String($0.split(separator: ";").first ?? "") } ?? ""
        // With --wait, sbatch exits non-zero when a task failed: the missing shards say which, and the caller reports them.
        if id.isEmpty || (!wait && p.terminationStatus != 0) {
            throw InputError(file: path, "sbatch refused the job (exit \(p.terminationStatus)): \(errors.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return id
    }

    private func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
