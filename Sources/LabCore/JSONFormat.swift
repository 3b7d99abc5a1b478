import Foundation

/// The lab's one JSON configuration: pretty, keys sorted (stable diffs), slashes unescaped, and ±∞ and NaN
/// written as the strings "inf", "-inf" and "nan" (JSON has no such numbers; an unreachable point's
/// bound is +∞).
public enum LabJSON {
    public static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }

    public static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return d
    }

    /// `value` as JSON text with a final newline.
    public static func string<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self) + "\n"
    }
}

extension LabJSON {
    /// `data` (the file at `file`) decoded as `T` by ``decoder()`` (or `decoder`), refusing a key that appears twice in
    /// an object (``duplicateKey(in:)``); a failure is an ``InputError`` naming the file and field, saying the file is
    /// not `what`.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, file: String, as what: String,
                                            decoder: JSONDecoder = LabJSON.decoder()) throws -> T {
        if let d = duplicateKey(in: data) {
            throw InputError(file: file, field: d.path.isEmpty ? d.key : d.path + "." + d.key,
                             "not \(what): the key '\(abbreviated(d.key))' appears twice in one object (which one counts would be a guess)")
        }
        do { return try decoder.decode(type, from: data) } catch { throw InputError(file: file, decoding: error, as: what) }
    }

    /// The first key that appears twice in one object of `data`, with the object's path (`baselines.centroid`; `[]` for
    /// an array's elements), or nil. Foundation's decoder keeps one of them silently (the first, in swift-corelibs;
    /// other tools take the last), so a value appended to override another would be ignored: the lab's readers refuse
    /// the file instead. A scan of the text, not a parser: malformed JSON is left to the decoder to report.
    public static func duplicateKey(in data: Data) -> (path: String, key: String)? {
        struct Container { var path: String; var keys: Set<String>?; var expectKey: Bool }
        var stack: [Container] = []
        var lastKey = ""
        let bytes = [UInt8](data)
        var i = 0
        func childPath() -> String {
            guard let parent = stack.last else { return "" }
            let step = parent.keys == nil ? "[]" : lastKey
            return parent.path.isEmpty ? step : parent.path + (step == "[]" ? "" : ".") + step
        }
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "{"): stack.append(Container(path: childPath(), keys: [], expectKey: true))
            case UInt8(ascii: "["): stack.append(Container(path: childPath(), keys: nil, expectKey: false))
            case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = stack.popLast()
            case UInt8(ascii: ","): if !stack.isEmpty, stack[stack.count - 1].keys != nil { stack[stack.count - 1].expectKey = true }
            case UInt8(ascii: "\""):
                var text: [UInt8] = []
                i += 1
                while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
                    if bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.count { text.append(bytes[i]); i += 1 }
                    text.append(bytes[i])
                    i += 1
                }
                guard i < bytes.count else { return nil }
                if let top = stack.last, top.keys != nil, top.expectKey {
                    let key = String(decoding: text, as: UTF8.self)
                    if top.keys!.contains(key) { return (top.path, key) }
                    stack[stack.count - 1].keys!.insert(key)
                    stack[stack.count - 1].expectKey = false
                    lastKey = key
                }
            default: break
            }
            i += 1
        }
        return nil
    }
}
