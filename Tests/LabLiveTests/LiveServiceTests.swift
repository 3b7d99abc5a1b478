import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LabCore
import LabEstimators
import LabEvaluation
import LabScenarioIO
import LabSimulation
import LabStore
import Testing
@testable import LabLive

let scenariosDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Scenarios").path

/// A service on a free loopback port with its own recordings folder, stopped by ``stop()``.
final class RunningService: @unchecked Sendable {
    let service: LiveService
    let port: Int
    let dir: String
    let task: Task<Void, any Error>
    static let phoneToken = "phone-token-0123456789", viewerToken = "viewer-token-0123456789", surveyToken = "survey-token-0123456789"

    var phoneURL: String { "ws://127.0.0.1:\(port)/v1/phone" }
    var viewerURL: String { "ws://127.0.0.1:\(port)/v1/viewer" }

    init(service: LiveService, port: Int, dir: String, task: Task<Void, any Error>) { self.service = service; self.port = port; self.dir = dir; self.task = task }

    static func start(scenario: String = "open-hall", dir: String? = nil, limits: (inout LiveLimits) -> Void = { _ in }) async throws -> RunningService {
        let dir = dir ?? FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)").path
        var options = LiveOptions(recordings: dir + "/rec", phoneToken: phoneToken, viewerToken: viewerToken, surveyToken: surveyToken)
        limits(&options.limits)
        let service = try LiveService(venue: try LiveVenue(scenario: scenariosDir + "/\(scenario).yaml"), options: options)
        let (ports, sink) = AsyncStream<Int>.makeStream()
        let task = Task { try await LiveServer.run(service, host: "127.0.0.1", port: 0, logLevel: .critical, running: { sink.yield($0); sink.finish() }) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw LiveSocket.Failure.refused("no port") }
        return RunningService(service: service, port: port, dir: dir, task: task)
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    func get(_ path: String, token: String? = nil) async throws -> (status: Int, body: String) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }
}

/// One message from the service (its JSON text; fields read on access).
struct Msg: Sendable, CustomStringConvertible {
    let text: String
    subscript(key: String) -> Any? { ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any])?[key] }
    var description: String { text }
}

/// Reads messages until `done` says enough, with a time limit.
func collect(_ inbound: LiveSocket.Inbound, until done: @escaping ([Msg]) -> Bool, seconds: Double = 10) async throws -> [Msg] {
    var got: [Msg] = []
    let deadline = ContinuousClock.now + .seconds(seconds)
    var it = inbound.makeAsyncIterator()
    while ContinuousClock.now < deadline {
        guard let text = try await it.next() else { break }
        got.append(Msg(text: text))
        if done(got) { break }
    }
    return got
}

func hello(_ phone: String, survey: Bool = false, t: Double = 1_800_000_000) -> String {
    "{\"type\":\"hello\",\"phone\":\"\(phone)\",\"model\":\"test\",\"app\":\"1\",\"schema\":1,\"survey\":\(survey),\"t\":\(t)}"
}

func scans(_ seq: Int, _ samples: [(String, Double, Double)]) -> String {
    "{\"type\":\"scans\",\"seq\":\(seq),\"samples\":[" + samples.map { "{\"beacon\":{\"name\":\"\($0.0)\"},\"rssi\":\($0.1),\"t\":\($0.2)}" }.joined(separator: ",") + "]}"
}

