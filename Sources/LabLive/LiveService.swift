import Foundation
import IndoorLocator
import IndoorLocatorScenarios
import LabCore
import LabStore

/// What the service refuses beyond, each with its own error frame.
public struct LiveLimits: Sendable {
    /// The largest message the service reads, bytes: a larger one gets a `too-large` error and the connection stays.
    public var messageBytes = 65_536
    /// The largest WebSocket frame the transport takes, bytes: a larger one closes the connection (1009).
    public var frameBytes = 1 << 20
    /// Messages per second a phone may send (bursts of twice as many).
    public var messagesPerSecond = 50.0
    /// Phones connected at once.
    public var phones = 500
    /// Scan windows in a row that enter or leave a room (presence hysteresis).
    public var presenceWindows = 2
    /// A phone that has sent nothing for this long (the service's clock, s) has its open scan window located; what
    /// it sends of that window afterwards is refused (`time-went-backwards`).
    public var idleSeconds = 3.0

    public init() {}
}

/// How a service is set up: where recordings go, who may do what, limits, the seed.
public struct LiveOptions: Sendable {
    /// The folder each phone's session is recorded in (`PHONE.sqlite`).
    public var recordings: String
    /// Phones send with this bearer token.
    public var phoneToken: String
    /// The map page, `/v1/phones` and the viewer socket need this one (read-only).
    public var viewerToken: String
    /// Survey sessions (ground truth: checkpoints, taps, a simulated walk's truth) need this one; nil: no surveys.
    public var surveyToken: String?
    /// Each phone's locator draws from this seed and its id.
    public var seed: UInt64 = 1
    public var limits = LiveLimits()

    public init(recordings: String, phoneToken: String, viewerToken: String, surveyToken: String? = nil) {
        self.recordings = recordings; self.phoneToken = phoneToken; self.viewerToken = viewerToken; self.surveyToken = surveyToken
    }

    /// Why these tokens cannot serve (nil when they can): each role's token must be its own, or a viewer could write.
    public var tokenProblem: String? {
        let all = [phoneToken, viewerToken] + (surveyToken.map { [$0] } ?? [])
        return Set(all).count == all.count ? nil : "the tokens must differ from each other (a viewer must not be able to write)"
    }

    /// Reads a token from `path`: the file's text without surrounding whitespace, at least 16 characters.
    /// - Throws: ``InputError`` naming the file.
    public static func token(file path: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw InputError(file: path, "cannot read the token file") }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.count >= 16, !token.contains(where: { $0.isWhitespace }) else {
            throw InputError(file: path, "a token must be at least 16 characters without spaces (e.g. `openssl rand -hex 16 > \(path)`)")
        }
        return token
    }
}

/// Who a request is, by its token.
enum LiveRole: Sendable, Equatable { case phone, surveyor, viewer }

