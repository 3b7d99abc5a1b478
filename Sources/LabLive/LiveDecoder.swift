import Foundation

/// Reads a phone's frame into a ``PhoneMessage``, or says what is wrong with it and where: the field path
/// (`samples[2].beacon.major`), what was expected and what was found.
public enum LiveDecoder {
    /// Decodes one text frame (Foundation's JSONDecoder; its coding path becomes the field path of a problem).
    public static func decode(_ text: String) -> Result<PhoneMessage, MessageProblem> {
        let wire: WireMessage
        do {
            wire = try JSONDecoder().decode(WireMessage.self, from: Data(text.utf8))
        } catch let e as DecodingError {
            // The message's seq, when that much of it reads, so the phone knows which message was refused.
            struct Sequence: Decodable { var seq: Int? }
            var p = problem(e, text: text)
            p.seq = (try? JSONDecoder().decode(Sequence.self, from: Data(text.utf8)))?.seq ?? nil
            return .failure(p)
        } catch {
            return .failure(MessageProblem(.malformed, "not JSON: \(String(describing: error).prefix(120))"))
        }
        do {
            return .success(try message(wire))
        } catch let p as MessageProblem {
            var p = p
            if p.seq == nil, let x = wire.seq, x == x.rounded(), abs(x) < 9e15 { p.seq = Int(x) }
            return .failure(p)
        } catch {
            return .failure(MessageProblem(.malformed, "\(error)"))
        }
    }

    /// Every field any message has; which must be there depends on `type`.
    struct WireMessage: Decodable {
        var type: String
        /// Read as a number and checked to be whole here (the decoder's own error for 1.5 has no field path).
        var seq: Double?
        var phone: String?
        var model: String?
        var app: String?
        var schema: Double?
        var survey: Bool?
        var t: Double?
        var samples: [WireSample]?
        var degrees: Double?
        var accuracy: Double?
        var frieze: String?
        var steps: [WireStep]?
        var name: String?
        var x: Double?
        var y: Double?
    }

    static func message(_ w: WireMessage) throws -> PhoneMessage {
        func need<T>(_ v: T?, _ field: String, _ what: String) throws -> T {
            guard let v else { throw MessageProblem(.malformed, "\(field): missing (expected \(what))") }
            return v
        }
        func whole(_ x: Double?, _ field: String) throws -> Int? {
            guard let x else { return nil }
            guard x == x.rounded(), abs(x) < 9e15 else { throw MessageProblem(.invalidValue, "\(field): expected a whole number, found \(x)") }
            return Int(x)
        }
        func sequence() throws -> Int {
            let s = try need(try whole(w.seq, "seq"), "seq", "a whole number")
            guard s >= 0 else { throw MessageProblem(.invalidValue, "seq: expected a whole number ≥ 0, found \(s)") }
            return s
        }
        for (field, text) in [("phone", w.phone), ("model", w.model), ("app", w.app), ("frieze", w.frieze), ("name", w.name)] {
            if let text, text.utf8.count > 256 { throw MessageProblem(.invalidValue, "\(field): longer than 256 bytes") }
        }
        switch w.type {
        case "hello":
            return .hello(phone: try need(w.phone, "phone", "a string"), model: w.model ?? "", app: w.app ?? "",
                          schema: try whole(w.schema, "schema") ?? LiveSchema.version, survey: w.survey ?? false, t: w.t)
        case "scans":
            let seq = try sequence()
            let samples = try need(w.samples, "samples", "an array")
            for (i, s) in samples.enumerated() {
                guard (s.rssi == nil) != (s.range == nil) else {
                    throw MessageProblem(.malformed, "samples[\(i)]: expected one of \"rssi\" or \"range\"", seq: seq)
                }
                for (field, text) in [("uuid", s.beacon.uuid), ("namespace", s.beacon.namespace), ("instance", s.beacon.instance), ("name", s.beacon.name), ("technology", s.technology)] {
                    if let text, text.utf8.count > 256 { throw MessageProblem(.invalidValue, "samples[\(i)].beacon.\(field): longer than 256 bytes", seq: seq) }
                }
            }
            return .scans(seq: seq, samples: samples)
        case "heading":
            return .heading(seq: try sequence(), degrees: try need(w.degrees, "degrees", "a number"), accuracy: w.accuracy ?? 10,
                            frieze: w.frieze, t: try need(w.t, "t", "a number"))
        case "steps":
            return .steps(seq: try sequence(), steps: try need(w.steps, "steps", "an array"))
        case "checkpoint":
            return .checkpoint(seq: try sequence(), name: try need(w.name, "name", "a string"), t: try need(w.t, "t", "a number"))
        case "truth":
            return .truth(seq: try sequence(), x: try need(w.x, "x", "a number"), y: try need(w.y, "y", "a number"), t: try need(w.t, "t", "a number"))
        default:
            throw MessageProblem(.malformed, "type: expected hello, scans, heading, steps, checkpoint or truth, found \"\(w.type.prefix(40))\"")
        }
    }

    /// A decoding error as a problem at its field path (`samples[2].beacon.major`).
    static func problem(_ e: DecodingError, text: String) -> MessageProblem {
        func path(_ keys: [any CodingKey]) -> String {
            var out = ""
            for k in keys {
                if let i = k.intValue { out += "[\(i)]" } else { out += (out.isEmpty ? "" : ".") + k.stringValue }
            }
            return out
        }
        func kind(_ type: Any.Type) -> String {
            switch type {
            case is Double.Type: return "a number"
            case is Int.Type: return "a whole number"
            case is Bool.Type: return "true or false"
            case is String.Type: return "a string"
            default: return "\(type)".hasPrefix("Array") ? "an array" : "an object"
            }
        }
        switch e {
        case .keyNotFound(let key, let c):
            let field = path(c.codingPath + [key])
            return MessageProblem(.malformed, field == "type" ? "expected a JSON object with a \"type\"" : "\(field): missing")
        case .typeMismatch(let type, let c):
            return MessageProblem(.malformed, "\(c.codingPath.isEmpty ? "the message" : path(c.codingPath)): expected \(kind(type))")
        case .valueNotFound(let type, let c):
            return MessageProblem(.malformed, "\(path(c.codingPath)): expected \(kind(type)), found null")
        case .dataCorrupted(let c):
            if c.codingPath.isEmpty {
                if text.contains("NaN") || text.contains("Infinity") {
                    return MessageProblem(.invalidValue, "NaN and Infinity are not numbers (JSON has none): send finite values")
                }
                return MessageProblem(.malformed, "not JSON: \(c.debugDescription.prefix(120))")
            }
            if c.debugDescription.contains("does not fit") { return MessageProblem(.invalidValue, "\(path(c.codingPath)): expected a whole number") }
            return MessageProblem(.invalidValue, "\(path(c.codingPath)): \(c.debugDescription.prefix(120))")
        @unknown default:
            return MessageProblem(.malformed, "\(e)")
        }
    }
}

