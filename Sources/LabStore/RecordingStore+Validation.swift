import Foundation
internal import GRDB
import LabCore

extension RecordingStore {
    /// Application id, integrity and schema version.
    static func check(_ db: Database, path: String) throws {
        let appID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        let pageCount = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        if pageCount == 0 { throw InputError(file: path, "the file is empty, not a recording") }
        guard appID == Schema.applicationID else {
            throw InputError(file: path, "an SQLite database, but not an IndoorLab recording (application_id \(appID))")
        }
        let problems = try String.fetchAll(db, sql: "PRAGMA quick_check")
        if problems != ["ok"] {
            // quick_check lists up to 100 problems, each up to a line or more: the first three, each abbreviated.
            let shown = problems.prefix(3).map { abbreviated($0.replacingOccurrences(of: "\n", with: " "), limit: 200) }
            let more = problems.count > 3 ? "; … (\(problems.count - 3) more)" : ""
            throw InputError(file: path, "the recording is damaged (truncated or corrupt): \(shown.joined(separator: "; "))\(more)")
        }
        let applied = try Schema.migrator.appliedIdentifiers(db)
        let known = Set(Schema.migrationIdentifiers)
        if let unknown = applied.sorted().first(where: { !known.contains($0) }) {
            throw InputError(file: path, "written by a newer indoorlab (schema migration '\(unknown)'); update indoorlab to read it")
        }
        // An older recording has a prefix of the migrations (v1 without v2: no step table).
        if applied != Set(Schema.migrationIdentifiers.prefix(applied.count)) || applied.isEmpty {
            throw InputError(file: path, "incomplete schema (migrations \(applied.isEmpty ? "none" : applied.sorted().joined(separator: ", ")) of \(Schema.migrationIdentifiers.joined(separator: ", ")))")
        }
    }

    /// The numeric columns of each table, which of them may be NULL, and the schema migration that made them (an
    /// older recording has none of them). SQLite stores any value in any column; GRDB reads text where a number
    /// belongs as 0, so each is checked by its stored type before loading.
    static let integerColumns: Set<String> = ["idx", "beacon", "frieze", "target", "major", "minor", "quantize", "last_seq", "messages", "survey"]
    static let numericColumns: [(table: String, columns: [String], nullable: Set<String>, migration: String)] = [
        ("recordings", ["time_origin", "min_x", "min_y", "max_x", "max_y"], ["time_origin"], "v1"),
        ("radio", ["p0", "exponent", "sigma", "sensitivity", "quantize", "advertising_interval", "scan_window", "packet_loss",
                   "correlation_distance", "receiver_height"], ["correlation_distance"], "v1"),
        ("radio", ["model_error"], [], "v3"),
        ("radio", ["dropout"], [], "v4"),
        ("beacons", ["idx", "major", "minor", "x", "y", "height", "p0"], ["major", "minor", "height", "p0"], "v1"),
        ("landmarks", ["idx", "x", "y", "facing", "width"], ["facing"], "v1"),
        ("rooms", ["idx"], [], "v1"),
        ("walls", ["idx", "x1", "y1", "x2", "y2", "loss"], [], "v1"),
        ("rssi_samples", ["t", "beacon", "rssi"], [], "v1"),
        ("heading_samples", ["t", "heading", "accuracy", "frieze", "target"], ["frieze", "target"], "v1"),
        ("step_samples", ["t", "length", "heading", "length_accuracy", "heading_accuracy"], [], "v2"),
        ("ground_truth", ["t", "x", "y", "z"], ["z"], "v1"),
        ("baselines", ["value", "tolerance"], [], "v1"),
        ("range_samples", ["t", "beacon", "distance", "sigma"], [], "v5"),
        ("live_session", ["last_seq", "messages", "survey"], [], "v5"),
    ]

    /// Per table: its numeric columns, those that may be NULL, the migration that made them, and the query for the
    /// first row holding a value of the wrong type in one of them (built once).
    static let columnTypeQueries: [(table: String, columns: [String], nullable: Set<String>, migration: String, sql: String)] = numericColumns.map { table, columns, nullable, migration in
        let condition = columns.map { c in
            "typeof(\(c)) NOT IN ('integer'\(integerColumns.contains(c) ? "" : ", 'real'")\(nullable.contains(c) ? ", 'null'" : ""))"
        }.joined(separator: " OR ")
        let sql = "SELECT rowid, \(columns.map { "typeof(\($0)), quote(substr(\($0), 1, 40))" }.joined(separator: ", ")) FROM \(table) WHERE \(condition) LIMIT 1"
        return (table, columns, nullable, migration, sql)
    }

    /// The first value stored with the wrong type in a numeric column: its table, row and column.
    static func checkColumnTypes(_ db: Database, path: String) throws {
        let applied = Set(try Schema.migrator.appliedIdentifiers(db))
        for (table, columns, nullable, migration, sql) in columnTypeQueries {
            // Tables and columns of later migrations are absent from older recordings.
            guard applied.contains(migration) else { continue }
            guard let row = try Row.fetchOne(db, sql: sql) else { continue }
            let rowid: Int64 = row[0]
            for (k, c) in columns.enumerated() {
                let type: String = row[1 + 2 * k]
                if type == "integer" || (type == "real" && !integerColumns.contains(c)) || (type == "null" && nullable.contains(c)) { continue }
                let value: String = row[2 + 2 * k] ?? "NULL"
                throw InputError(file: path, field: "\(table) row \(rowid) column \(c)", "expected \(integerColumns.contains(c) ? "a whole number" : "a number"), found \(type) \(value)")
            }
        }
    }
}
