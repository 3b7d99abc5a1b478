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

/// `text` as a message quotes it: whole up to `limit` characters, else its start, "…" and its length, so a
/// message never echoes a 3 MB field back.
public func abbreviated(_ text: String, limit: Int = 60) -> String {
    guard text.count > limit else { return text }
    return String(text.prefix(limit)) + "… (\(text.utf8.count) bytes)"
}