@Suite(.serialized) struct LiveServiceTests {
    /// hello → welcome; each message acknowledged after its commit; one location per closed scan window; the recording
    /// holds exactly what was acknowledged and replays.
    @Test func aPhoneIsAcknowledgedLocatedAndRecorded() async throws {
        let running = try await RunningService.start()
        let t0 = 1_800_000_000.0
        let got = try await LiveSocket.connect(running.phoneURL, bearer: RunningService.phoneToken) { inbound, outbound in
            try await outbound.send(hello("tester-1", t: t0))
            // Three windows of readings from beacons around (10, 8); the fourth message closes window 2.
            for k in 0..<4 {
                let t = t0 + Double(k) + 0.5
                try await outbound.send(scans(k, [("H1", -72, t), ("H2", -75, t + 0.1), ("H3", -70, t + 0.2), ("H4", -78, t + 0.3)]))
            }
            return try await collect(inbound) { msgs in msgs.filter { $0["type"] as? String == "ack" }.count == 4 && msgs.filter { $0["type"] as? String == "location" }.count == 3 }
        }
        #expect(got.first?["type"] as? String == "welcome" && got.first?["lastSeq"] as? Int == -1, "\(got.first.map(\.text) ?? "")")
        let acks = got.filter { $0["type"] as? String == "ack" }.compactMap { $0["seq"] as? Int }
        #expect(acks.sorted() == [0, 1, 2, 3])
        let locations = got.filter { $0["type"] as? String == "location" }
        #expect(locations.count == 3)
        #expect(locations.map { $0["t"] as? Double } == [t0 + 0.5, t0 + 1.5, t0 + 2.5], "each window's middle")
        #expect(locations.allSatisfy { $0["x"] is Double && $0["ellipse"] is [String: Any] && $0["room"] as? String == "Hall" }, "\(locations)")
        await running.stop()
        // Closed on the way out: a plain recording, all 16 readings, replayable.
        let r = try RecordingStore.read(path: running.dir + "/rec/tester-1.sqlite")
        #expect(r.info.source == .live && r.info.timeOrigin == t0)
        #expect(r.rssi.count == 16 && abs(r.rssi[0].t - 0.5) < 1e-6)
        #expect(!FileManager.default.fileExists(atPath: running.dir + "/rec/tester-1.sqlite-wal"))
    }

    /// A phone that falls silent gets its open window located after the idle time (the service's clock); what it
    /// sends of that window afterwards is refused, and a later window opens as before.
    @Test func aSilentPhonesOpenWindowIsLocated() async throws {
        let running = try await RunningService.start { $0.idleSeconds = 0.3 }
        let t0 = 1_800_000_000.0
        @Sendable func window(_ seq: Int, _ k: Int) -> String {
            let t = t0 + Double(k) + 0.5
            return scans(seq, [("H1", -72, t), ("H2", -75, t + 0.1), ("H3", -70, t + 0.2)])
        }
        @Sendable func count(_ msgs: [Msg], _ type: String) -> Int { msgs.filter { $0["type"] as? String == type }.count }
        let (first, late, again) = try await LiveSocket.connect(running.phoneURL, bearer: RunningService.phoneToken) { inbound, outbound in
            var it = inbound.makeAsyncIterator()
            func read(until done: ([Msg]) -> Bool) async throws -> [Msg] {
                var got: [Msg] = []
                while !done(got), let text = try await it.next() { got.append(Msg(text: text)) }
                return got
            }
            try await outbound.send(hello("quiet-1", t: t0))
            try await outbound.send(window(0, 0))
            try await outbound.send(window(1, 1))
            // Window 0 is closed by window 1's message; window 1 by the silence that follows.
            let first = try await read { count($0, "location") == 2 && count($0, "ack") == 2 }
            try await outbound.send(window(2, 1))
            let late = try await read { count($0, "error") == 1 }
            // Within the rounding tolerance before window 2: accepted, and it opens window 2, not the located 1 again.
            try await outbound.send(scans(3, [("H1", -72, t0 + 2 - 5e-7)]))
            try await outbound.send(window(4, 4))
            let again = try await read { count($0, "location") == 2 && count($0, "ack") == 2 }
            return (first, late, again)
        }
        await running.stop()
        #expect(first.filter { $0["type"] as? String == "location" }.map { $0["t"] as? Double } == [t0 + 0.5, t0 + 1.5], "\(first)")
        let error = try #require(late.first { $0["type"] as? String == "error" })
        #expect(error["code"] as? String == "time-went-backwards" && error["seq"] as? Int == 2, "\(error)")
        #expect(again.filter { $0["type"] as? String == "location" }.map { $0["t"] as? Double } == [t0 + 2.5, t0 + 4.5], "\(again)")
        let r = try RecordingStore.read(path: running.dir + "/rec/quiet-1.sqlite")
        #expect(r.rssi.count == 10, "windows 0, 1 and 4 and the one by window 2; nothing of the refused message")
    }

