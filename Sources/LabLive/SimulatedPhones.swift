import Foundation
import LabCore
import LabSimulation
import LabStore

/// Simulated phones that stream a walk to a live service (`indoorlab phone`): the lab's simulator makes each phone's
/// walk (its own seed, so its own device offset in the field condition), and the phone sends it as an app would, in
/// real time or `speed` times faster, then reports what came back against the walk's truth.
public enum SimulatedPhones {
    public struct Options: Sendable {
        public var url: String
        public var token: String
        public var walk: Walk
        /// Phone k (from 0) simulates with seed `seed + k`.
        public var seed: UInt64 = 1
        public var phones = 1
        public var condition: SimulationCondition = .field
        /// Time runs this many times faster than real time (timestamps are the walk's, from the start).
        public var speed = 1.0
        /// Seconds of the walk per message (default: the scan window).
        public var messageInterval: Double?
        /// Send the walk's truth too (a survey session: needs the survey token).
        public var survey = false
        /// Phone ids are `PREFIX-1`, `PREFIX-2`, …
        public var idPrefix = "sim"
        /// The session's time origin, Unix s (default: now).
        public var start: Double?
        /// Phones join spread over one scan window (phone k of N starts k/N of a window later, its session's origin
        /// as much later), as phones arriving at a venue do; false: every phone's windows close at the same instant.
        public var staggered = true

        public init(url: String, token: String, walk: Walk) { self.url = url; self.token = token; self.walk = walk }
    }

    /// What one phone saw.
    public struct PhoneResult: Sendable {
        public var phone: String
        public var windows: Int
        public var messagesSent: Int
        public var acknowledged: Int
        public var locations: Int
        public var located: Int
        /// Mean and 95th percentile of the located windows' error against the walk's truth, m.
        public var meanError: Double
        public var p95Error: Double
        /// Acknowledgement latency seen by the phone (send to ack), 99th percentile, ms.
        public var ackP99: Double
        /// Location latency seen by the phone (the first message of a later window sent, to its location), 99th
        /// percentile, ms.
        public var locationP99: Double
        public var errors: [String]
        /// Each location as received: window index and position (nil: unavailable).
        public var fixes: [(window: Int, x: Double?, y: Double?)]

    }

