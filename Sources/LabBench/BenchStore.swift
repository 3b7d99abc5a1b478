import Foundation
import LabCore
import LabEstimators
import LabEvaluation
import LabScenarioIO
import LabStore

/// Import speed: a synthetic lab-csv directory (12 beacons, one reading every 10 ms, truth every second)
/// imported into a new recording, parse + insert + commit + flush + rename, on one core.
enum BenchStore {
    static let readings = 1_000_000
    static let figureName = "import readings/s [lab-csv]"

    static func figures(seconds: Double) throws -> [BenchFigure] {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("indoorlab-bench-\(getpid())").path
        try? fm.removeItem(atPath: dir)
        try fm.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        defer { try? fm.removeItem(atPath: dir) }
        try writeInput(dir + "/in")

        var runs = 0
        var total = 0.0
        repeat {
            let out = dir + "/run\(runs).sqlite"
            let start = DispatchTime.now().uptimeNanoseconds
            try RecordingImporter.run(format: .labCSV, paths: [dir + "/in"], to: out)
            total += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            try? fm.removeItem(atPath: out)
            runs += 1
        } while total < seconds
        let rate = Double(readings * runs) / total
        return [BenchFigure(name: figureName, value: rate, unit: "readings/s", target: 2e5,
                             note: "\(readings / 1000)k readings, 12 beacons, parse + insert + commit, \(runs) run\(runs == 1 ? "" : "s"), 1 core")]
    }

    static func writeInput(_ dir: String) throws {
        var beacons = "id,x,y\n"
        for i in 0..<12 { beacons += "B\(i),\(Double(i % 4) * 5 + 2),\(Double(i / 4) * 5 + 2)\n" }
        try Data(beacons.utf8).write(to: URL(fileURLWithPath: dir + "/beacons.csv"))
        var truth = "t,x,y\n"
        for s in 0..<(readings / 100) { truth += "\(s).500,\(Format.fixed(Double(s % 17) + 0.5, 2)),\(Format.fixed(Double(s % 11) + 0.5, 2))\n" }
        try Data(truth.utf8).write(to: URL(fileURLWithPath: dir + "/truth.csv"))
        var text = [UInt8]()
        text.reserveCapacity(readings * 16)
        text += Array("t,beacon,rssi\n".utf8)
        for i in 0..<readings {
            // t with two decimals, like a phone log: 12.34,B7,-71
            let cs = i
            text += Array("\(cs / 100).\(cs % 100 < 10 ? "0" : "")\(cs % 100),B\(i % 12),-\(45 + (i &* 7919) % 50)\n".utf8)
        }
        try Data(text).write(to: URL(fileURLWithPath: dir + "/readings.csv"))
    }
}