    /// The viewer socket speaks first; its greeting can reach the client in the same read as the 101 response, and the
    /// lab's client must not drop it (NIO's default does). Many connections at once make that read likely.
    @Test func aServerThatSpeaksFirstIsHeardFromTheStart() async throws {
        let running = try await RunningService.start()
        let firsts = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await LiveSocket.connect(running.viewerURL, bearer: RunningService.viewerToken) { inbound, _ in
                        // A dropped greeting is followed by nothing: wait 5 s for it at most.
                        try await withThrowingTaskGroup(of: String?.self) { first in
                            first.addTask { var it = inbound.makeAsyncIterator(); return try await it.next() }
                            first.addTask { try await Task.sleep(for: .seconds(5)); return nil }
                            defer { first.cancelAll() }
                            return try await first.next() ?? nil
                        }
                    }
                }
            }
            var all: [String?] = []
            for try await f in group { all.append(f) }
            return all
        }
        await running.stop()
        let greeted = firsts.filter { $0.map { Msg(text: $0)["role"] as? String == "viewer" } ?? false }.count
        #expect(greeted == 200, "\(firsts.filter { !($0?.contains("\"role\"") ?? false) }.prefix(3))")
    }

    /// Bad messages get an error frame naming the field, nothing of them is stored, and the connection goes on.
    @Test func badMessagesGetAnErrorAndTheConnectionStays() async throws {
        let running = try await RunningService.start { $0.messageBytes = 2048 }
        let t0 = 1_800_000_000.0
        let got = try await LiveSocket.connect(running.phoneURL, bearer: RunningService.phoneToken) { inbound, outbound in
            try await outbound.send(scans(0, [("H1", -70, t0)]))                        // before hello
            try await outbound.send(hello("tester-2", t: t0))
            try await outbound.send("{not json")                                         // malformed
            try await outbound.send(scans(1, [("NOPE", -70, t0 + 0.5)]))                // unknown beacon
            try await outbound.send("{\"type\":\"scans\",\"seq\":2,\"samples\":[{\"beacon\":{\"name\":\"H1\"},\"rssi\":NaN,\"t\":1}]}")
            try await outbound.send(scans(3, [("H1", 30, t0 + 0.5)]))                   // +30 dBm
            try await outbound.send(String(repeating: " ", count: 3000) + scans(4, [("H1", -70, t0 + 0.5)]))   // too large
            try await outbound.send("{\"type\":\"truth\",\"seq\":5,\"x\":1,\"y\":1,\"t\":\(t0 + 0.5)}")        // not a survey
            try await outbound.send(scans(6, [("H1", -70, t0 + 2.5)]))                  // fine: window 2
            try await outbound.send(scans(7, [("H1", -70, t0 + 0.5)]))                  // back into window 0
            try await outbound.send("{\"type\":\"hello\",\"phone\":\"x\"}")            // a second hello
            try await outbound.send(scans(8, [("H2", -71, t0 + 2.7)]))                  // fine
            return try await collect(inbound) { msgs in msgs.filter { $0["type"] as? String == "ack" }.count == 2 }
        }
        let errors = got.filter { $0["type"] as? String == "error" }
        let codes = errors.compactMap { $0["code"] as? String }
        #expect(codes == ["protocol", "malformed", "unknown-beacon", "invalid-value", "invalid-value", "too-large", "forbidden", "time-went-backwards", "protocol"], "\(errors)")
        #expect((errors[2]["message"] as? String)?.contains("samples[0].beacon") == true, "\(errors[2])")
        #expect((errors[4]["message"] as? String)?.contains("samples[0].rssi") == true && errors[4]["seq"] as? Int == 3, "\(errors[4])")
        #expect(got.filter { $0["type"] as? String == "ack" }.compactMap { $0["seq"] as? Int }.sorted() == [6, 8])
        let metrics = try await running.get("/metrics").body
        for (reason, count) in [("malformed", 1), ("unknown-beacon", 1), ("invalid-value", 2), ("too-large", 1), ("forbidden", 1), ("time-went-backwards", 1), ("protocol", 2)] {
            #expect(metrics.contains("indoorlab_rejected_messages_total{reason=\"\(reason)\"} \(count)"), "\(reason)")
        }
        await running.stop()
        let r = try RecordingStore.read(path: running.dir + "/rec/tester-2.sqlite")
        #expect(r.rssi.count == 2 && r.truth.isEmpty, "only the two acknowledged messages are stored")
    }

    /// Without the right token: 401 and nothing stored; a viewer token cannot send; /v1/phones needs the viewer token.
    @Test func tokensKeepOutWhoShouldNotWrite() async throws {
        let running = try await RunningService.start()
        for bearer in [nil, "wrong-token-0123456789", RunningService.viewerToken] {
            await #expect(throws: LiveSocket.Failure.self) {
                try await LiveSocket.connect(running.phoneURL, bearer: bearer) { _, outbound in try await outbound.send(hello("intruder")) }
            }
        }
        #expect(try await running.get("/v1/phones").status == 401)
        #expect(try await running.get("/v1/phones", token: RunningService.phoneToken).status == 401)
        let phones = try await running.get("/v1/phones", token: RunningService.viewerToken)
        #expect(phones.status == 200 && phones.body == "[]")
        #expect(try await running.get("/healthz").body == "ok\n")
        let venue = try await running.get("/v1/venue")
        #expect(venue.status == 200 && venue.body.contains("\"name\":\"open-hall\""))
        #expect(try await running.get("/metrics").body.contains("indoorlab_rejected_messages_total{reason=\"unauthorized\"} 5"))
        await running.stop()
        #expect((try? FileManager.default.contentsOfDirectory(atPath: running.dir + "/rec")) == [])
    }

    /// Past the limit of phones at once, a hello is refused with too-many-phones and the connection closed; a phone id
    /// already connected is refused; a phone that leaves frees its place.
    @Test func phonesBeyondTheLimitAreRefused() async throws {
        let running = try await RunningService.start { $0.phones = 1 }
        try await LiveSocket.connect(running.phoneURL, bearer: RunningService.phoneToken) { inbound, outbound in
            try await outbound.send(hello("first"))
            _ = try await collect(inbound) { $0.contains { $0["type"] as? String == "welcome" } }
            for (id, code) in [("second", "too-many-phones"), ("first", "protocol")] {
                let refused = try await LiveSocket.connect(running.phoneURL, bearer: RunningService.phoneToken) { inbound2, outbound2 in
                    try await outbound2.send(hello(id))
                    return try await collect(inbound2) { m in m.contains { $0["type"] as? String == "error" } }
                }
                #expect(refused.map { $0["code"] as? String } == [code], "\(id): \(refused)")
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        let again = try await LiveSocket.connect(running.phoneURL, bearer: RunningService.phoneToken) { inbound, outbound in
            try await outbound.send(hello("second"))
            return try await collect(inbound) { $0.contains { $0["type"] as? String == "welcome" } }
        }
        #expect(again.first?["type"] as? String == "welcome")
        await running.stop()
    }

    /// A restarted service resumes a phone's recording: the welcome names the last message committed, a message sent
    /// again is acknowledged without being stored twice, new ones are appended.
    @Test func aRestartResumesTheRecording() async throws {
        let first = try await RunningService.start()
        let t0 = 1_800_000_000.0
        _ = try await LiveSocket.connect(first.phoneURL, bearer: RunningService.phoneToken) { inbound, outbound in
            try await outbound.send(hello("tester-3", t: t0))
            for k in 0..<3 { try await outbound.send(scans(k, [("H1", -70, t0 + Double(k) + 0.5)])) }
            return try await collect(inbound) { $0.filter { $0["type"] as? String == "ack" }.count == 3 }.count
        }
        await first.stop()
        let second = try await RunningService.start(dir: first.dir)
        let got = try await LiveSocket.connect(second.phoneURL, bearer: RunningService.phoneToken) { inbound, outbound in
            try await outbound.send(hello("tester-3", t: t0 + 100))   // the origin stays the recording's
            try await outbound.send(scans(2, [("H1", -70, t0 + 2.5)]))   // sent again
            try await outbound.send(scans(3, [("H1", -70, t0 + 3.5)]))
            return try await collect(inbound) { $0.filter { $0["type"] as? String == "ack" }.count == 2 }
        }
        #expect(got.first?["resumed"] as? Bool == true && got.first?["lastSeq"] as? Int == 2, "\(got.first.map(\.text) ?? "")")
        #expect(got.filter { $0["type"] as? String == "ack" }.compactMap { $0["seq"] as? Int }.sorted() == [2, 3])
        await second.stop()
        let r = try RecordingStore.read(path: first.dir + "/rec/tester-3.sqlite")
        #expect(r.rssi.map(\.t) == [0.5, 1.5, 2.5, 3.5])
    }

    /// A viewer sees each location as it happens, and room presence with hysteresis.
    @Test func aViewerSeesLocationsAndPresence() async throws {
        let running = try await RunningService.start()
        let t0 = 1_800_000_000.0
        let viewer = Task {
            try await LiveSocket.connect(running.viewerURL + "?token=\(RunningService.viewerToken)", bearer: nil) { inbound, _ in
                try await collect(inbound) { msgs in msgs.contains { $0["type"] as? String == "presence" } && msgs.filter { $0["type"] as? String == "location" }.count >= 3 }
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        _ = try await LiveSocket.connect(running.phoneURL, bearer: RunningService.phoneToken) { inbound, outbound in
            try await outbound.send(hello("tester-4", t: t0))
            for k in 0..<4 {
                let t = t0 + Double(k) + 0.5
                try await outbound.send(scans(k, [("H1", -72, t), ("H2", -75, t + 0.1), ("H3", -70, t + 0.2), ("H4", -78, t + 0.3)]))
            }
            return try await collect(inbound) { $0.filter { $0["type"] as? String == "ack" }.count == 4 }.count
        }
        let seen = try await viewer.value
        let presence = try #require(seen.first { $0["type"] as? String == "presence" })
        #expect(presence["phone"] as? String == "tester-4" && presence["room"] as? String == "Hall" && presence["event"] as? String == "enter")
        // Entered after two windows in the hall, not at the first.
        #expect(presence["t"] as? Double == t0 + 1.5)
        await running.stop()
    }
}

@Suite(.serialized) struct LiveMatchesReplayTests {
    /// A simulated walk streamed live (a survey session, so its recording has the truth) gets, window by window, the
    /// fixes replay of the recording it produced gives: the same windows, the same seed, the shipped tracker both ways.
    @Test(arguments: ["museum-gallery", "esoc-office"]) func liveLocationsAreReplaysFixes(scenario name: String) async throws {
        // The last window is located once the phone is silent for 1.5 s.
        let running = try await RunningService.start(scenario: name) { $0.messagesPerSecond = 100_000; $0.idleSeconds = 1.5 }
        let scenario = try ScenarioLoader.load(path: scenariosDir + "/\(name).yaml")
        var options = SimulatedPhones.Options(url: running.phoneURL, token: RunningService.surveyToken, walk: scenario.walks[0])
        options.survey = true; options.speed = 200; options.seed = 4; options.start = 1_800_000_000
        let live = try #require(try await SimulatedPhones.run(scenario: scenario, options: options).first)
        await running.stop()
        #expect(live.acknowledged == live.messagesSent && live.errors.isEmpty, "\(SimulatedPhones.describe(live))")
        let r = try RecordingStore.read(path: running.dir + "/rec/sim-1.sqlite")
        let replay = RecordingReplay.run(r, estimators: [EstimatorKind.particleFilter])
        let fixes = replay.results.sorted { $0.epoch < $1.epoch }
        #expect(live.fixes.count == fixes.count, "every window, the last once the phone fell silent")
        var compared = 0
        for l in live.fixes {
            let f = try #require(fixes.first { $0.epoch == l.window })
            guard let x = l.x, let y = l.y, let fix = f.fix else {
                #expect(l.x == nil && f.fix == nil, "window \(l.window): live \(String(describing: l.x)), replay \(String(describing: f.fix))")
                continue
            }
            #expect(abs(x - fix.x) < 1e-5 && abs(y - fix.y) < 1e-5, "window \(l.window): live \(x), \(y); replay \(fix)")
            compared += 1
        }
        #expect(compared > 50)
    }
}

@Suite(.serialized) struct LiveSurveyTests {
    /// Calibration becomes a walk: a simulated surveyor streams a walk as a survey session (its truth as ground truth),
    /// and the calibration from the live recording is the one from `record`'s recording of the same walk and seed.
    @Test func aSurveyWalkCalibratesAsTheRecordedWalkDoes() async throws {
        let running = try await RunningService.start(scenario: "esoc-office") { $0.messagesPerSecond = 100_000 }
        let scenario = try ScenarioLoader.load(path: scenariosDir + "/esoc-office.yaml")
        let walk = try #require(scenario.walk(named: "shift-start"))
        var options = SimulatedPhones.Options(url: running.phoneURL, token: RunningService.surveyToken, walk: walk)
        options.survey = true; options.speed = 500; options.seed = 2; options.condition = .field; options.start = 1_800_000_000
        let live = try #require(try await SimulatedPhones.run(scenario: scenario, options: options).first)
        await running.stop()
        #expect(live.acknowledged == live.messagesSent && live.errors.isEmpty, "\(SimulatedPhones.describe(live))")
        let fromLive = try Calibration(try RecordingStore.read(path: running.dir + "/rec/sim-1.sqlite"))
        let epochs = try Simulator(scenario: scenario, condition: .field).simulate(walk: walk, seed: 2)
        let fromRecord = try Calibration(SimulatedRecording.make(epochs: epochs, scenario: scenario, walk: walk, seed: 2))
        #expect(fromLive.global.samples == fromRecord.global.samples && fromLive.global.samples > 100)
        #expect(abs(fromLive.global.p0 - fromRecord.global.p0) < 1e-6 && abs(fromLive.global.exponent - fromRecord.global.exponent) < 1e-6
                && abs(fromLive.global.sigma - fromRecord.global.sigma) < 1e-6, "live \(fromLive.global), record \(fromRecord.global)")
        #expect(fromLive.beacons.map(\.id) == fromRecord.beacons.map(\.id))
    }

    /// A surveyor's tap on the map ("this phone stands here") is ground truth for that phone's survey session at its
    /// latest time, answered once stored; a plain viewer cannot tap, nor can anyone tap a phone outside a survey.
    @Test func aSurveyorsTapIsGroundTruth() async throws {
        let running = try await RunningService.start()
        let t0 = 1_800_000_000.0
        // The surveyor's phone streams, and a plain phone too.
        try await LiveSocket.connect(running.phoneURL, bearer: RunningService.surveyToken) { inbound, outbound in
            try await outbound.send(hello("walker", survey: true, t: t0))
            try await outbound.send(scans(0, [("H1", -70, t0 + 2.25)]))
            _ = try await collect(inbound) { $0.contains { $0["type"] as? String == "ack" } }
            try await LiveSocket.connect(running.phoneURL, bearer: RunningService.phoneToken) { inbound2, outbound2 in
                try await outbound2.send(hello("visitor", t: t0))
                try await outbound2.send(scans(0, [("H1", -70, t0 + 1)]))
                _ = try await collect(inbound2) { $0.contains { $0["type"] as? String == "ack" } }
                let answers = try await LiveSocket.connect(running.viewerURL, bearer: RunningService.surveyToken) { viewer, send in
                    try await send.send("{\"type\":\"tap\",\"phone\":\"walker\",\"x\":12.5,\"y\":7.25}")
                    try await send.send("{\"type\":\"tap\",\"phone\":\"visitor\",\"x\":1,\"y\":1}")
                    return try await collect(viewer) { m in m.contains { $0["type"] as? String == "tap" } && m.contains { $0["type"] as? String == "error" } }
                }
                #expect(answers.first?["role"] as? String == "surveyor", "\(answers)")
                #expect(answers.first { $0["type"] as? String == "tap" }?["stored"] as? Bool == true)
                #expect(answers.first { $0["type"] as? String == "error" }?["code"] as? String == "forbidden")
                let plain = try await LiveSocket.connect(running.viewerURL, bearer: RunningService.viewerToken) { viewer, send in
                    try await send.send("{\"type\":\"tap\",\"phone\":\"walker\",\"x\":1,\"y\":1}")
                    return try await collect(viewer) { m in m.contains { $0["type"] as? String == "error" } }
                }
                #expect(plain.first?["role"] as? String == "viewer" && plain.last?["code"] as? String == "forbidden", "\(plain)")
            }
        }
        await running.stop()
        let r = try RecordingStore.read(path: running.dir + "/rec/walker.sqlite")
        #expect(r.truth.count == 1 && r.truth[0].source == .survey && r.truth[0].position == Point(12.5, 7.25) && abs(r.truth[0].t - 2.25) < 1e-6)
        #expect(try RecordingStore.read(path: running.dir + "/rec/visitor.sqlite").truth.isEmpty)
    }

    /// A scanned QR checkpoint is ground truth at the checkpoint's place (source qr-checkpoint); an unknown one is refused.
    @Test func aCheckpointIsGroundTruth() async throws {
        let running = try await RunningService.start(scenario: "esoc-office")
        let scenario = try ScenarioLoader.load(path: scenariosDir + "/esoc-office.yaml")
        let checkpoint = try #require(scenario.checkpoints.first)
        let t0 = 1_800_000_000.0
        let got = try await LiveSocket.connect(running.phoneURL, bearer: RunningService.surveyToken) { inbound, outbound in
            try await outbound.send(hello("surveyor-1", survey: true, t: t0))
            try await outbound.send("{\"type\":\"checkpoint\",\"seq\":0,\"name\":\"\(checkpoint.id)\",\"t\":\(t0 + 0.4)}")
            try await outbound.send("{\"type\":\"checkpoint\",\"seq\":1,\"name\":\"no-such-qr\",\"t\":\(t0 + 0.6)}")
            return try await collect(inbound) { $0.contains { $0["type"] as? String == "error" } && $0.contains { $0["type"] as? String == "ack" } }
        }
        #expect(got.first { $0["type"] as? String == "error" }?["code"] as? String == "invalid-value")
        await running.stop()
        let r = try RecordingStore.read(path: running.dir + "/rec/surveyor-1.sqlite")
        #expect(r.truth.count == 1 && r.truth[0].source == .checkpoint && r.truth[0].position == checkpoint.position && abs(r.truth[0].t - 0.4) < 1e-6)
    }
}

@Suite struct LiveSchemaTests {
    @Test func decodingNamesTheFieldPath() {
        func problem(_ text: String) -> MessageProblem? { if case .failure(let p) = LiveDecoder.decode(text) { return p }; return nil }
        #expect(problem("[1]")?.reason == .malformed)
        #expect(problem("{\"type\":\"scans\",\"seq\":1,\"samples\":[{\"beacon\":{\"name\":\"a\"},\"rssi\":\"-70\",\"t\":1}]}")?.message
                == "samples[0].rssi: expected a number")
        #expect(problem("{\"type\":\"scans\",\"seq\":1.5,\"samples\":[]}")?.message == "seq: expected a whole number, found 1.5")
        #expect(problem("{\"type\":\"scans\",\"seq\":true,\"samples\":[]}")?.message == "seq: expected a number")
        #expect(problem("{\"type\":\"scans\",\"seq\":3,\"samples\":[{\"beacon\":{\"uuid\":\"x\",\"major\":1.5,\"minor\":1},\"rssi\":-70,\"t\":1}]}")?.message
                == "samples[0].beacon.major: expected a whole number, found 1.5")
        #expect(problem("{\"type\":\"hello\",\"phone\":\"p\",\"survey\":1}")?.message == "survey: expected true or false")
        #expect(problem("{\"type\":\"steps\",\"seq\":1,\"steps\":[{\"length\":0.7,\"t\":1}]}")?.message == "steps[0].heading: missing")
        #expect(problem("{\"type\":\"scans\",\"seq\":9,\"samples\":[{\"beacon\":{\"name\":\"a\"},\"rssi\":null,\"t\":1}]}")?.message == "samples[0]: expected one of \"rssi\" or \"range\"")
        #expect(problem("{\"type\":\"scans\",\"seq\":4,\"samples\":[{\"beacon\":{\"name\":\"a\"},\"t\":1}]}")?.seq == 4)
        #expect(problem("{\"type\":\"dance\"}")?.message.hasPrefix("type: expected hello, scans") == true)
        guard case .success(.scans(let seq, let samples)) = LiveDecoder.decode(
            "{\"type\":\"scans\",\"seq\":7,\"samples\":[{\"beacon\":{\"uuid\":\"F7826DA6-4FA2-4E98-8024-BC5B71E0893E\",\"major\":1,\"minor\":2},\"range\":2.5,\"t\":10}]}") else {
            Issue.record("a valid scans message"); return
        }
        #expect(seq == 7 && samples[0].range == 2.5 && samples[0].beacon.major == 1)
    }

    @Test func serverMessagesAreJSON() throws {
        let l = LiveLocation(phone: "p\"1", t: 1_800_000_000.5, x: 1.25, y: 2, semiMajor: 1, semiMinor: 0.5, orientation: 30, room: "Hall",
                             offset: -3, offsetSigma: 1, beaconsUsed: 4, reason: nil)
        let text = LiveEncoder.encode(.location(l))
        let o = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(o["phone"] as? String == "p\"1" && o["x"] as? Double == 1.25 && (o["ellipse"] as? [String: Any])?["confidence"] as? Double == 0.95)
        #expect(LiveEncoder.encode(.ack(seq: 3)) == "{\"type\":\"ack\",\"seq\":3}")
        // Numbers that round up to a whole number at six decimals (a phone's time, 0.1 s apart) stay JSON.
        for x in [1_796_621_000.9999996, 2.9999999, -0.0000001, 0.1 + 0.2, 1e-12, 123_456.5] {
            let n = try #require(try JSONSerialization.jsonObject(with: Data("[\(LiveEncoder.num(x))]".utf8)) as? [Double], "\(LiveEncoder.num(x))")
            #expect(abs(n[0] - x) <= 1e-6, "\(x) as \(LiveEncoder.num(x))")
        }
    }

    @Test func phoneIDsCannotNamePaths() {
        for ok in ["pixel-7", "A_b.c", "x"] { #expect(LiveService.validPhoneID(ok), "\(ok)") }
        for bad in ["", "../x", "a/b", ".hidden", "-rf", String(repeating: "a", count: 65), "naïve", "a b"] { #expect(!LiveService.validPhoneID(bad), "\(bad)") }
        #expect(LiveService.same("abc", "abc") && !LiveService.same("abc", "abd") && !LiveService.same("abc", "abcd"))
    }

    /// Enter after two windows in a room; a single window elsewhere (a doorway) changes nothing; leave after two.
    @Test func presenceHasHysteresis() {
        var p = PresenceTracker(enterWindows: 2, leaveWindows: 2)
        let rooms: [String?] = ["A", "A", "B", "A", "B", "B", nil, "B"]
        let events = rooms.enumerated().flatMap { p.update(room: $0.element, phone: "p", t: Double($0.offset)) }
        #expect(events.map { "\($0.entered ? "+" : "-")\($0.room)@\(Int($0.t))" } == ["+A@1", "-A@5", "+B@5"])
    }
}
