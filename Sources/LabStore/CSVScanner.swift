import Foundation
import LabCore

/// A CSV file scanned block by block without allocating per line: fields are byte ranges, numbers are parsed from
/// the bytes, and memory stays flat whatever the file's size (one block and the line it ends in). Plain CSV only:
/// comma-separated, no quoting (no field of the formats read here contains a comma), `\n` or `\r\n` line ends,
/// optional UTF-8 byte-order mark, blank lines skipped.
struct CSVFile {
    let path: String
    /// The text itself, for a file given as bytes (results read from a string); nil: read from `path`.
    private let bytes: [UInt8]?

    /// How much of the file is read at a time, bytes.
    static let blockSize = 1 << 20
    /// The longest line a file may have, bytes: a line is held whole while it is scanned.
    static let maximumLineBytes = 16 << 20

    init(path: String) throws {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { throw InputError(file: path, "no such file") }
        guard !isDir.boolValue else { throw InputError(file: path, "is a directory, not a CSV file") }
        guard access(path, R_OK) == 0 else { throw InputError(file: path, "cannot read the file: \(String(cString: strerror(errno)))") }
        self.path = path
        self.bytes = nil
    }

    init(path: String, bytes: [UInt8]) { self.path = path; self.bytes = bytes }

    /// Calls `body` for every non-blank line with its fields. `columns` names the fields in error messages.
    /// A NUL byte is never CSV text (a binary file, or a corrupted one), and text holding one cannot be stored in a
    /// recording (SQLite's text stops there): the first is reported with its line and column.
    func forEachRecord(columns: [String], _ body: (inout CSVRecord) throws -> Void) throws {
        var scanner = LineScanner(path: path, columns: columns)
        if let bytes {
            _ = try bytes.withUnsafeBufferPointer { try scanner.scan($0, final: true, body) }
            return
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError(file: path, "cannot read the file: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        // pending[0..<filled]: the unscanned tail of the last block (a line cut by the block's end), then the new block.
        var pending = [UInt8](repeating: 0, count: Self.blockSize * 2)
        var filled = 0
        while true {
            if pending.count - filled < Self.blockSize { pending.append(contentsOf: repeatElement(0, count: Self.blockSize)) }
            let n = pending.withUnsafeMutableBytes { buf in read(fd, buf.baseAddress! + filled, Self.blockSize) }
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError(file: path, "cannot read the file: \(String(cString: strerror(errno)))")
            }
            filled += n
            let atEnd = n == 0
            let used = try pending.withUnsafeBufferPointer { buf in
                try scanner.scan(UnsafeBufferPointer(rebasing: buf[0..<filled]), final: atEnd, body)
            }
            if atEnd { return }
            // Keep the cut line; its start moves to the front.
            if used > 0 {
                pending.withUnsafeMutableBytes { buf in _ = memmove(buf.baseAddress!, buf.baseAddress! + used, filled - used) }
                filled -= used
            }
            if filled > Self.maximumLineBytes {
                throw InputError(InputLocation(file: path, line: scanner.line + 1),
                                 "a line longer than \(Self.maximumLineBytes >> 20) MiB: expected a CSV line (is this a CSV file?)")
            }
            if pending.count > Self.blockSize * 2 && filled < Self.blockSize { pending = Array(pending[0..<Self.blockSize * 2]) }
        }
    }
}

/// Splits text into lines and fields, block after block, counting lines across blocks.
struct LineScanner {
    let path: String
    /// The fields' names for messages (a header line read by ``CSVFile/forEachRow(required:optional:_:)`` sets them).
    var columns: [String]
    /// Lines scanned so far.
    var line = 0
    private var started = false

    init(path: String, columns: [String]) { self.path = path; self.columns = columns }

    /// Scans the whole lines of `buf` (and, when `final`, the last line without its line end); returns how many bytes
    /// were scanned, the rest being a line the next block completes.
    mutating func scan(_ whole: UnsafeBufferPointer<UInt8>, final: Bool, _ body: (inout CSVRecord) throws -> Void) throws -> Int {
        var buf = whole
        var offset = 0
        if !started {
            guard buf.count >= 3 || final else { return 0 }
            started = true
            if buf.count >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF {
                buf = UnsafeBufferPointer(rebasing: buf[3...])
                offset = 3
            }
        }
        // What is scanned: up to the last line end, or everything at the end of the file.
        var n = buf.count
        if !final {
            guard let last = buf.lastIndex(of: 0x0A) else { return offset }
            n = last + 1
        }
        let region = UnsafeBufferPointer(rebasing: buf[0..<n])
        if let base = region.baseAddress, let hit = memchr(base, 0, n) {
            let at = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
            let before = UnsafeBufferPointer(rebasing: region[0..<at])
            let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
            throw InputError(InputLocation(file: path, line: line + 1 + before.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }, column: at - lineStart + 1),
                             "a NUL byte (0x00): expected text (is this a binary or corrupted file?)")
        }
        var rec = CSVRecord(buffer: region, file: path, columns: columns)
        defer { columns = rec.columns }
        var pos = 0
        while pos < n {
            line += 1
            var end = pos
            rec.fields.removeAll(keepingCapacity: true)
            var start = pos
            while end < n && region[end] != 0x0A {
                if region[end] == 0x2C { rec.fields.append(start..<end); start = end + 1 }
                end += 1
            }
            rec.fields.append(start..<end)   // a trailing \r goes with the trimming
            if !(rec.fields.count == 1 && rec.isBlank(0)) {
                rec.line = line
                for i in rec.fields.indices { rec.fields[i] = rec.trimmed(rec.fields[i]) }
                try body(&rec)
            }
            pos = end + 1
        }
        return offset + n
    }
}

