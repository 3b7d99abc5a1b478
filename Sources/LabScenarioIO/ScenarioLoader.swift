import Foundation
import LabCore
import Yams

/// Reads a scenario from YAML and checks it, reporting every problem with file, line and field path.
public enum ScenarioLoader {
    /// Loads and validates the scenario at `path`. Throws ``InputErrors`` listing every problem found.
    public static func load(path: String) throws -> Scenario {
        try parse(yaml: try readText(path, expecting: "a scenario file (.yaml)"), file: path)
    }

    /// The UTF-8 text of the file at `path`: a missing file, a directory, an unreadable file or bytes that
    /// are not UTF-8 (with the line and column of the first bad byte) are input errors naming the file.
    public static func readText(_ path: String, expecting what: String) throws -> String {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw InputErrors([InputError(file: path, "no such file; expected \(what)")])
        }
        if isDir.boolValue { throw InputErrors([InputError(file: path, "is a directory; expected \(what)")]) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputErrors([InputError(file: path, "cannot read the file (permissions?)")])
        }
        if let text = String(data: data, encoding: .utf8) { return text }
        let (offset, line, column) = firstInvalidUTF8(data)
        throw InputErrors([InputError(InputLocation(file: path, line: line, column: column),
                                      "the file is not UTF-8 text: byte 0x\(String(data[offset], radix: 16, uppercase: true)) cannot start or continue a character")])
    }

    /// The offset of the first byte that breaks UTF-8, with its 1-based line and column.
    static func firstInvalidUTF8(_ data: Data) -> (offset: Int, line: Int, column: Int) {
        let bytes = [UInt8](data)
        var i = 0, line = 1, lineStart = 0
        while i < bytes.count {
            let b = bytes[i]
            let n = b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0
            guard n > 0, i + n <= bytes.count, String(decoding: bytes[i..<i + n], as: UTF8.self).unicodeScalars.allSatisfy({ $0 != "\u{FFFD}" }) else { break }
            if b == 0x0A { line += 1; lineStart = i + 1 }
            i += n
        }
        return (min(i, max(bytes.count - 1, 0)), line, i - lineStart + 1)
    }

    /// Parses and validates scenario YAML; `file` names the source in error messages.
    public static func parse(yaml: String, file: String) throws -> Scenario {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            throw InputErrors([syntaxError(error, file: file)])
        }
        guard let root else { throw InputErrors([InputError(file: file, "the file is empty; expected a scenario mapping")]) }
        let diagnostics = YAMLDiagnostics(file: file)
        let read = read(YAMLField(node: root, path: "", diagnostics: diagnostics))
        if let read { validate(read.scenario, places: read.places, root: root, diagnostics: diagnostics) }
        if !diagnostics.errors.isEmpty { throw InputErrors(diagnostics.errors) }
        guard let scenario = read?.scenario else { throw InputErrors([InputError(file: file, "not a scenario")]) }
        return scenario
    }

    static func syntaxError(_ error: YamlError, file: String) -> InputError {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return InputError(InputLocation(file: file, line: mark.line, column: mark.column), "YAML syntax error: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            // YAML marks the key's first place; the user's mistake is the second one: find it (same key, same column,
            // a later line of a block mapping), and give both.
            let first = context.mark.line
            if duplicates.count == 1, let key = duplicates.first, let again = repeatedKeyLine(key, after: first, column: context.mark.column, in: context.text) {
                return InputError(InputLocation(file: file, line: again, column: context.mark.column),
                                  "the key '\(abbreviated(key))' appears twice in one mapping (first at line \(first))")
            }
            return InputError(InputLocation(file: file, line: context.mark.line, column: context.mark.column),
                              "a key appears twice in one mapping: \(duplicates.joined(separator: ", "))")
        case .reader(let problem, let offset, _, let yaml):
            // libyaml's reader gives a byte offset: turn it into file:line: like the others.
            let line = offset.map { o in yaml.utf8.prefix(o).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) } }
            return InputError(InputLocation(file: file, line: line), "YAML error: \(problem)")
        default:
            return InputError(file: file, "YAML syntax error: \(abbreviated("\(error)", limit: 200))")
        }
    }

    /// The line (1-based) after `line` where `key` starts another entry of the block mapping whose key at `line`,
    /// `column` (both 1-based) is `key`; nil when that key is not in a block mapping (a flow mapping, `{a: 1, a: 2}`)
    /// or the mapping ends (a line indented less) before the key comes again.
    static func repeatedKeyLine(_ key: String, after line: Int, column: Int, in text: String) -> Int? {
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        let indent = max(column - 1, 0)
        guard line >= 1, line <= lines.count else { return nil }
        // A block mapping's key has only indentation before it, or a sequence item's dash ("  - name: Room").
        let lead = lines[line - 1].prefix(indent)
        guard lead.count == indent, lead.allSatisfy({ $0 == " " || $0 == "-" }) else { return nil }
        for i in line..<lines.count {
            let l = lines[i]
            let blank = l.allSatisfy { $0 == " " || $0 == "\t" }
            let spaces = l.prefix { $0 == " " }.count
            if blank || l.dropFirst(spaces).first == "#" { continue }
            if spaces < indent { return nil }          // the mapping has ended
            guard spaces == indent else { continue }     // deeper: a value's own lines
            let rest = l.dropFirst(indent)
            for spelled in [key, "\"\(key)\"", "'\(key)'"] where rest.hasPrefix(spelled) {
                if rest.dropFirst(spelled.count).drop(while: { $0 == " " }).first == ":" { return i + 1 }
            }
        }
        return nil
    }
}
