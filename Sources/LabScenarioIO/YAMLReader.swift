import LabCore
import Yams

/// Collects the problems found while reading one YAML file, each with its line and field path.
final class YAMLDiagnostics {
    let file: String
    private(set) var errors: [InputError] = []
    init(file: String) { self.file = file }

    func report(_ node: Node?, _ path: String, _ message: String) {
        errors.append(InputError(InputLocation(file: file, line: node?.mark?.line, field: path), message))
    }
}

/// One node of a YAML document with the field path that reached it (e.g. `beacons[3].position`).
/// Accessors report a clear error and return nil when the node is not what was expected.
struct YAMLField {
    let node: Node
    let path: String
    let diagnostics: YAMLDiagnostics

    func fail(_ message: String) { diagnostics.report(node, path, message) }

    private func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The node as a mapping restricted to `allowed` keys; unknown keys are reported.
    func mapping(allowed: [String]) -> YAMLMapping? {
        guard case .mapping(let m) = node else {
            fail("expected a mapping with keys \(allowed.joined(separator: ", ")), found \(kindName)")
            return nil
        }
        var fields: [String: YAMLField] = [:]
        for (k, v) in m {
            guard let key = k.string else { diagnostics.report(k, path, "expected a text key"); continue }
            if !allowed.contains(key) {
                let suggestion = didYouMean(key, among: allowed)
                diagnostics.report(k, child(key), "unknown key '\(key)'\(suggestion); allowed: \(allowed.joined(separator: ", "))")
                continue
            }
            if fields[key] != nil { diagnostics.report(k, child(key), "duplicate key '\(key)'"); continue }
            fields[key] = YAMLField(node: v, path: child(key), diagnostics: diagnostics)
        }
        return YAMLMapping(fields: fields, owner: self)
    }

    func sequence() -> [YAMLField]? {
        guard case .sequence(let s) = node else { fail("expected a list, found \(kindName)"); return nil }
        return s.enumerated().map { YAMLField(node: $1, path: "\(path)[\($0)]", diagnostics: diagnostics) }
    }

    /// A plain `~`, `null`, `Null`, `NULL` or empty scalar (YAML 1.2's null), or an explicit !!null; a quoted "null" is
    /// text.
    var isNull: Bool {
        guard case .scalar(let s) = node else { return false }
        if s.tag.description == Tag.Name.null.rawValue { return true }
        guard s.style == .plain || s.style == .any else { return false }
        return ["~", "null", "Null", "NULL", ""].contains(s.string)
    }

    func double() -> Double? {
        guard case .scalar(let s) = node, s.style == .plain || s.style == .any, let v = node.float, v.isFinite else {
            fail("expected a finite number, found \(describedValue)"); return nil
        }
        return v
    }

    func int() -> Int? {
        guard case .scalar(let s) = node, s.style == .plain || s.style == .any, let v = node.int else {
            fail("expected a whole number, found \(describedValue)"); return nil
        }
        return v
    }

    func string() -> String? {
        guard case .scalar(let s) = node, !s.string.isEmpty else { fail("expected text, found \(describedValue)"); return nil }
        return s.string
    }

    func bool() -> Bool? {
        guard case .scalar = node, let v = node.bool else { fail("expected true or false, found \(describedValue)"); return nil }
        return v
    }

    /// `[x, y]` in metres.
    func point() -> Point? {
        guard case .sequence(let s) = node, s.count == 2, let x = s[0].float, let y = s[1].float, x.isFinite, y.isFinite else {
            var why = ""
            if case .sequence(let s) = node {
                if s.count != 2 { why = " (\(s.count) values, not 2)" }
                else if let bad = s.first(where: { $0.float.map { !$0.isFinite } ?? true }) {
                    why = " ('\(abbreviated(bad.scalar?.string ?? "a \(bad.mapping != nil ? "mapping" : "list")"))' is not a finite number)"
                }
            }
            fail("expected a point [x, y] in metres, found \(describedValue)\(why)"); return nil
        }
        return Point(x, y)
    }

    var kindName: String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar(let s): return "'\(abbreviated(s.string))'"
        case .alias: return "an alias"
        }
    }

    private var describedValue: String {
        switch node {
        case .scalar(let s): return s.string.isEmpty ? "nothing" : "'\(abbreviated(s.string))'"
        case .sequence(let items) where items.count <= 8 && items.allSatisfy({ $0.scalar != nil }):
            return abbreviated("[" + items.map { $0.scalar!.string }.joined(separator: ", ") + "]")
        default: return kindName
        }
    }
}

/// The keys of a YAML mapping, read with required/optional accessors.
struct YAMLMapping {
    let fields: [String: YAMLField]
    let owner: YAMLField

    func required(_ key: String) -> YAMLField? {
        if let f = fields[key], !f.isNull { return f }
        // The line is the mapping's first: the field is missing from the mapping that starts there. A top-level field
        // is missing from the whole file, which has no line to point at.
        if owner.path.isEmpty {
            owner.diagnostics.report(nil, key, "missing required top-level field '\(key)'")
        } else {
            owner.diagnostics.report(owner.node, "\(owner.path).\(key)", "missing required field '\(key)' (in the mapping that starts on this line)")
        }
        return nil
    }

    func optional(_ key: String) -> YAMLField? {
        guard let f = fields[key], !f.isNull else { return nil }
        return f
    }
}
