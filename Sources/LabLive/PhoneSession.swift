import Foundation
import IndoorLocator
import NIOWebSocket
import LabCore
import LabStore

/// One phone's live session: its locator (the shipped library's stream), its recording, the scan window it is in, its
/// room presence, and what waits to be committed.
///
/// The connection's task checks each message (``accept(_:now:locate:)``, one at a time); the storage queue commits
/// and acknowledges it (``LiveStorage``); a locating worker feeds it to the locator and locates each window it closes
/// (``locate(_:)``, ``LocatingWorkers``), or the window a silent phone left open (``locateOpenWindow()``). A
/// reconnection of the same phone continues the session; a restarted service resumes its recording
/// (``LiveRecording``) with a new track.
final class PhoneSession: @unchecked Sendable {
    let info: LiveSessionInfo
    let venue: LiveVenue
    let locator: IndoorLocator
    let recording: LiveRecording
    var phone: String { info.phone }
    /// The phone id's hash (FNV-1a): which storage queue and locating worker the session's work goes to.
    let key: UInt64

    // ``accept(_:now:locate:)`` (the connection's task, one message at a time) and ``closeIfIdle(now:idle:locate:)``
    // (the service's timer), under `lock`.
    /// The newest scan window (index from the recording's origin) accepted: nothing may go back before it.
    private var acceptedWindow: Int?
    /// The highest sequence number accepted (committed or waiting).
    private var highestAccepted: Int
    private var bucket: TokenBucket
    /// When the phone's last accepted message arrived (the service's clock), and whether the window open then has
    /// been closed for silence since.
    private var lastHeard: ContinuousClock.Instant?
    private var closedForSilence = false

    // The session's locating worker only (``locate(_:)``, in the order accepted).
    /// The scan window whose readings have not been located yet.
    private var openWindow: Int?
    /// The newest window located: a window is never located twice, even for an input a rounding tolerance before
    /// the next (after a silence closed this one).
    private var lastLocated: Int?
    private var presence: PresenceTracker
    /// Steps after the open window's middle (every held step is: the steps held for a window join the stream as soon as
    /// it is located): they count from the next window on.
    private var heldSteps: [StepSample] = []

    // Shared with the storage queue and `/v1/phones`, under `lock`.
    let lock = NSLock()
    var pending: LiveBatch?
    /// What waits for the pending batch's commit: a phone's message (acknowledged by its seq) or a surveyor's tap.
    struct Receipt { var seq: Int?; var at: ContinuousClock.Instant; var committed: (@Sendable (Bool) -> Void)? }
    var pendingReceipts: [Receipt] = []
    /// The latest time the phone sent (Unix s): written by the connection's task under the lock, read by a surveyor's
    /// tap ("the phone is here now" is at that time).
    private(set) var latestSent = -Double.infinity
    var flushScheduled = false
    /// Where this session's acknowledgements and errors go (the connected socket), nil when disconnected.
    var sink: PhoneSink?
    private(set) var lastLocation: LiveLocation?
    /// Why the session ended (a commit failed), nil while it is usable.
    var broken: String?

    init(info: LiveSessionInfo, venue: LiveVenue, locator: IndoorLocator, recording: LiveRecording, limits: LiveLimits) {
        self.info = info; self.venue = venue; self.locator = locator; self.recording = recording
        key = LiveStorage.hash(info.phone)
        highestAccepted = recording.lastSequence
        bucket = TokenBucket(rate: limits.messagesPerSecond, burst: limits.messagesPerSecond * 2)
        presence = PresenceTracker(enterWindows: limits.presenceWindows, leaveWindows: limits.presenceWindows)
    }

    /// What accepting one message gives.
    struct Accepted {
        /// What to commit (nil: nothing new, e.g. a message sent again).
        var batch: LiveBatch?
        /// Acknowledge at once: a message sent again that is already committed.
        var ackNow: Int?
    }

