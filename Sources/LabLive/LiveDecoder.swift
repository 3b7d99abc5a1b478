import Foundation

/// Reads a phone's frame into a ``PhoneMessage``, or says what is wrong with it and where: the field path
/// (`samples[2].beacon.major`), what was expected and what was found.
public enum LiveDecoder {
    /// Decodes one text frame.
    public static func decode(_ text: String) -> Result<PhoneMessage, MessageProblem> {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [])
        } catch {
            if text.contains("NaN") || text.contains("Infinity") {
                return .failure(MessageProblem(.invalidValue, "NaN and Infinity are not numbers (JSON has none): send finite values"))
            }
            return .failure(MessageProblem(.malformed, "not JSON: \(String(describing: error).prefix(120))"))
        }
        guard let dict = object as? [String: Any] else { return .failure(MessageProblem(.malformed, "expected a JSON object with a \"type\"")) }
        let f = Fields(dict, path: "")
        do {
            return .success(try message(f))
        } catch let p as MessageProblem {
            var p = p
            if p.seq == nil { p.seq = try? f.int("seq") }
            return .failure(p)
        } catch {
            return .failure(MessageProblem(.malformed, "\(error)"))
        }
    }

    static func message(_ f: Fields) throws -> PhoneMessage {
        let type = try f.string("type")
        switch type {
        case "hello":
            return .hello(phone: try f.string("phone"), model: try f.optionalString("model") ?? "", app: try f.optionalString("app") ?? "",
                          schema: try f.optionalInt("schema") ?? LiveSchema.version, survey: try f.optionalBool("survey") ?? false,
                          t: try f.optionalNumber("t"))
        case "scans":
            let seq = try f.sequence()
            let items = try f.array("samples")
            var samples: [WireSample] = []
            samples.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                let s = try item.object()
                let b = try s.child("beacon").object()
                let beacon = WireBeacon(uuid: try b.optionalString("uuid"), major: try b.optionalInt("major"), minor: try b.optionalInt("minor"),
                                        namespace: try b.optionalString("namespace"), instance: try b.optionalString("instance"),
                                        name: try b.optionalString("name"))
                let sample = WireSample(beacon: beacon, rssi: try s.optionalNumber("rssi"), range: try s.optionalNumber("range"),
                                        sigma: try s.optionalNumber("sigma"), technology: try s.optionalString("technology"), t: try s.number("t"))
                guard (sample.rssi == nil) != (sample.range == nil) else {
                    throw MessageProblem(.malformed, "samples[\(i)]: expected one of \"rssi\" or \"range\"", seq: seq)
                }
                samples.append(sample)
            }
            return .scans(seq: seq, samples: samples)
        case "heading":
            return .heading(seq: try f.sequence(), degrees: try f.number("degrees"), accuracy: try f.optionalNumber("accuracy") ?? 10,
                            frieze: try f.optionalString("frieze"), t: try f.number("t"))
        case "steps":
            let seq = try f.sequence()
            let steps = try f.array("steps").map { item -> WireStep in
                let s = try item.object()
                return WireStep(length: try s.number("length"), heading: try s.number("heading"), lengthAccuracy: try s.optionalNumber("lengthAccuracy"),
                                headingAccuracy: try s.optionalNumber("headingAccuracy"), t: try s.number("t"))
            }
            return .steps(seq: seq, steps: steps)
        case "checkpoint":
            return .checkpoint(seq: try f.sequence(), name: try f.string("name"), t: try f.number("t"))
        case "truth":
            return .truth(seq: try f.sequence(), x: try f.number("x"), y: try f.number("y"), t: try f.number("t"))
        default:
            throw MessageProblem(.malformed, "type: expected hello, scans, heading, steps, checkpoint or truth, found \"\(type.prefix(40))\"")
        }
    }
}

/// A JSON value at a path, with typed accessors whose errors name the path.
struct Fields {
    let value: Any
    let path: String

