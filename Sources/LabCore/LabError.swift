/// Where in an input a problem was found: the file, the line (when known) and the field path.
public struct InputLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var column: Int?
    public var field: String?

    public init(file: String, line: Int? = nil, column: Int? = nil, field: String? = nil) {
        self.file = file; self.line = line; self.column = column; self.field = field
    }

    public var description: String {
        var s = file
        if let line { s += ":\(line)" }
        if let column { s += ":\(column)" }
        if let field, !field.isEmpty { s += ": \(field)" }
        return s
    }
}

/// The one error type for bad input anywhere in the lab: it says where, and what was expected.
public struct InputError: Error, Sendable, CustomStringConvertible, Equatable {
    public var location: InputLocation
    public var message: String

    public init(_ location: InputLocation, _ message: String) {
        self.location = location; self.message = message
    }
    public init(file: String, line: Int? = nil, field: String? = nil, _ message: String) {
        self.init(InputLocation(file: file, line: line, field: field), message)
    }

    public var description: String { "\(location): \(message)" }
}

extension InputError {
    /// A JSON document in `file` that did not decode as `what` (e.g. "a radio fit"): the field path and what was
    /// missing or expected, not the decoder's debug text.
    public init(file: String, decoding error: any Error, as what: String) {
        func path(_ keys: [any CodingKey]) -> String { keys.map(\.stringValue).joined(separator: ".") }
        switch error {
        case DecodingError.dataCorrupted(let context):
            // swift-corelibs-foundation reports a number of the wrong kind (61.5 for a whole number, −1 for a seed) as
            // "not valid JSON", with no field: say that it may be that.
            let detail = context.codingPath.isEmpty && context.debugDescription.hasSuffix("not valid JSON.")
                ? "not valid JSON, or a number that does not fit its field (a fraction, a negative or a too large number where a whole number belongs)"
                : context.debugDescription
            self.init(file: file, field: path(context.codingPath), "not \(what): \(detail)")
        case DecodingError.keyNotFound(let key, let context):
            self.init(file: file, field: path(context.codingPath + [key]), "not \(what): missing key '\(key.stringValue)'")
        case DecodingError.typeMismatch(let type, let context), DecodingError.valueNotFound(let type, let context):
            // Foundation says "Expected to decode Double but found a string instead." or, for null, "Cannot get value of
            // type Double -- found null value instead": say what the file should hold, in the file's words.
            let text = context.debugDescription
            let found: String
            if let r = text.range(of: " but found ") {
                var rest = Substring(text[r.upperBound...])
                while let last = rest.last, last == "." || last == " " { rest = rest.dropLast() }
                if rest.hasSuffix(" instead") { rest = rest.dropLast(" instead".count) }
                found = String(rest)
            } else if text.contains("null") {
                found = "null"
            } else {
                found = ""
            }
            let expected = InputError.plainJSONType(type)
            self.init(file: file, field: path(context.codingPath),
                      "not \(what): expected \(expected)" + (found.isEmpty ? "" : ", found \(found)"))
        default:
            self.init(file: file, "not \(what): \(error)")
        }
    }
}

extension InputError {
    /// What a JSON value of Swift type `type` looks like in the file: "a number" for `Double`, "a list" for an array.
    static func plainJSONType(_ type: Any.Type) -> String {
        let name = String(describing: type)
        switch name {
        case "Double", "Float": return "a number"
        case "Int", "Int64", "UInt64", "Int32", "UInt32", "UInt16", "UInt8", "Int16", "Int8", "UInt": return "a whole number"
        case "String": return "a string"
        case "Bool": return "true or false"
        default:
            return name.hasPrefix("Array<") ? "a list" : name.hasPrefix("Dictionary<") ? "an object" : "a value of type \(name)"
        }
    }
}

/// As JSON: `{"file", "line", "column", "field", "message"}` (absent keys are unknown), for scripts.
extension InputError: Encodable {
    enum CodingKeys: String, CodingKey { case file, line, column, field, message }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(location.file, forKey: .file)
        try c.encodeIfPresent(location.line, forKey: .line)
        try c.encodeIfPresent(location.column, forKey: .column)
        if let f = location.field, !f.isEmpty { try c.encode(f, forKey: .field) }
        try c.encode(message, forKey: .message)
    }
}

/// Several input errors found in one pass (validation reports them all, not just the first).
public struct InputErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [InputError]
    public init(_ errors: [InputError]) { self.errors = errors }
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

/// A file another process holds locked past the wait: not bad input, and not lost — try again (exit code 3).
public struct FileBusy: Error, Sendable, CustomStringConvertible, Equatable {
    public var file: String
    public var message: String
    public init(file: String, _ message: String) { self.file = file; self.message = message }
    public var description: String { "\(file): \(message)" }
}
