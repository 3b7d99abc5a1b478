import Foundation
import FuzzSupport
import GRDB
import LabCore
import LabScenarioIO
import LabSimulation
import LabStore

/// A small valid recording (museum-gallery's first walk, seed 1, cut to 60 readings, 8 truth and 8 heading
/// samples, with rooms, walls and landmarks) and the edits a fuzz input describes.
final class Template: @unchecked Sendable {
    static let shared = Template()

    let bytes: Data
    /// Every table of the template (the migrations' table included) with its columns and row count.
    let tables: [(name: String, columns: [String], rows: Int)]

    private init() {
        do {
            let s = try BundledScenarios.load("museum-gallery")
            var r = SimulatedRecording.make(epochs: try Simulator(scenario: s).simulate(walk: s.walks[0], seed: 1), scenario: s, walk: s.walks[0], seed: 1, created: Date(timeIntervalSince1970: 1.8e9))
            r.rssi = Array(r.rssi.prefix(60)); r.truth = Array(r.truth.prefix(8)); r.headings = Array(r.headings.prefix(8))
            r.steps = r.steps.map { Array($0.prefix(12)) }   // museum-gallery's phone reports steps: the step table gets edits too
            let path = Scratch.root + "/template.sqlite"
            unlink(path)
            try RecordingStore.write(r, to: path)
            bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            tables = try DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").map { t in
                    (t, try Row.fetchAll(db, sql: "PRAGMA table_info(\(t.quotedDatabaseIdentifier))").map { $0["name"] as String },
                     try Int.fetchOne(db, sql: "SELECT count(*) FROM \(t.quotedDatabaseIdentifier)") ?? 0)
                }
            }
        } catch {
            fatalError("cannot make the template recording (run from the repository root, where Scenarios/ is): \(error)")
        }
    }

    func copy(to path: String) { _ = FileManager.default.createFile(atPath: path, contents: bytes) }

    /// Applies up to 16 edits read from `input` to the recording at `path`; an edit SQLite refuses (NOT NULL,
    /// a duplicate key) is skipped. CHECK constraints and foreign keys are off: a file can hold anything.
    func apply(edits input: UnsafeBufferPointer<UInt8>, to path: String) {
        var config = Configuration()
        config.foreignKeysEnabled = false
        guard let queue = try? DatabaseQueue(path: path, configuration: config) else { return }
        defer { try? queue.close() }
        var rd = ByteReader(input)
        try? queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
            for _ in 0..<16 where !rd.atEnd {
                let op = rd.byte() % 16
                let table = tables[Int(rd.byte()) % tables.count]
                let t = table.name.quotedDatabaseIdentifier
                let row = "(SELECT rowid FROM \(t) LIMIT 1 OFFSET \(Int(rd.byte()) % max(table.rows, 1)))"
                switch op {
                case 11: try? db.execute(sql: "DELETE FROM \(t) WHERE rowid = \(row)")
                case 12: try? db.execute(sql: "DELETE FROM \(t)")
                case 13: try? db.execute(sql: "DROP TABLE \(t)")
                case 14: try? db.execute(sql: "PRAGMA user_version = \(Int8(bitPattern: rd.byte()))")
                case 15: try? db.execute(sql: "INSERT INTO \(t) SELECT * FROM \(t) WHERE rowid = \(row)")
                default:
                    let column = table.columns[Int(rd.byte()) % table.columns.count].quotedDatabaseIdentifier
                    try? db.execute(sql: "UPDATE \(t) SET \(column) = ? WHERE rowid = \(row)", arguments: [rd.value()])
                }
            }
        }
    }
}

/// Reads an edit list: bytes, 64-bit words and values of every SQLite type, zeros past the end.
struct ByteReader {
    let buffer: UnsafeBufferPointer<UInt8>
    var at = 0
    init(_ buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }
    var atEnd: Bool { at >= buffer.count }

    mutating func byte() -> UInt8 {
        defer { at += 1 }
        return at < buffer.count ? buffer[at] : 0
    }
    mutating func word() -> UInt64 { (0..<8).reduce(0) { acc, _ in acc << 8 | UInt64(byte()) } }
    mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in byte() } }

    static let specialDoubles: [Double] = [0, -0.0, 1, -1, 1e308, -1e308, .infinity, -.infinity, .nan, 1e-300, 9.3e18, 65536]
    static let specialTexts = ["", "abc", "NaN", "1e999", "-inf", "9223372036854775808", "[[0,0],[1,1]]", "[[\"a\",1]]",
                               "[[0,0],[1e308,0],[0,1]]", "[]", "v1", "simulated", "survey", "brick", "\u{0}"]

    mutating func value() -> DatabaseValueConvertible? {
        switch byte() % 8 {
        case 0: return nil
        case 1: return Int64(bitPattern: word())
        case 2: return Double(bitPattern: word())
        case 3: return Self.specialDoubles[Int(byte()) % Self.specialDoubles.count]
        case 4: return String(decoding: bytes(Int(byte()) % 32), as: UTF8.self)
        case 5: return Self.specialTexts[Int(byte()) % Self.specialTexts.count]
        case 6: return Data(bytes(Int(byte()) % 16))
        default: return Int64(Int8(bitPattern: byte()))
        }
    }
}