    init(_ value: Any, path: String) { self.value = value; self.path = path }

    func name(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func object() throws -> Fields {
        guard value is [String: Any] else { throw MessageProblem(.malformed, "\(path): expected an object, found \(Fields.kind(value))") }
        return self
    }

    func child(_ key: String) throws -> Fields {
        guard let d = value as? [String: Any], let v = d[key], !(v is NSNull) else { throw MessageProblem(.malformed, "\(name(key)): missing") }
        return Fields(v, path: name(key))
    }

    func optional(_ key: String) -> Any? {
        guard let d = value as? [String: Any], let v = d[key], !(v is NSNull) else { return nil }
        return v
    }

    func string(_ key: String) throws -> String {
        guard let s = try optionalString(key) else { throw MessageProblem(.malformed, "\(name(key)): missing (expected a string)") }
        return s
    }

    func optionalString(_ key: String) throws -> String? {
        guard let v = optional(key) else { return nil }
        guard let s = v as? String else { throw MessageProblem(.malformed, "\(name(key)): expected a string, found \(Fields.kind(v))") }
        guard s.utf8.count <= 256 else { throw MessageProblem(.invalidValue, "\(name(key)): longer than 256 bytes") }
        return s
    }

    func number(_ key: String) throws -> Double {
        guard let x = try optionalNumber(key) else { throw MessageProblem(.malformed, "\(name(key)): missing (expected a number)") }
        return x
    }

    func optionalNumber(_ key: String) throws -> Double? {
        guard let v = optional(key) else { return nil }
        guard let n = v as? NSNumber, !Fields.isBool(n) else { throw MessageProblem(.malformed, "\(name(key)): expected a number, found \(Fields.kind(v))") }
        let x = n.doubleValue
        guard x.isFinite else { throw MessageProblem(.invalidValue, "\(name(key)): expected a finite number") }
        return x
    }

    func int(_ key: String) throws -> Int {
        guard let i = try optionalInt(key) else { throw MessageProblem(.malformed, "\(name(key)): missing (expected a whole number)") }
        return i
    }

    func optionalInt(_ key: String) throws -> Int? {
        guard let x = try optionalNumber(key) else { return nil }
        guard x == x.rounded(), abs(x) < 9e15 else { throw MessageProblem(.invalidValue, "\(name(key)): expected a whole number, found \(x)") }
        return Int(x)
    }

    func optionalBool(_ key: String) throws -> Bool? {
        guard let v = optional(key) else { return nil }
        guard let n = v as? NSNumber, Fields.isBool(n) else { throw MessageProblem(.malformed, "\(name(key)): expected true or false, found \(Fields.kind(v))") }
        return n.boolValue
    }

    /// `seq`: a whole number ≥ 0.
    func sequence() throws -> Int {
        let s = try int("seq")
        guard s >= 0 else { throw MessageProblem(.invalidValue, "seq: expected a whole number ≥ 0, found \(s)") }
        return s
    }

    func array(_ key: String) throws -> [Fields] {
        let c = try child(key)
        guard let a = c.value as? [Any] else { throw MessageProblem(.malformed, "\(c.path): expected an array, found \(Fields.kind(c.value))") }
        return a.enumerated().map { Fields($0.element, path: "\(c.path)[\($0.offset)]") }
    }

    static func isBool(_ n: NSNumber) -> Bool {
        #if canImport(Darwin)
        return CFGetTypeID(n) == CFBooleanGetTypeID()
        #else
        // JSONSerialization gives true and false as a subclass of NSNumber whose type is "c".
        return type(of: n) != NSNumber.self && String(cString: n.objCType) == "c"
        #endif
    }

    static func kind(_ v: Any) -> String {
        switch v {
        case is String: return "a string"
        case let n as NSNumber: return isBool(n) ? "a boolean" : "a number"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        case is NSNull: return "null"
        default: return "\(type(of: v))"
        }
    }
}