/// The live venue service's state: the venue, the phones' sessions, the viewers, storage and metrics. The HTTP and
/// WebSocket side is ``LiveServer``.
public final class LiveService: @unchecked Sendable {
    public let venue: LiveVenue
    public let options: LiveOptions
    public let metrics = LiveMetrics()
    let storage: LiveStorage
    let viewers: LiveViewers
    let locating = LocatingWorkers()
    /// Locates silent phones' open windows (``locateIdlePhones(now:)``).
    private let idleTimer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "indoorlab.live.idle"))
    /// The venue's locator, which every phone's is a sibling of (its grids shared, not built per phone).
    let template: IndoorLocator
    private let lock = NSLock()
    private var sessions: [String: PhoneSession] = [:]
    private var connected: Set<String> = []

    /// - Throws: ``InputError`` when the recordings folder cannot be made.
    public init(venue: LiveVenue, options: LiveOptions) throws {
        self.venue = venue
        self.options = options
        storage = LiveStorage(metrics: metrics)
        viewers = LiveViewers(metrics: metrics)
        do { template = try IndoorLocator(scenarioAt: venue.scenarioPath, seed: options.seed) } catch {
            throw InputError(file: venue.scenarioPath, "cannot make the venue's locator: \(error)")
        }
        do {
            try FileManager.default.createDirectory(atPath: options.recordings, withIntermediateDirectories: true)
        } catch {
            throw InputError(file: options.recordings, "cannot create the recordings folder: \(error.localizedDescription)")
        }
        let every = max(0.02, min(0.5, options.limits.idleSeconds / 4))
        idleTimer.schedule(deadline: .now() + every, repeating: every, leeway: .milliseconds(10))
        idleTimer.setEventHandler { [weak self] in self?.locateIdlePhones() }
        idleTimer.activate()
    }

    /// The role `token` grants (compared in constant time), nil for none.
    func role(token: String?) -> LiveRole? {
        guard let token else { return nil }
        if let s = options.surveyToken, LiveService.same(token, s) { return .surveyor }
        if LiveService.same(token, options.phoneToken) { return .phone }
        if LiveService.same(token, options.viewerToken) { return .viewer }
        return nil
    }

    /// Equal strings in time that depends only on their lengths.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) { diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return diff == 0
    }

    /// A phone id names a file: letters, digits, `.`, `_`, `-`, 1–64 of them, not starting with `.` or `-`.
    static func validPhoneID(_ id: String) -> Bool {
        guard (1...64).contains(id.utf8.count), let first = id.unicodeScalars.first, first != ".", first != "-" else { return false }
        return id.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
    }

    /// Opens (or continues, or resumes from its recording) the session `hello` asks for, connected to `sink`.
    func open(phone: String, model: String, app: String, schema: Int, survey: Bool, t: Double?, role: LiveRole,
              sink: PhoneSink) throws(MessageProblem) -> (PhoneSession, String) {
        guard schema == LiveSchema.version else {
            throw MessageProblem(.protocolError, "schema: this service speaks version \(LiveSchema.version), the phone \(schema)")
        }
        guard LiveService.validPhoneID(phone) else {
            throw MessageProblem(.protocolError, "phone: expected 1–64 letters, digits, '.', '_' or '-' (not first), found \"\(phone.prefix(70))\"")
        }
        if survey && role != .surveyor {
            throw MessageProblem(.forbidden, "survey: a survey session needs the survey token")
        }
        if let t, !(t.isFinite && t > 0) { throw MessageProblem(.invalidValue, "t: expected a Unix time in seconds") }
        // The phone's id is taken under the lock; its recording is opened outside it, so phones connecting at once
        // open their files side by side.
        lock.lock()
        guard !connected.contains(phone) else { lock.unlock(); throw MessageProblem(.protocolError, "phone: \(phone) is connected already") }
        guard connected.count < options.limits.phones else {
            lock.unlock()
            throw MessageProblem(.tooManyPhones, "the service takes at most \(options.limits.phones) phones at once")
        }
        connected.insert(phone)
        metrics.phones.set(Double(connected.count))
        var existing = sessions[phone]
        if let s = existing, s.broken != nil || s.info.survey != survey {
            sessions.removeValue(forKey: phone)
            existing = nil
            lock.unlock()
            try? s.recording.close()
        } else {
            lock.unlock()
        }
        let session: PhoneSession
        if let existing {
            session = existing
        } else {
            let info = LiveSessionInfo(phone: phone, model: model, app: app, survey: survey)
            let path = options.recordings + "/" + phone + ".sqlite"
            let origin = t ?? (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000
            let seed = options.seed ^ LiveStorage.hash(phone)
            do {
                let recording = try LiveRecording(path: path, info: RecordingInfo(name: "\(venue.name)-live-\(phone)", source: .live, venue: venue.name,
                                                                                  notes: "live session of \(phone) (\(model), app \(app))",
                                                                                  seed: seed, scenarioYAML: venue.scenarioYAML, timeOrigin: origin),
                                                  venue: venue.recorded, session: info)
                let locator = template.sibling(seed: seed)
                // A new phone, as replay starts each recording's pass: its own random stream from the seed.
                locator.forgetDevice()
                session = PhoneSession(info: info, venue: venue, locator: locator, recording: recording, limits: options.limits)
            } catch {
                lock.lock(); connected.remove(phone); metrics.phones.set(Double(connected.count)); lock.unlock()
                throw MessageProblem(.storageFailed, "cannot open the session's recording: \(error)")
            }
            lock.lock(); sessions[phone] = session; lock.unlock()
        }
        session.lock.lock(); session.sink = sink; session.lock.unlock()
        let welcome = LiveEncoder.encode(.welcome(venue: venue.name, session: phone, schema: LiveSchema.version, scanWindow: venue.scanWindow,
                                                  resumed: session.recording.resumed || session.recording.lastSequence >= 0,
                                                  lastSeq: session.recording.lastSequence))
        return (session, welcome)
    }

    /// The phone's connection ended; its session stays for a reconnection (or is dropped when a commit broke it).
    func disconnect(_ session: PhoneSession) {
        session.lock.lock(); session.sink = nil; let broken = session.broken != nil; session.lock.unlock()
        lock.lock()
        connected.remove(session.phone)
        if broken, sessions[session.phone] === session { sessions.removeValue(forKey: session.phone) }
        metrics.phones.set(Double(connected.count))
        lock.unlock()
        if broken { try? session.recording.close() }
    }

    /// `GET /v1/phones`: each phone's last location (null before its first window) and whether it is connected.
    public func phonesJSON() -> String {
        lock.lock(); let all = sessions.values.sorted { $0.phone < $1.phone }; let on = connected; lock.unlock()
        let items = all.map { s -> String in
            let last = s.latestLocation.map { LiveEncoder.location($0, type: "location") } ?? "null"
            return "{\"phone\":\(LiveEncoder.str(s.phone)),\"connected\":\(on.contains(s.phone)),\"survey\":\(s.info.survey),\"last\":\(last)}"
        }
        return "[" + items.joined(separator: ",") + "]"
    }

    /// Checks `m` of `session` (``PhoneSession/accept(_:now:locate:)``); its locating worker then feeds what the
    /// locator is to read to it, and each window that closes is located and sent to the phone and the viewers, with
    /// the room presence changes it makes.
    func accept(_ m: PhoneMessage, of session: PhoneSession, receivedAt: ContinuousClock.Instant) throws(MessageProblem) -> PhoneSession.Accepted {
        try session.accept(m, now: receivedAt) { inputs in
            locating.run(key: session.key) { [self] in
                let (locations, events) = session.locate(inputs)
                publish(locations, events, of: session, receivedAt: receivedAt)
            }
        }
    }

    /// Sends locations to their phone and the viewers, and presence events to the viewers; `receivedAt` (the message
    /// that closed the windows) times them.
    private func publish(_ locations: [LiveLocation], _ events: [PresenceEvent], of session: PhoneSession, receivedAt: ContinuousClock.Instant?) {
        for l in locations {
            session.send(LiveEncoder.encode(.location(l)))
            metrics.locations.increment()
            if let receivedAt { metrics.locationLatency.recordNanoseconds(LiveStorage.nanoseconds(ContinuousClock.now - receivedAt)) }
            viewers.broadcast(LiveEncoder.location(l, type: "location"))
        }
        for e in events { viewers.broadcast(e.json) }
    }

    /// Locates the open window of every phone silent for ``LiveLimits/idleSeconds`` (the service's timer calls it).
    func locateIdlePhones(now: ContinuousClock.Instant = .now) {
        lock.lock(); let all = Array(sessions.values); lock.unlock()
        let idle = Duration.milliseconds(Int64((options.limits.idleSeconds * 1000).rounded()))
        for session in all {
            session.closeIfIdle(now: now, idle: idle) {
                locating.run(key: session.key) { [self] in
                    let (locations, events) = session.locateOpenWindow()
                    publish(locations, events, of: session, receivedAt: nil)
                }
            }
        }
    }

    /// A surveyor's tap: phone `phone` stands at (x, y) now. `committed` hears when it is stored (or not).
    func tap(phone: String, x: Double, y: Double, committed: @escaping @Sendable (Bool) -> Void) throws(MessageProblem) {
        lock.lock(); let session = sessions[phone]; lock.unlock()
        guard let session else { throw MessageProblem(.protocolError, "phone: no session of \(phone.prefix(70))") }
        let batch = try session.tapBatch(x: x, y: y)
        storage.enqueue(batch, of: session, seq: nil, receivedAt: ContinuousClock.now, committed: committed)
    }

    /// Every phone's last location (for a viewer that just connected).
    func lastLocations() -> [LiveLocation] {
        lock.lock(); let all = sessions.values.sorted { $0.phone < $1.phone }; lock.unlock()
        return all.compactMap(\.latestLocation)
    }

    /// Waits for the queued commits and closes every session's recording (checkpointed, a plain recording again).
    public func close() {
        idleTimer.cancel()
        locating.drain()
        locating.stop()
        storage.drain()
        lock.lock(); let all = Array(sessions.values); sessions.removeAll(); connected.removeAll(); lock.unlock()
        for s in all { try? s.recording.close() }
    }
}

/// The viewers' sockets: locations and presence events go to each (the newest 1,024 waiting per viewer; a viewer
/// that falls further behind misses the oldest).
final class LiveViewers: @unchecked Sendable {
    private let lock = NSLock()
    private var sinks: [UUID: AsyncStream<String>.Continuation] = [:]
    let metrics: LiveMetrics

    init(metrics: LiveMetrics) { self.metrics = metrics }

    func subscribe() -> (UUID, AsyncStream<String>) {
        let (stream, sink) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = UUID()
        lock.lock(); sinks[id] = sink; metrics.viewers.set(Double(sinks.count)); lock.unlock()
        return (id, stream)
    }

    func unsubscribe(_ id: UUID) {
        lock.lock(); let s = sinks.removeValue(forKey: id); metrics.viewers.set(Double(sinks.count)); lock.unlock()
        s?.finish()
    }

    func broadcast(_ text: String) {
        lock.lock(); let all = Array(sinks.values); lock.unlock()
        for s in all { s.yield(text) }
    }

    func finishAll() {
        lock.lock(); let all = Array(sinks.values); sinks.removeAll(); lock.unlock()
        for s in all { s.finish() }
    }
}
