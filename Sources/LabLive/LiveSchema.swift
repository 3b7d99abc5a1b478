import Foundation

/// The live service's messages: JSON text frames over a WebSocket, one message per frame (docs/live.md).
///
/// Version ``version``. Every message is an object with a `type`. A phone sends `hello` first, then any of `scans`,
/// `heading`, `steps`, `checkpoint` and `truth`, each with its own `seq` (a whole number that grows message by message;
/// a message sent again after a reconnection keeps its number and is acknowledged again without being stored twice).
/// The service answers `welcome`, then `ack` for each message once it is committed to the session's recording,
/// `location` once per scan window, and `error` for a message it refused (nothing of which is stored).
public enum LiveSchema {
    /// The schema's version, in `hello`, `welcome` and the DNS-SD TXT record.
    public static let version = 1
}

/// A beacon as a phone names it: an iBeacon (`uuid`, `major`, `minor`), an Eddystone-UID (`namespace`, `instance`) or a
/// `name`, exactly one of them.
public struct WireBeacon: Codable, Sendable, Hashable {
    public var uuid: String?
    public var major: Int?
    public var minor: Int?
    public var namespace: String?
    public var instance: String?
    public var name: String?

    public init(uuid: String? = nil, major: Int? = nil, minor: Int? = nil, namespace: String? = nil, instance: String? = nil, name: String? = nil) {
        self.uuid = uuid; self.major = major; self.minor = minor; self.namespace = namespace; self.instance = instance; self.name = name
    }

    enum CodingKeys: String, CodingKey { case uuid, major, minor, namespace, instance, name }

    /// `major` and `minor` read as numbers and checked whole here, so that 1.5 is named by its field.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func whole(_ key: CodingKeys) throws -> Int? {
            guard let x = try c.decodeIfPresent(Double.self, forKey: key) else { return nil }
            guard x == x.rounded(), abs(x) < 1e9 else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "expected a whole number, found \(x)")
            }
            return Int(x)
        }
        uuid = try c.decodeIfPresent(String.self, forKey: .uuid)
        major = try whole(.major); minor = try whole(.minor)
        namespace = try c.decodeIfPresent(String.self, forKey: .namespace)
        instance = try c.decodeIfPresent(String.self, forKey: .instance)
        name = try c.decodeIfPresent(String.self, forKey: .name)
    }
}

/// One sample of a scan: a beacon heard with its RSSI (dBm), or ranged with a distance (m, its σ and technology).
public struct WireSample: Codable, Sendable, Hashable {
    public var beacon: WireBeacon
    public var rssi: Double?
    public var range: Double?
    public var sigma: Double?
    /// `uwb` or `channel-sounding` for a range (default `uwb`).
    public var technology: String?
    /// Unix time, seconds.
    public var t: Double

    public init(beacon: WireBeacon, rssi: Double? = nil, range: Double? = nil, sigma: Double? = nil, technology: String? = nil, t: Double) {
        self.beacon = beacon; self.rssi = rssi; self.range = range; self.sigma = sigma; self.technology = technology; self.t = t
    }
}

/// One step of the phone's step detector.
public struct WireStep: Codable, Sendable, Hashable {
    public var length: Double
    /// Degrees clockwise from north.
    public var heading: Double
    public var lengthAccuracy: Double?
    public var headingAccuracy: Double?
    public var t: Double

    public init(length: Double, heading: Double, lengthAccuracy: Double? = nil, headingAccuracy: Double? = nil, t: Double) {
        self.length = length; self.heading = heading; self.lengthAccuracy = lengthAccuracy; self.headingAccuracy = headingAccuracy; self.t = t
    }
}

/// What a phone sends. Decoded from a frame by ``LiveDecoder``, which names the field a problem is at.
public enum PhoneMessage: Sendable, Hashable {
    /// First message of a connection: who the phone is. `t`, when given, is the session's time origin (Unix s).
    case hello(phone: String, model: String, app: String, schema: Int, survey: Bool, t: Double?)
    case scans(seq: Int, samples: [WireSample])
    case heading(seq: Int, degrees: Double, accuracy: Double, frieze: String?, t: Double)
    case steps(seq: Int, steps: [WireStep])
    /// A checkpoint the phone scanned (a QR code at a known place): ground truth.
    case checkpoint(seq: Int, name: String, t: Double)
    /// Where the phone truly is (a simulated phone's walk, or a surveyor's tap): ground truth.
    case truth(seq: Int, x: Double, y: Double, t: Double)

    /// The message's sequence number (nil for hello).
    public var sequence: Int? {
        switch self {
        case .hello: return nil
        case .scans(let s, _), .heading(let s, _, _, _, _), .steps(let s, _), .checkpoint(let s, _, _), .truth(let s, _, _, _): return s
        }
    }
}