    /// One thing the locator reads, at its time (Unix s); nil input: a time alone (ground truth), which may close windows.
    struct TimedInput: Sendable { var t: Double; var input: LocatorInput? }

    /// Checks `m` against the venue and the session and returns what to store; what the locator is to read goes to
    /// `locate` (called under the session's lock, so it is queued in the order accepted). Nothing changes when it throws.
    func accept(_ m: PhoneMessage, now: ContinuousClock.Instant, locate: ([TimedInput]) -> Void) throws(MessageProblem) -> Accepted {
        lock.lock(); defer { lock.unlock() }
        guard let seq = m.sequence else { throw MessageProblem(.protocolError, "a second hello on one connection") }
        guard bucket.take(at: now) else {
            throw MessageProblem(.rateLimited, "more than \(Int(bucket.rate)) messages per second; slow down (the message was not stored)", seq: seq)
        }
        if seq <= highestAccepted {
            // Sent again (after a reconnection): acknowledged again once committed, never stored twice.
            return Accepted(batch: nil, ackNow: seq <= recording.lastSequence ? seq : nil)
        }
        var batch = LiveBatch(lastSequence: seq, messages: 1)
        var inputs: [(t: Double, input: LocatorInput?)] = []
        let origin = recording.timeOrigin
        do throws(MessageProblem) {
            switch m {
            case .hello:
                throw MessageProblem(.protocolError, "a second hello on one connection")
            case .scans(_, let samples):
                for (i, s) in samples.enumerated() {
                    let path = "samples[\(i)]"
                    let (identity, index) = try venue.beacon(s.beacon, at: path + ".beacon")
                    let date = Date(timeIntervalSince1970: s.t)
                    if let rssi = s.rssi {
                        guard RadioModel.plausibleRSSI.contains(rssi) else {
                            throw MessageProblem(.invalidValue, "\(path).rssi: expected \(Int(RadioModel.plausibleRSSI.lowerBound))…\(Int(RadioModel.plausibleRSSI.upperBound)) dBm, found \(rssi)")
                        }
                        batch.rssi.append(RSSIReading(beacon: index, t: s.t - origin, rssi: rssi))
                        inputs.append((s.t, .rssi(RSSISample(beacon: identity, rssi: rssi, timestamp: date))))
                    } else if let d = s.range {
                        let technology = RangingTechnology(rawValue: s.technology ?? RangingTechnology.uwb.rawValue)
                        guard let technology else {
                            throw MessageProblem(.invalidValue, "\(path).technology: expected \(RangingTechnology.allCases.map(\.rawValue).joined(separator: " or ")), found \"\(s.technology ?? "")\"")
                        }
                        guard d >= 0, d <= WorkBudget.maximumExtent else { throw MessageProblem(.invalidValue, "\(path).range: expected 0…\(Int(WorkBudget.maximumExtent)) m, found \(d)") }
                        let sigma = s.sigma ?? technology.typicalSigma(at: d)
                        guard sigma > 0, sigma <= 100 else { throw MessageProblem(.invalidValue, "\(path).sigma: expected more than 0 and at most 100 m, found \(sigma)") }
                        batch.ranges.append(RecordedRange(t: s.t - origin, beacon: index, distance: d, sigma: sigma, technology: technology.rawValue))
                        inputs.append((s.t, .range(RangeSample(beacon: identity, distance: d, sigma: sigma, technology: technology, timestamp: date))))
                    }
                }
            case .heading(_, let degrees, let accuracy, let frieze, let t):
                guard accuracy > 0, accuracy <= 180 else { throw MessageProblem(.invalidValue, "accuracy: expected more than 0 and at most 180°, found \(accuracy)") }
                var landmark: Int?
                if let frieze {
                    guard let i = venue.landmarkIndex[frieze], venue.scenario.landmarks[i].kind == .frieze else {
                        throw MessageProblem(.unknownBeacon, "frieze: \"\(frieze.prefix(40))\" is not a frieze of \(venue.name)")
                    }
                    landmark = i
                }
                let heading = PhoneSession.normalized(degrees)
                batch.headings.append(HeadingReading(t: t - origin, heading: heading, accuracy: accuracy, frieze: landmark, target: nil))
                inputs.append((t, .heading(CompassHeading(degrees: heading, accuracy: accuracy, frieze: frieze, timestamp: Date(timeIntervalSince1970: t)))))
            case .steps(_, let steps):
                for (i, s) in steps.enumerated() {
                    let step = StepReading(t: s.t - origin, length: s.length, heading: PhoneSession.normalized(s.heading),
                                           lengthAccuracy: s.lengthAccuracy ?? 0.15, headingAccuracy: s.headingAccuracy ?? 10)
                    guard step.isValid else {
                        throw MessageProblem(.invalidValue, "steps[\(i)]: expected a length and its σ in 0…\(StepReading.longest) m and a heading σ in 0…180°")
                    }
                    batch.steps.append(step)
                    inputs.append((s.t, .step(StepSample(length: step.length, heading: step.heading, lengthAccuracy: step.lengthAccuracy,
                                                          headingAccuracy: step.headingAccuracy, timestamp: Date(timeIntervalSince1970: s.t)))))
                }
            case .checkpoint(_, let name, let t):
                guard info.survey else { throw MessageProblem(.forbidden, "checkpoints are ground truth: only a survey session sends them") }
                guard let p = venue.checkpointIndex[name] else { throw MessageProblem(.invalidValue, "name: \"\(name.prefix(40))\" is not a checkpoint of \(venue.name)") }
                batch.truth.append(TruthSample(t: t - origin, position: p, source: .checkpoint))
                inputs.append((t, nil))
            case .truth(_, let x, let y, let t):
                guard info.survey else { throw MessageProblem(.forbidden, "ground truth: only a survey session sends it") }
                let b = venue.scenario.bounds
                guard x >= b.minX - 1, x <= b.maxX + 1, y >= b.minY - 1, y <= b.maxY + 1 else {
                    throw MessageProblem(.invalidValue, "x, y: (\(x), \(y)) is outside the venue")
                }
                batch.truth.append(TruthSample(t: t - origin, position: Point(x, y), source: .survey))
                inputs.append((t, nil))
            }
            // Time: never earlier than a window already located, and within what a recording may span.
            let earliest = acceptedWindow.map { origin + Double($0) * venue.scanWindow - 1e-6 } ?? -Double.infinity
            for (k, item) in inputs.enumerated() {
                guard item.t >= earliest else {
                    throw MessageProblem(.timeWentBackwards, "\(PhoneSession.field(m, k)): t \(LiveEncoder.num(item.t)) is before a scan window already located (latest t \(LiveEncoder.num(latestSent)))")
                }
                guard item.t - origin <= recording.longestSpan, item.t - origin >= -venue.scanWindow else {
                    throw MessageProblem(.invalidValue, "\(PhoneSession.field(m, k)): t \(LiveEncoder.num(item.t)) is not within the session (started at \(LiveEncoder.num(origin)), at most \(LiveEncoder.num(recording.longestSpan)) s)")
                }
            }
        } catch let p {
            var p = p
            p.seq = seq
            throw p
        }
        highestAccepted = seq
        lastHeard = now
        if let newest = inputs.map(\.t).max() {
            acceptedWindow = max(acceptedWindow ?? .min, windowIndex(newest))
            closedForSilence = false
            latestSent = max(latestSent, newest)
            locate(inputs.sorted { $0.t < $1.t }.map { TimedInput(t: $0.t, input: $0.input) })
        }
        return Accepted(batch: batch)
    }

