import Foundation

/// Whether `name` can name the files the lab writes for it (`<name>-epochs.csv`, plots): letters, digits, '-', '_' and
/// '.', not starting with '.'. Scenario names must be; so must the names a results manifest gives, which become paths.
public func isFileSafe(_ name: String) -> Bool {
    !name.isEmpty && !name.hasPrefix(".") && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }
}
/// What ``isFileSafe(_:)`` asks, for messages.
public let fileSafeRule = "cannot name the files the lab writes for it: use letters, digits, '-', '_' and '.', not starting with '.' (no '/', '@', spaces or commas)"

/// Levenshtein distance, for "did you mean" hints (unknown keys, scenario and command names).
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var prev = Array(0...b.count), cur = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        cur[0] = i
        for j in 1...b.count {
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&prev, &cur)
    }
    return prev[b.count]
}

/// " (did you mean 'x'?)" when one of `candidates` is within 3 edits of `name`, else "".
public func didYouMean(_ name: String, among candidates: [String]) -> String {
    guard let close = candidates.min(by: { editDistance($0, name) < editDistance($1, name) }),
          editDistance(close, name) <= 3 else { return "" }
    return " (did you mean '\(close)'?)"
}

/// "1 beacon", "2 beacons": `n` and the noun, plural unless `n` is 1 (`plural` where adding an s is wrong).
public func counted(_ n: Int, _ noun: String, plural: String? = nil) -> String {
    "\(n) \(n == 1 ? noun : plural ?? noun + "s")"
}

/// `text` as a message quotes it: whole up to `limit` characters, else its start, "…" and its length, so a
/// message never echoes a 3 MB field back.
public func abbreviated(_ text: String, limit: Int = 60) -> String {
    guard text.count > limit else { return text }
    return String(text.prefix(limit)) + "… (\(text.utf8.count) bytes)"
}

/// The directory part of `path`, as `dirname` gives it but "" for a bare name: "a/b/" → "a", "/a" → "/", "b" → "".
/// Foundation's `NSString.deletingLastPathComponent` traps on a one-character path ("q") in swift-corelibs-foundation
/// (Swift 6.3), so paths a user types are taken apart here.
public func parentPath(_ path: String) -> String {
    var p = Substring(path)
    while p.count > 1 && p.hasSuffix("/") { p = p.dropLast() }
    guard let slash = p.lastIndex(of: "/") else { return "" }
    var parent = p[..<slash]
    while parent.count > 1 && parent.hasSuffix("/") { parent = parent.dropLast() }
    return parent.isEmpty ? "/" : String(parent)
}


// MARK: - Control characters

/// Whether `scalar` is a control character a terminal may act on rather than show: C0 (U+0000–U+001F: ESC starts the
/// sequences that retitle a window, hide text or set the clipboard, BEL ends them), DEL, C1 (U+0080–U+009F, where
/// U+009B is a one-character CSI), and the bidirectional formatting characters that reorder what is shown
/// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
public func isControlCharacter(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
    default: return false
    }
}

/// How messages name a control character: `U+001B (ESC)`.
public func controlCharacterName(_ scalar: Unicode.Scalar) -> String {
    let names: [UInt32: String] = [0x00: "NUL", 0x07: "BEL", 0x08: "BS", 0x09: "TAB", 0x0A: "LF", 0x0D: "CR", 0x1B: "ESC",
                                   0x7F: "DEL", 0x9B: "CSI", 0x9D: "OSC", 0x202E: "RIGHT-TO-LEFT OVERRIDE"]
    let code = "U+" + String(repeating: "0", count: max(0, 4 - String(scalar.value, radix: 16).count)) + String(scalar.value, radix: 16, uppercase: true)
    return names[scalar.value].map { "\(code) (\($0))" } ?? code
}

/// Why `text` cannot be a name, id or label, or nil: the first control character it holds (``isControlCharacter(_:)``),
/// and where. Names reach terminals (tables, messages), CSV files and plots, where a control character acts: it could
/// retitle a terminal, hide text or set its clipboard. With `allowingLineBreaks` (free text: a description, notes), line
/// feeds, carriage returns and tabs are allowed.
public func controlCharacterProblem(in text: String, allowingLineBreaks: Bool = false) -> String? {
    for (k, scalar) in text.unicodeScalars.enumerated() where isControlCharacter(scalar) {
        if allowingLineBreaks && (scalar == "\n" || scalar == "\r" || scalar == "\t") { continue }
        return "holds the control character \(controlCharacterName(scalar)) at character \(k + 1) ('\(showingControls(abbreviated(text), keepingLineBreaks: false))'); names may not hold control characters, which act on a terminal that shows them"
    }
    return nil
}

/// `text` with every control character (``isControlCharacter(_:)``) written out as `\u{1B}`, so that text from a file
/// shown on a terminal is seen, never obeyed. With `keepingLineBreaks`, line feeds and tabs stay (a message's own lines).
public func showingControls(_ text: String, keepingLineBreaks: Bool = true) -> String {
    guard text.unicodeScalars.contains(where: isControlCharacter) else { return text }
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        if isControlCharacter(scalar) && !(keepingLineBreaks && (scalar == "\n" || scalar == "\t")) {
            out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
        } else {
            out.append(scalar)
        }
    }
    return String(out)
}