/// Why the service refused a message or a connection: the `code` of an `error` frame and the `reason` label of the
/// `indoorlab_rejected_messages_total` metric.
public enum RejectReason: String, Sendable, CaseIterable {
    /// Not JSON, or JSON that is not one of the schema's messages.
    case malformed
    /// A message larger than the service takes.
    case tooLarge = "too-large"
    /// More messages per second than a phone may send.
    case rateLimited = "rate-limited"
    /// A beacon (or frieze, or checkpoint) the venue does not have.
    case unknownBeacon = "unknown-beacon"
    /// NaN, infinity, or a value outside its range.
    case invalidValue = "invalid-value"
    /// A timestamp earlier than one the phone sent before.
    case timeWentBackwards = "time-went-backwards"
    /// A message before `hello`, a second `hello`, a phone id that cannot name a file, another schema version.
    case protocolError = "protocol"
    /// No token, or a wrong one.
    case unauthorized
    /// More phones than the service takes.
    case tooManyPhones = "too-many-phones"
    /// A message the phone is not allowed to send (ground truth outside a survey session).
    case forbidden
    /// The recording could not be written (a full disk): the message was not acknowledged.
    case storageFailed = "storage-failed"
}

/// A problem with one message: why, where (a field path such as `samples[3].rssi`) and what was expected.
public struct MessageProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: RejectReason
    public var message: String
    public var seq: Int?

    public init(_ reason: RejectReason, _ message: String, seq: Int? = nil) { self.reason = reason; self.message = message; self.seq = seq }
    public var description: String { "\(reason.rawValue): \(message)" }
}

/// What the service sends a phone.
public enum ServerMessage: Sendable, Hashable {
    case welcome(venue: String, session: String, schema: Int, scanWindow: Double, resumed: Bool, lastSeq: Int)
    case ack(seq: Int)
    case location(LiveLocation)
    case error(MessageProblem)
}

/// A located scan window, as sent to the phone and to viewers.
public struct LiveLocation: Codable, Sendable, Hashable {
    public var phone: String
    /// The middle of the scan window (the time its location is for, as replay's epochs), Unix s.
    public var t: Double
    /// Metres, venue frame; nil when no location (see `reason`).
    public var x: Double?
    public var y: Double?
    /// The 95% ellipse: semi-axes (m) and the major axis's direction (degrees counter-clockwise from +x).
    public var semiMajor: Double?
    public var semiMinor: Double?
    public var orientation: Double?
    public var room: String?
    /// The learned device offset and its σ, dB.
    public var offset: Double?
    public var offsetSigma: Double?
    public var beaconsUsed: Int
    /// Why there is no location (for example "no beacons heard").
    public var reason: String?
}

/// JSON for the service's own messages, keys in a fixed order (a client may diff them).
public enum LiveEncoder {
    public static func encode(_ m: ServerMessage) -> String {
        switch m {
        case .welcome(let venue, let session, let schema, let window, let resumed, let last):
            return object([("type", str("welcome")), ("schema", "\(schema)"), ("venue", str(venue)), ("session", str(session)),
                           ("scanWindow", num(window)), ("resumed", resumed ? "true" : "false"), ("lastSeq", "\(last)")])
        case .ack(let seq):
            return object([("type", str("ack")), ("seq", "\(seq)")])
        case .location(let l):
            return location(l, type: "location")
        case .error(let p):
            var fields = [("type", str("error")), ("code", str(p.reason.rawValue)), ("message", str(p.message))]
            if let s = p.seq { fields.append(("seq", "\(s)")) }
            return object(fields)
        }
    }

    /// A location as a JSON object with `type` first.
    public static func location(_ l: LiveLocation, type: String) -> String {
        var f = [("type", str(type)), ("phone", str(l.phone)), ("t", num(l.t))]
        if let x = l.x, let y = l.y { f += [("x", num(x)), ("y", num(y))] }
        if let a = l.semiMajor, let b = l.semiMinor, let o = l.orientation {
            f.append(("ellipse", object([("semiMajor", num(a)), ("semiMinor", num(b)), ("orientation", num(o)), ("confidence", "0.95")])))
        }
        if let r = l.room { f.append(("room", str(r))) }
        if let o = l.offset, let s = l.offsetSigma { f.append(("offset", object([("db", num(o)), ("sigma", num(s))]))) }
        f.append(("beaconsUsed", "\(l.beaconsUsed)"))
        if let r = l.reason { f.append(("reason", str(r))) }
        return object(f)
    }

    static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\(str($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    /// A JSON string literal.
    public static func str(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }

    /// A finite number with up to 6 decimals and no trailing zeros (JSON has no NaN: null).
    public static func num(_ x: Double) -> String {
        guard x.isFinite else { return "null" }
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        var s = String(format: "%.6f", x)
        while s.hasSuffix("0") { s.removeLast() }
        // 1796621000.9999996 prints as 1796621001.000000: what is left of it, "1796621001.", is not JSON.
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }
}