    /// Runs `options.phones` phones at once; `line` gets one line per phone as it finishes.
    public static func run(scenario: Scenario, options: Options, line: @escaping @Sendable (String) -> Void = { _ in }) async throws -> [PhoneResult] {
        let simulator = try Simulator(scenario: scenario, condition: options.condition)
        let start = options.start ?? (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000
        // Every phone's walk and messages are made before the first connects: making them while others stream would
        // hold up those phones' reading, and their acknowledgement latency would be the generator's.
        let walks = await withTaskGroup(of: (Int, [Epoch], [TimedMessage]).self) { group in
            for k in 0..<options.phones {
                group.addTask {
                    let epochs = simulator.simulate(walk: options.walk, seed: options.seed + UInt64(k))
                    let outgoing = messages(epochs: epochs, scenario: scenario, interval: options.messageInterval ?? scenario.radio.scanWindow,
                                            start: start + delay(k), survey: options.survey)
                    return (k, epochs, outgoing)
                }
            }
            var all: [(Int, [Epoch], [TimedMessage])] = []
            for await w in group { all.append(w) }
            return all.sorted { $0.0 < $1.0 }
        }
        /// Phone k's lateness, s of the walk (its origin and every message that much later).
        @Sendable func delay(_ k: Int) -> Double {
            options.staggered ? (scenario.radio.scanWindow * Double(k) / Double(options.phones) * 1000).rounded() / 1000 : 0
        }
        return try await withThrowingTaskGroup(of: PhoneResult.self) { group in
            for (k, epochs, outgoing) in walks {
                let id = "\(options.idPrefix)-\(k + 1)"
                group.addTask {
                    let r = try await stream(id: id, epochs: epochs, outgoing: outgoing, scenario: scenario, options: options,
                                             start: start + delay(k), late: delay(k))
                    line(describe(r))
                    return r
                }
            }
            var all: [PhoneResult] = []
            for try await r in group { all.append(r) }
            return all.sorted { $0.phone.localizedStandardCompare($1.phone) == .orderedAscending }
        }
    }

    /// One line about a phone.
    public static func describe(_ r: PhoneResult) -> String {
        "\(r.phone): \(r.windows) windows, \(r.locations) locations (\(r.located) located), error mean \(Format.fixed(r.meanError, 2)) m, "
            + "P95 \(Format.fixed(r.p95Error, 2)) m; \(r.acknowledged)/\(r.messagesSent) messages acknowledged, ack P99 \(Format.fixed(r.ackP99, 1)) ms, location P99 \(Format.fixed(r.locationP99, 1)) ms"
            + (r.errors.isEmpty ? "" : "; \(r.errors.count) errors, first: \(r.errors[0])")
    }

    /// One message to send: when (walk time) and its JSON.
    struct TimedMessage: Sendable { var at: Double; var seq: Int; var text: String }

    /// The walk as the phone's messages: each interval's samples in one `scans` message, headings, steps and (survey)
    /// truth in their own, in time order.
    static func messages(epochs: [Epoch], scenario: Scenario, interval: Double, start: Double, survey: Bool) -> [TimedMessage] {
        var items: [(t: Double, order: Int, json: (Int) -> String)] = []
        let e = LiveEncoder.self
        let beacons = scenario.beacons.map(LiveVenue.wireJSON(of:))
        var readings: [RSSIReading] = []
        for ep in epochs {
            readings += ep.readings
            for h in ep.headings {
                let frieze = h.frieze.map { ",\"frieze\":\(e.str(scenario.landmarks[$0].name))" } ?? ""
                items.append((h.t, 1, { "{\"type\":\"heading\",\"seq\":\($0),\"degrees\":\(e.num(h.heading)),\"accuracy\":\(e.num(h.accuracy))\(frieze),\"t\":\(e.num(start + h.t))}" }))
            }
            if let steps = ep.steps, !steps.isEmpty {
                let body = steps.map { "{\"length\":\(e.num($0.length)),\"heading\":\(e.num($0.heading)),\"lengthAccuracy\":\(e.num($0.lengthAccuracy)),\"headingAccuracy\":\(e.num($0.headingAccuracy)),\"t\":\(e.num(start + $0.t))}" }
                items.append((steps[0].t, 2, { "{\"type\":\"steps\",\"seq\":\($0),\"steps\":[\(body.joined(separator: ","))]}" }))
            }
            if survey {
                items.append((ep.t, 3, { "{\"type\":\"truth\",\"seq\":\($0),\"x\":\(e.num(ep.truth.x)),\"y\":\(e.num(ep.truth.y)),\"t\":\(e.num(start + ep.t))}" }))
            }
        }
        readings.sort { $0.t < $1.t }
        var i = 0
        while i < readings.count {
            let slice = (readings[i].t / interval + 1e-9).rounded(.down)
            var j = i
            while j < readings.count, (readings[j].t / interval + 1e-9).rounded(.down) == slice { j += 1 }
            let samples = readings[i..<j].map { "{\"beacon\":\(beacons[$0.beacon]),\"rssi\":\(e.num($0.rssi)),\"t\":\(e.num(start + $0.t))}" }
            items.append((readings[i].t, 0, { "{\"type\":\"scans\",\"seq\":\($0),\"samples\":[\(samples.joined(separator: ","))]}" }))
            i = j
        }
        items.sort { ($0.t, $0.order) < ($1.t, $1.order) }
        return items.enumerated().map { TimedMessage(at: $0.element.t, seq: $0.offset, text: $0.element.json($0.offset)) }
    }

    /// Streams one phone's messages; `late` (s of the walk) holds its start back, as its origin `start` is.
    static func stream(id: String, epochs: [Epoch], outgoing: [TimedMessage], scenario: Scenario, options: Options, start: Double,
                       late: Double = 0) async throws -> PhoneResult {
        let window = scenario.radio.scanWindow
        let hello = "{\"type\":\"hello\",\"phone\":\(LiveEncoder.str(id)),\"model\":\"simulated\",\"app\":\"indoorlab phone\",\"schema\":\(LiveSchema.version),\"survey\":\(options.survey),\"t\":\(LiveEncoder.num(start))}"
        let truth = Dictionary(epochs.map { (EpochBuilder.windowIndex($0.t, window: window), $0.truth) }, uniquingKeysWith: { a, _ in a })
        let total = outgoing.count
        return try await LiveSocket.connect(options.url, bearer: options.token) { inbound, outbound in
            let clock = ContinuousClock()
            // As an app would: hello, then stream once welcomed (the walk's clock starts there).
            try await outbound.send(hello)
            var messages = inbound.makeAsyncIterator()
            guard let first = try await messages.next() else { throw LiveSocket.Failure.closed(code: nil, reason: "no answer to hello") }
            guard first.contains("\"type\":\"welcome\"") else { throw LiveSocket.Failure.closed(code: nil, reason: first) }
            let began = clock.now + .seconds(late / options.speed)
            let sentAt = SentTimes(count: total)
            let sender = Task {
                for m in outgoing {
                    let due = began + .seconds(m.at / options.speed)
                    if due > clock.now { try await Task.sleep(until: due, clock: clock) }
                    sentAt.mark(m.seq, window: EpochBuilder.windowIndex(m.at, window: window), clock.now)
                    try await outbound.send(m.text)
                }
            }
            // Past the walk's end, what is still unacknowledged or unlocated has this long to be.
            let patience = began + .seconds((outgoing.last?.at ?? 0) / options.speed + 10)
            let watchdog = Task {
                try await Task.sleep(until: patience, clock: clock)
                await outbound.close()
            }
            defer { watchdog.cancel() }
            var result = PhoneResult(phone: id, windows: truth.count, messagesSent: total, acknowledged: 0, locations: 0, located: 0,
                                     meanError: .nan, p95Error: .nan, ackP99: .nan, locationP99: .nan, errors: [], fixes: [])
            var errors: [Double] = [], latencies: [Double] = [], locationLatencies: [Double] = []
            var acked = Set<Int>()
            // Done when every message is acknowledged and every window sent located (the last once the service's
            // silence timer closes it).
            var unlocated = Set(outgoing.map { EpochBuilder.windowIndex($0.at, window: window) })
            while let text = try await messages.next() {
                guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], let type = object["type"] as? String else { continue }
                switch type {
                case "ack":
                    if let seq = (object["seq"] as? NSNumber)?.intValue, acked.insert(seq).inserted {
                        if let at = sentAt.time(seq) { latencies.append(LiveSocket.milliseconds(clock.now - at)) }
                    }
                case "location":
                    result.locations += 1
                    let t = (object["t"] as? NSNumber)?.doubleValue ?? .nan
                    let k = Int(((t - start) / window).rounded(.down))
                    if let closed = sentAt.closing(window: k) { locationLatencies.append(LiveSocket.milliseconds(clock.now - closed)) }
                    unlocated.remove(k)
                    let x = (object["x"] as? NSNumber)?.doubleValue, y = (object["y"] as? NSNumber)?.doubleValue
                    result.fixes.append((k, x, y))
                    if let x, let y {
                        result.located += 1
                        if let p = truth[k] { errors.append(((x - p.x) * (x - p.x) + (y - p.y) * (y - p.y)).squareRoot()) }
                    }
                case "error":
                    result.errors.append("\(object["code"] ?? "?"): \(object["message"] ?? "")")
                default:
                    break
                }
                if acked.count == total && unlocated.isEmpty { break }
            }
            sender.cancel()
            _ = try? await sender.value
            await outbound.close()
            result.acknowledged = acked.count
            if !errors.isEmpty {
                result.meanError = errors.reduce(0, +) / Double(errors.count)
                result.p95Error = SortedSample(errors).quantile(0.95)
            }
            if !latencies.isEmpty { result.ackP99 = SortedSample(latencies).quantile(0.99) }
            if !locationLatencies.isEmpty { result.locationP99 = SortedSample(locationLatencies).quantile(0.99) }
            return result
        }
    }
}

/// When each message was sent, and the first message of each scan window (written by the sender task, read by the
/// reader).
final class SentTimes: @unchecked Sendable {
    private var times: [ContinuousClock.Instant?]
    private var windowOpened: [Int: ContinuousClock.Instant] = [:]
    private var newestWindow = Int.min
    private let lock = NSLock()
    init(count: Int) { times = Array(repeating: nil, count: count) }

    /// Message `i`, of scan window `window` (messages are sent in time order), was sent at `t`.
    func mark(_ i: Int, window: Int, _ t: ContinuousClock.Instant) {
        lock.lock()
        times[i] = t
        if window > newestWindow { newestWindow = window; windowOpened[window] = t }
        lock.unlock()
    }

    func time(_ i: Int) -> ContinuousClock.Instant? { lock.lock(); defer { lock.unlock() }; return i >= 0 && i < times.count ? times[i] : nil }

    /// When the message that closed window `k` was sent: the first of a later window.
    func closing(window k: Int) -> ContinuousClock.Instant? {
        lock.lock(); defer { lock.unlock() }
        for j in (k + 1)...(k + 8) { if let t = windowOpened[j] { return t } }
        return nil
    }
}

extension LiveSocket {
    static func milliseconds(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) * 1e-15 }
}
