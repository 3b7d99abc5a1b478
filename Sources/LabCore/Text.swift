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