    /// When the phone has sent nothing for `idle`, closes its newest window (what it sends of it afterwards is
    /// refused) and calls `locate` (under the session's lock) to have it located.
    func closeIfIdle(now: ContinuousClock.Instant, idle: Duration, locate: () -> Void) {
        lock.lock(); defer { lock.unlock() }
        guard let k = acceptedWindow, let heard = lastHeard, !closedForSilence, now - heard >= idle else { return }
        acceptedWindow = k + 1
        closedForSilence = true
        locate()
    }

    /// Locates the open window (a silent phone's), if there is one; the next input opens a window again.
    func locateOpenWindow() -> (locations: [LiveLocation], presence: [PresenceEvent]) {
        guard let open = openWindow else { return ([], []) }
        let l = locate(window: open)
        openWindow = nil
        return ([l], presence.update(room: l.room, phone: phone, t: l.t))
    }

    /// Feeds an accepted message's inputs to the locator in time order, locating each window they close; returns those
    /// locations and the room presence changes they made. The session's locating worker calls it, message by message
    /// in the order accepted.
    func locate(_ inputs: [TimedInput]) -> (locations: [LiveLocation], presence: [PresenceEvent]) {
        var locations: [LiveLocation] = [], events: [PresenceEvent] = []
        for item in inputs {
            let k = windowIndex(item.t)
            if let open = openWindow, k > open {
                let l = locate(window: open)
                locations.append(l)
                events += presence.update(room: l.room, phone: phone, t: l.t)
                openWindow = k
            } else if openWindow == nil {
                openWindow = max(k, (lastLocated ?? .min) + 1)
            }
            if let input = item.input {
                // A step waits for the window whose middle it precedes (replay gives each epoch, at its window's middle,
                // the steps since the previous one); everything else goes to the stream at once.
                if case .step(let step) = input, item.t > middle(of: k) { heldSteps.append(step) } else { locator.add(input) }
            }
        }
        return (locations, events)
    }

