import Foundation
import LabCore
import Testing
@testable import LabStore

/// CSV files are read block by block (``CSVFile/blockSize``): lines cut by a block's end, a byte-order mark, CRLF and
/// errors deep in a file come out as when the file was read whole, and memory stays flat with the file's size.
@Suite struct StreamingImportTests {
    /// Readings spread over `lines` rows, one every 10 ms round the three beacons, CRLF line ends and a byte-order mark.
    func readings(_ lines: Int) -> [UInt8] {
        var text = [UInt8]([0xEF, 0xBB, 0xBF]) + Array("t,beacon,rssi\r\n".utf8)
        text.reserveCapacity(lines * 20)
        for i in 0..<lines { text += Array("\(Double(i) / 100),\(["A", "B", "C"][i % 3]),-\(50 + i % 40).5\r\n".utf8) }
        return text
    }

    @Test func aFileOfManyBlocksIsReadWhole() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let lines = 200_000   // about 4 MB: four blocks, each cutting a line
        let bytes = readings(lines)
        #expect(bytes.count > 3 * CSVFile.blockSize)
        try writeLabCSV(dir + "/in", truth: "t,x,y\n" + (0..<(lines / 100)).map { "\($0).5,2,2" }.joined(separator: "\n") + "\n")
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/in/readings.csv"))
        let summary = try RecordingImporter.run(format: .labCSV, paths: [dir + "/in"], to: dir + "/r.sqlite")
        #expect(summary.rssiSamples == lines)
        let r = try RecordingStore.read(path: dir + "/r.sqlite")
        // Every line's values, across every block boundary.
        #expect(r.rssi.indices.allSatisfy { i in r.rssi[i].t == Double(i) / 100 && r.rssi[i].beacon == i % 3 && r.rssi[i].rssi == -Double(50 + i % 40) - 0.5 },
                "every reading as written")
    }

    @Test func errorsDeepInAFileNameTheirLineAndColumn() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let lines = 150_000
        var bytes = readings(lines)
        // A NUL in line 120,002 (the header is line 1), past the first blocks: its line and column as a whole read gave.
        let target = 120_001
        var line = 1, at = 0
        while line < target + 1 { if bytes[at] == 0x0A { line += 1 }; at += 1 }
        bytes[at + 2] = 0
        try writeLabCSV(dir + "/in")
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/in/readings.csv"))
        let csv = try CSVFile(path: dir + "/in/readings.csv")
        #expect(throws: InputError(InputLocation(file: dir + "/in/readings.csv", line: target + 1, column: 3),
                                   "a NUL byte (0x00): expected text (is this a binary or corrupted file?)")) {
            try csv.forEachRecord(columns: []) { _ in }
        }
        // A bad number far in names its line.
        var bad = readings(lines)
        let text = String(decoding: bad, as: UTF8.self).replacingOccurrences(of: "\n1400.02,B,", with: "\n1400.02,B,x")
        bad = Array(text.utf8)
        try Data(bad).write(to: URL(fileURLWithPath: dir + "/in/readings.csv"))
        do {
            try RecordingImporter.run(format: .labCSV, paths: [dir + "/in"], to: dir + "/r.sqlite")
            Issue.record("imported")
        } catch let e as InputError {
            #expect(e.location.line == 140_004 && e.location.field == "rssi" && e.message.contains("expected a number, found 'x-"), "\(e)")
        }
    }

    @Test func aLineLongerThanTheLimitIsRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/long.csv"
        var bytes = Array("t,beacon,rssi\n0.1,A,-60\n".utf8)
        bytes += [UInt8](repeating: 0x41, count: CSVFile.maximumLineBytes + CSVFile.blockSize)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: InputError(InputLocation(file: path, line: 3), "a line longer than 16 MiB: expected a CSV line (is this a CSV file?)")) {
            try CSVFile(path: path).forEachRecord(columns: []) { _ in }
        }
    }

    /// A recording is at most ``WorkBudget/maximumWindowsPerWalk`` scan windows long: every command that reads it keeps a
    /// result per window. A longer one is refused at the line that crosses the limit.
    @Test func readingsSpanningMoreWindowsThanTheBudgetAreRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try writeLabCSV(dir + "/in", readings: "t,beacon,rssi\n0,A,-60\n1000,B,-70\n2000.02,C,-75\n")
        try expectImport(dir + "/in", scanWindow: 0.01, failsAt: 4,
                         containing: "the samples span 2000.02 s, more than 200000 scan windows of 0.01 s (2000 s), the most a recording may hold")
    }

    func expectImport(_ dir: String, scanWindow: Double, failsAt line: Int, containing text: String) throws {
        do {
            try RecordingImporter.run(format: .labCSV, paths: [dir], to: dir + "/../r.sqlite", options: ImportOptions(scanWindow: scanWindow))
            Issue.record("imported")
        } catch let e as InputError {
            #expect(e.location.file == dir + "/readings.csv" && e.location.line == line && e.location.field == "t", "\(e)")
            #expect(e.message.contains(text), "\(e)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/../r.sqlite"))
    }
}
