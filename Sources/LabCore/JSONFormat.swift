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