    /// The middle of window `k`, Unix s: the time its location is for.
    func middle(of k: Int) -> Double { recording.timeOrigin + (Double(k) + 0.5) * venue.scanWindow }

    /// The scan window (from the recording's origin) holding Unix time `t`, as replay's windows are cut.
    func windowIndex(_ t: Double) -> Int { EpochBuilder.windowIndex(t - recording.timeOrigin, window: venue.scanWindow) }

    /// The location of scan window `k`: the library's stream over [start, end) of the window.
    private func locate(window k: Int) -> LiveLocation {
        lastLocated = k
        let end = recording.timeOrigin + Double(k + 1) * venue.scanWindow
        let outcome = locator.currentLocation(at: Date(timeIntervalSince1970: end - 1e-6))
        // After the window: the steps held past its middle join the stream for the next.
        for step in heldSteps { locator.add(step) }
        heldSteps.removeAll()
        var l = LiveLocation(phone: phone, t: middle(of: k), beaconsUsed: 0)
        switch outcome {
        case .located(let fix):
            l.x = fix.position.x; l.y = fix.position.y
            if let e = fix.uncertainty { l.semiMajor = e.semiMajor; l.semiMinor = e.semiMinor; l.orientation = e.orientation }
            l.room = fix.room
            l.offset = fix.deviceOffset?.decibels; l.offsetSigma = fix.deviceOffset?.sigma
            l.beaconsUsed = fix.beaconsUsed.count
        case .unavailable(let reason, _):
            l.reason = reason.description
        }
        lock.lock(); lastLocation = l; lock.unlock()
        return l
    }

    var latestLocation: LiveLocation? { lock.lock(); defer { lock.unlock() }; return lastLocation }

    static func normalized(_ degrees: Double) -> Double {
        let d = degrees.truncatingRemainder(dividingBy: 360)
        let n = d < 0 ? d + 360 : d
        return n >= 360 ? 0 : n
    }

