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

/// The live map in a real browser: headless Chromium (Debian's `chromium`) opens `/?token=VIEWER` while simulated phones
/// walk museum-gallery; the page draws the floorplan, moves each phone's dot and logs the locations arriving.
@Suite(.serialized) struct LiveMapPageTests {
    func run(_ executable: String, _ args: [String], output: URL? = nil) throws -> (status: Int32, stdout: String, process: Process) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [executable] + args
        let out = output ?? FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = FileHandle.nullDevice
        try p.run()
        return (0, out.path, p)
    }

    @Test func headlessChromiumShowsTheFloorplanAndMovingPhones() throws {
        let dir = try temporaryDirectory("map")
        defer { try? FileManager.default.removeItem(at: dir) }
        let phoneToken = dir.appendingPathComponent("phone.token"), viewerToken = dir.appendingPathComponent("viewer.token")
        try "phone-0123456789abcdef".write(to: phoneToken, atomically: true, encoding: .utf8)
        try "viewer-0123456789abcdef".write(to: viewerToken, atomically: true, encoding: .utf8)
        let serveOut = dir.appendingPathComponent("serve.out")
        let (_, _, serve) = try run(binary, ["serve", "museum-gallery", "--port", "0", "--json", "--no-advertise", "--token-file", phoneToken.path,
                                             "--viewer-token-file", viewerToken.path, "--recordings", dir.appendingPathComponent("rec").path], output: serveOut)
        defer { serve.terminate(); serve.waitUntilExit() }
        var port = 0
        for _ in 0..<100 where port == 0 {
            usleep(50_000)
            let text = (try? String(contentsOf: serveOut, encoding: .utf8)) ?? ""
            port = ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any])?["port"] as? Int ?? 0
        }
        try #require(port > 0, "serve did not start")
        let (_, _, phones) = try run(binary, ["phone", "museum-gallery", "--walk", "visitor", "--connect", "ws://127.0.0.1:\(port)",
                                              "--token-file", phoneToken.path, "--phones", "3", "--speed", "4"])
        // SIGKILL: the test runner's children may inherit SIGTERM ignored (the service installs its own handler).
        defer { kill(phones.processIdentifier, SIGKILL); phones.waitUntilExit() }
        sleep(4)
        let url = "http://127.0.0.1:\(port)/?token=viewer-0123456789abcdef"
        let browser = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,800", "--virtual-time-budget=6000"]
        let shot = dir.appendingPathComponent("map.png")
        let (_, _, screenshot) = try run("chromium", browser + ["--screenshot=\(shot.path)", url])
        screenshot.waitUntilExit()
        let domFile = dir.appendingPathComponent("dom.html")
        let (_, _, dump) = try run("chromium", browser + ["--dump-dom", url], output: domFile)
        dump.waitUntilExit()
        let dom = try String(contentsOf: domFile, encoding: .utf8)
        let png = try Data(contentsOf: shot)
        #expect(png.count > 20_000 && png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a screenshot of \(png.count) bytes")
        // The floorplan: museum-gallery's walls and rooms; each phone's dot placed, and the log's lines.
        #expect(dom.components(separatedBy: "class=\"wall\"").count - 1 >= 20, "walls drawn")
        #expect(dom.contains("Gallery 1 - Antiquities") && dom.contains("IndoorLab live map — museum-gallery"))
        for k in 1...3 { #expect(dom.contains("location sim-\(k) ("), "the log shows sim-\(k)'s locations") }
        #expect(dom.components(separatedBy: "class=\"dot\"").count - 1 == 3 && dom.contains("<circle class=\"dot\" fill=\"#d62728\" r=\"0.35\" cx="), "three phones' dots, placed")
        // Without the viewer token the page is refused.
        let (_, refusedOut, refused) = try run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/"])
        refused.waitUntilExit()
        #expect(try String(contentsOfFile: refusedOut, encoding: .utf8) == "401")
    }
}