extension CSVFile {
    /// Scans a file whose first line names its columns: `required` must all be there, `optional` may be, nothing
    /// else may. `body` gets each data line and the column index of every name present.
    func forEachRow(required: [String], optional: [String] = [],
                    _ body: (inout CSVRecord, _ column: [String: Int]) throws -> Void) throws {
        var column: [String: Int]?
        try forEachRecord(columns: []) { rec in
            guard let map = column else {
                let names = rec.fields.indices.map { rec.string($0).lowercased() }
                var m: [String: Int] = [:]
                for (i, n) in names.enumerated() {
                    guard required.contains(n) || optional.contains(n) else {
                        throw InputError(file: path, line: rec.line, field: n,
                                         "unknown column '\(n)'; expected \(required.joined(separator: ","))" + (optional.isEmpty ? "" : " and optionally \(optional.joined(separator: ","))"))
                    }
                    if m[n] != nil { throw InputError(file: path, line: rec.line, field: n, "column '\(n)' appears twice") }
                    m[n] = i
                }
                for r in required where m[r] == nil {
                    throw InputError(file: path, line: rec.line, "missing column '\(r)'; the header must name \(required.joined(separator: ","))" + (optional.isEmpty ? "" : " (optionally \(optional.joined(separator: ",")))"))
                }
                rec.columns = names
                column = m
                return
            }
            try rec.expect(fields: rec.columns.count...rec.columns.count)
            try body(&rec, map)
        }
        if column == nil {
            throw InputError(file: path, line: 1, "the file is empty; expected a header line naming \(required.joined(separator: ","))")
        }
    }
}

/// One line of a CSV file being scanned.
struct CSVRecord {
    let buffer: UnsafeBufferPointer<UInt8>
    let file: String
    var columns: [String]
    var fields: [Range<Int>] = []
    var line = 0

    init(buffer: UnsafeBufferPointer<UInt8>, file: String, columns: [String]) {
        self.buffer = buffer; self.file = file; self.columns = columns
        fields.reserveCapacity(32)
    }

    var count: Int { fields.count }

    func trimmed(_ r: Range<Int>) -> Range<Int> {
        var a = r.lowerBound, b = r.upperBound
        while a < b && (buffer[a] == 0x20 || buffer[a] == 0x09) { a += 1 }
        while b > a && (buffer[b - 1] == 0x20 || buffer[b - 1] == 0x09 || buffer[b - 1] == 0x0D) { b -= 1 }
        return a..<b
    }

    func isBlank(_ i: Int) -> Bool { trimmed(fields[i]).isEmpty }
    func isEmpty(_ i: Int) -> Bool { fields[i].isEmpty }