    /// The field a message's k-th timestamp is at.
    static func field(_ m: PhoneMessage, _ k: Int) -> String {
        switch m {
        case .scans: return "samples[\(k)].t"
        case .steps: return "steps[\(k)].t"
        default: return "t"
        }
    }
}

/// Messages per second with a burst allowance: a phone over it gets `rate-limited` for the messages over.
struct TokenBucket {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant?

    init(rate: Double, burst: Double) { self.rate = rate; self.burst = burst; tokens = burst }

    mutating func take(at now: ContinuousClock.Instant) -> Bool {
        if let last {
            let d = now - last
            let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
            tokens = min(burst, tokens + seconds * rate)
        }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}

/// A phone entering or leaving a room.
struct PresenceEvent: Sendable, Hashable {
    var phone: String
    var room: String
    var entered: Bool
    var t: Double

    var json: String {
        LiveEncoder.object([("type", LiveEncoder.str("presence")), ("phone", LiveEncoder.str(phone)), ("room", LiveEncoder.str(room)),
                            ("event", LiveEncoder.str(entered ? "enter" : "leave")), ("t", LiveEncoder.num(t))])
    }
}

/// Room presence with hysteresis, as a smart-home rule needs it: a phone enters a room after `enterWindows`
/// consecutive scan windows located in it, and leaves it after `leaveWindows` consecutive windows located elsewhere
/// (or nowhere), so a location flickering across a doorway does not switch the lights.
struct PresenceTracker {
    let enterWindows: Int
    let leaveWindows: Int
    private(set) var room: String?
    private var candidate: String?
    private var candidateCount = 0
    private var awayCount = 0

    init(enterWindows: Int, leaveWindows: Int) { self.enterWindows = max(1, enterWindows); self.leaveWindows = max(1, leaveWindows) }

    mutating func update(room located: String?, phone: String, t: Double) -> [PresenceEvent] {
        var events: [PresenceEvent] = []
        if let current = room {
            if located == current { awayCount = 0; candidate = nil; candidateCount = 0; return [] }
            awayCount += 1
            if awayCount >= leaveWindows {
                events.append(PresenceEvent(phone: phone, room: current, entered: false, t: t))
                room = nil; awayCount = 0
            }
        }
        guard let located else { candidate = nil; candidateCount = 0; return events }
        if candidate == located { candidateCount += 1 } else { candidate = located; candidateCount = 1 }
        if room == nil, candidateCount >= enterWindows {
            events.append(PresenceEvent(phone: phone, room: located, entered: true, t: t))
            room = located; candidate = nil; candidateCount = 0; awayCount = 0
        }
        return events
    }
}

extension PhoneSession {
    /// A surveyor's "the phone is here": ground truth (source survey) at the phone's latest time, in a survey session.
    func tapBatch(x: Double, y: Double) throws(MessageProblem) -> LiveBatch {
        guard info.survey else { throw MessageProblem(.forbidden, "phone: \(phone) is not in a survey session") }
        let b = venue.scenario.bounds
        guard x.isFinite, y.isFinite, x >= b.minX - 1, x <= b.maxX + 1, y >= b.minY - 1, y <= b.maxY + 1 else {
            throw MessageProblem(.invalidValue, "x, y: (\(x), \(y)) is outside the venue")
        }
        lock.lock(); let t = latestSent; lock.unlock()
        guard t.isFinite else { throw MessageProblem(.protocolError, "phone: \(phone) has sent nothing yet to put the tap in time") }
        var batch = LiveBatch(lastSequence: -1, messages: 0)
        batch.truth.append(TruthSample(t: t - recording.timeOrigin, position: Point(x, y), source: .survey))
        return batch
    }
}

/// What goes out on a phone's socket, in order: a message, or the end of the connection with its close code.
enum Outgoing: Sendable {
    case text(String)
    case close(WebSocketErrorCode, String)
}

/// Where a phone's connection takes what goes out (one task writes it to the socket).
typealias PhoneSink = AsyncStream<Outgoing>.Continuation
