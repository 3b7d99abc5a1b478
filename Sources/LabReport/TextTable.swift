/// Tables for a terminal and for Markdown, the one home of the lab's table layout.
public enum TextTable {
    /// A plain-text table, the first row its header: text columns left-aligned, numbers right-aligned (a number, a
    /// percentage, a number and its unit such as "2.46 m", or a dash for none); a column is text when no cell below
    /// the header is a number. No trailing blanks.
    public static func render(_ rows: [[String]]) -> String {
        let widths = (0..<rows[0].count).map { c in rows.map { $0[c].count }.max() ?? 0 }
        let textColumns = Set((0..<rows[0].count).filter { c in rows.dropFirst().allSatisfy { !isNumber($0[c]) } })
        return rows.map { r in
            var line = r.enumerated().map { c, v in textColumns.contains(c) ? v.padding(toLength: widths[c], withPad: " ", startingAt: 0) : v.leftPad(widths[c]) }
                .joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n") + "\n"
    }

    /// A Markdown table, the first row its header; a column is right-aligned when every cell below the header is a
    /// number (as ``render(_:)`` judges them, or a pair of them such as "1.30 → 3.62"). A `|` inside a cell is escaped.
    public static func markdown(_ rows: [[String]]) -> String {
        func cell(_ v: String) -> String { v.replacingOccurrences(of: "|", with: "\\|") }
        // "— → —" and "— / —" (no figure in either part) stand in a column of figures.
        let numeric = (0..<rows[0].count).map { c in rows.dropFirst().allSatisfy { isNumber($0[c]) || $0[c].hasPrefix("— ") } }
        var out = "| " + rows[0].map(cell).joined(separator: " | ") + " |\n"
        out += "|" + numeric.map { $0 ? "---:|" : "---|" }.joined() + "\n"
        for r in rows.dropFirst() { out += "| " + r.map(cell).joined(separator: " | ") + " |\n" }
        return out
    }

    /// Whether a cell reads as a number: a number, a percentage, a number and its unit such as "2.46 m", or a dash
    /// for none.
    private static func isNumber(_ v: String) -> Bool {
        guard v != "—", v != "-", let first = v.split(separator: " ").first else { return true }
        return Double(first.hasSuffix("%") ? first.dropLast() : first) != nil
    }
}

extension String {
    /// The string right-aligned in `n` characters (unchanged when it is as long already).
    public func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}
