import Foundation
import Testing

/// Import and replay stream: their peak memory stays below the size of the readings they go through (both used to
/// hold every reading, import its file twice over). Peak resident memory of the command alone, through python3's
/// resource module (python3 is one of the packages `make deps` installs); `scripts/memory-bench` gives the figures.
@Suite struct MemoryTests {
    /// Peak resident memory of `args` run with the built binary, bytes.
    func peakMemory(_ args: [String]) throws -> (status: Int32, bytes: Int) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", """
            import resource, subprocess, sys
            done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
            """, binary] + args
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let parts = out.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return (Int32(parts.first ?? -1), parts.count > 1 ? parts[1] : 0)
    }

    /// Peak memory of importing `readings` readings (over `readings / 1000` seconds) and of replaying the recording.
    func peaks(_ readings: Int, in dir: String) throws -> (importing: Int, replaying: Int, fileSize: Int) {
        var text = [UInt8]()
        text.reserveCapacity(readings * 22)
        text += Array("t,beacon,rssi\n".utf8)
        for i in 0..<readings {
            text += Array("\(i / 1000).\(String(i % 1000).leftPadded(3)),\(["A", "B", "C"][i % 3]),-\(50 + i % 40)\n".utf8)
        }
        let input = dir + "/in-\(readings)", recording = dir + "/r-\(readings).sqlite"
        try writeLabCSV(input, truth: "t,x,y\n" + (0..<(readings / 1000)).map { "\($0).5,2,2" }.joined(separator: "\n") + "\n")
        try Data(text).write(to: URL(fileURLWithPath: input + "/readings.csv"))
        let imported = try peakMemory(["import", "--format", "lab-csv", input, "-o", recording])
        #expect(imported.status == 0)
        let replayed = try peakMemory(["replay", recording, "--estimators", "proximity"])
        #expect(replayed.status == 0)
        return (imported.bytes, replayed.bytes, text.count)
    }

    /// Six times the readings (1.5 million, about 22 MB of CSV and 36 MB as readings in memory, against a quarter of a
    /// million) take almost no more memory: before, import held its file twice over and replay every reading twice.
    @Test func importAndReplayMemoryIsFlatInTheReadings() throws {
        let dir = try temporaryDirectory("memory").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let small = try peaks(250_000, in: dir), large = try peaks(1_500_000, in: dir)
        let grown = large.fileSize - small.fileSize
        #expect(large.importing - small.importing < grown / 4,
                "import: \(small.importing >> 20) → \(large.importing >> 20) MiB for files of \(small.fileSize >> 20) → \(large.fileSize >> 20) MiB")
        #expect(large.replaying - small.replaying < grown / 4,
                "replay: \(small.replaying >> 20) → \(large.replaying >> 20) MiB for 0.25 → 1.5 million readings")
    }
}

extension String {
    /// The string with zeros in front up to `width` characters.
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