    func string(_ i: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: buffer[fields[i]]), as: UTF8.self)
    }

    /// True when field `i` holds exactly `bytes`.
    @inline(__always) func equals(_ i: Int, _ bytes: [UInt8]) -> Bool {
        let r = fields[i]
        guard r.count == bytes.count else { return false }
        var k = r.lowerBound
        for b in bytes {
            if buffer[k] != b { return false }
            k += 1
        }
        return true
    }

    func name(_ i: Int) -> String { i < columns.count ? columns[i] : "column \(i + 1)" }

    func error(_ i: Int?, _ message: String) -> InputError {
        InputError(file: file, line: line, field: i.map(name), message)
    }

    /// Checks the number of fields.
    func expect(fields n: ClosedRange<Int>) throws {
        guard n.contains(count) else {
            let want = n.lowerBound == n.upperBound ? "\(n.lowerBound)" : "\(n.lowerBound) to \(n.upperBound)"
            throw InputError(file: file, line: line, "expected \(want) comma-separated fields (\(columns.prefix(n.upperBound).joined(separator: ","))), found \(count)")
        }
    }

    /// A finite number. NaN, infinities and anything that is not a number are errors naming line and field.
    @inline(__always) func double(_ i: Int) throws -> Double {
        if let v = CSVNumber.parse(buffer, fields[i]) { return v }
        throw numberError(i)
    }

    /// A coordinate in metres: a finite number within ±``WorkBudget/maximumExtent`` (a 1e308 position would
    /// make the venue's bounds infinite).
    func coordinate(_ i: Int) throws -> Double {
        let v = try double(i)
        guard abs(v) <= WorkBudget.maximumExtent else {
            throw error(i, "expected a coordinate within ±\(Format.number(WorkBudget.maximumExtent)) m, found \(Format.number(v))")
        }
        return v
    }

    /// The field as a message shows it: abbreviated when long (a message never echoes megabytes back), its control
    /// characters written out.
    func shown(_ i: Int) -> String { showingControls(abbreviated(string(i)), keepingLineBreaks: false) }

    /// A finite number, or nil for an empty field.
    func optionalDouble(_ i: Int) throws -> Double? {
        if i >= count || fields[i].isEmpty { return nil }
        return try double(i)
    }

    func int(_ i: Int) throws -> Int {
        guard let v = Int(string(i)) else { throw error(i, "expected a whole number, found '\(shown(i))'") }
        return v
    }

    func numberError(_ i: Int) -> InputError {
        let text = shown(i)
        if text.isEmpty { return error(i, "expected a number, found an empty field") }
        let lower = text.lowercased()
        if lower.contains("nan") || lower.contains("inf") { return error(i, "expected a finite number, found '\(text)'") }
        return error(i, "expected a number, found '\(text)'")
    }
}

/// Decimal numbers from bytes, correctly rounded like `strtod`.
enum CSVNumber {
    static let powers: [Double] = (0...22).map { pow(10, Double($0)) }

    /// The number in `buf[r]`, or nil when it is not a finite decimal number.
    /// Fast path: at most 15 significant digits and 22 decimals, no exponent; the integer mantissa and the
    /// power of ten are both exact doubles, so one division rounds correctly. Otherwise `strtod`.
    @inline(__always) static func parse(_ buf: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Double? {
        var i = r.lowerBound
        let end = r.upperBound
        guard i < end else { return nil }
        var negative = false
        if buf[i] == 0x2D { negative = true; i += 1 } else if buf[i] == 0x2B { i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0, decimals = 0
        var seenDot = false, any = false
        while i < end {
            let c = buf[i]
            if c >= 0x30 && c <= 0x39 {
                any = true
                if seenDot { decimals += 1 }
                // Leading zeros are not significant; the count of the others bounds the mantissa below 2^53.
                if mantissa != 0 || c != 0x30 {
                    mantissa = mantissa &* 10 &+ UInt64(c - 0x30)
                    digits += 1
                }
            } else if c == 0x2E && !seenDot {
                seenDot = true
            } else {
                break
            }
            i += 1
        }
        if i == end && any && digits <= 15 && decimals <= 22 {
            let v = Double(mantissa) / powers[decimals]
            return negative ? -v : v
        }
        return slow(buf, r)
    }

    static func slow(_ buf: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Double? {
        let n = r.count
        guard n > 0, n < 400 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { tmp -> Double? in
            for k in 0..<n { tmp[k] = CChar(bitPattern: buf[r.lowerBound + k]) }
            tmp[n] = 0
            var endPtr: UnsafeMutablePointer<CChar>?
            let v = strtod(tmp.baseAddress!, &endPtr)
            guard let endPtr, endPtr == tmp.baseAddress! + n, v.isFinite else { return nil }
            // strtod also takes hexadecimal floats: a data file means decimal.
            for k in 0..<n where tmp[k] == CChar(UInt8(ascii: "x")) || tmp[k] == CChar(UInt8(ascii: "X")) { return nil }
            return v
        }
    }
}

/// Finds a beacon index from the bytes of an id without allocating: last hit first, then a linear scan
/// (venues have tens of beacons), then a dictionary for large venues.
struct BeaconLookup {
    let ids: [[UInt8]]
    let table: [String: Int]
    var last = 0

    init(ids: [String]) {
        self.ids = ids.map { Array($0.utf8) }
        var t: [String: Int] = [:]
        for (i, id) in ids.enumerated() where t[id] == nil { t[id] = i }
        table = t
    }

    @inline(__always) mutating func index(_ rec: CSVRecord, field i: Int) -> Int? {
        if !ids.isEmpty && rec.equals(i, ids[last]) { return last }
        if ids.count <= 64 {
            for k in ids.indices where rec.equals(i, ids[k]) { last = k; return k }
            return nil
        }
        guard let k = table[rec.string(i)] else { return nil }
        last = k
        return k
    }
}
