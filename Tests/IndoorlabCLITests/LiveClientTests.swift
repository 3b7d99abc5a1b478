import Foundation
import Testing

/// The live service against an independent client: Python with PyPI's `websockets` (Tests/live/live_client.py), over
/// the built `indoorlab serve` as a process of its own.
@Suite(.serialized) struct LiveClientTests {
    func python(_ mode: String, _ extra: [String] = []) throws -> (status: Int32, report: [String: Any], stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", root.appendingPathComponent("Tests/live/live_client.py").path, mode, "--binary", binary,
                       "--scenario", root.appendingPathComponent("Scenarios/open-hall.yaml").path] + extra
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile(), stderr = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let last = String(decoding: stdout, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        let report = (try? JSONSerialization.jsonObject(with: Data(last.utf8))) as? [String: Any] ?? [:]
        return (p.terminationStatus, report, String(decoding: stderr, as: UTF8.self))
    }

    /// The schema as docs/live.md states it, checked from outside: welcome, acknowledgements, locations and their
    /// fields, error codes and field paths, 401 without a token, /metrics by reason, /v1/phones, the recording.
    @Test func aPythonClientSpeaksTheSchema() throws {
        let r = try python("schema")
        #expect(r.status == 0 && (r.report["problems"] as? [String])?.isEmpty == true, "\(r.report) \(r.stderr.suffix(2000))")
    }

    /// SIGKILL under load, 10 times at random moments (a restart each time, the client sending again what was not
    /// acknowledged): every acknowledged message is in the recording exactly once, and replay reads it.
    @Test func acknowledgedMessagesSurviveSIGKILL() throws {
        let r = try python("kill", ["--kills", "10", "--seed", "3"])
        #expect(r.status == 0 && (r.report["problems"] as? [String])?.isEmpty == true, "\(r.report) \(r.stderr.suffix(2000))")
        #expect(r.report["kills"] as? Int == 10 && r.report["acknowledged"] as? Int == r.report["messages"] as? Int)
    }

    /// 10,000 malformed, oversized, out-of-range, unknown-beacon and forbidden messages, and 100 connections with a wrong
    /// token: the service stays up, stores nothing of them, and counts each in /metrics by reason.
    @Test func tenThousandBadMessagesAreCountedAndNothingIsStored() throws {
        let r = try python("abuse", ["--messages", "10000"])
        #expect(r.status == 0 && (r.report["problems"] as? [String])?.isEmpty == true, "\(r.report) \(r.stderr.suffix(2000))")
        #expect(r.report["stored"] as? Int == 0)
    }
}
