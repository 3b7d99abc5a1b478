import Foundation
internal import GRDB
import LabCore

/// The recording file format: SQLite, schema by numbered migrations (docs/recordings.md describes it).
///
/// Sample tables have no index besides the rowid: samples are read back in the order they were written,
/// and an import appends at full speed.
enum Schema {
    /// `PRAGMA application_id` of a recording: "ILab". Tells a recording from any other SQLite file.
    static let applicationID: Int32 = 0x494C_6162

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.create(table: "recordings") { t in
                t.column("id", .integer).primaryKey().check { $0 == 1 }
                t.column("name", .text).notNull()
                t.column("source", .text).notNull().check { RecordingSource.allCases.map(\.rawValue).contains($0) }
                t.column("venue", .text).notNull()
                t.column("created", .datetime).notNull()
                t.column("notes", .text).notNull().defaults(to: "")
                t.column("walk", .text)
                t.column("seed", .text)
                t.column("scenario_yaml", .text)
                t.column("time_origin", .double)
                t.column("min_x", .double).notNull()
                t.column("min_y", .double).notNull()
                t.column("max_x", .double).notNull()
                t.column("max_y", .double).notNull()
            }
            try db.create(table: "radio") { t in
                t.column("id", .integer).primaryKey().check { $0 == 1 }
                t.column("p0", .double).notNull()
                t.column("exponent", .double).notNull()
                t.column("sigma", .double).notNull()
                t.column("sensitivity", .double).notNull()
                t.column("quantize", .boolean).notNull()
                t.column("advertising_interval", .double).notNull()
                t.column("scan_window", .double).notNull()
                t.column("packet_loss", .double).notNull()
                t.column("correlation_distance", .double)
                t.column("receiver_height", .double).notNull()
            }
            try db.create(table: "beacons") { t in
                t.column("idx", .integer).primaryKey()
                t.column("id", .text).notNull().unique()
                t.column("uuid", .text)
                t.column("major", .integer)
                t.column("minor", .integer)
                t.column("address", .text)
                t.column("x", .double).notNull()
                t.column("y", .double).notNull()
                t.column("height", .double)
                t.column("p0", .double)
            }
            try db.create(table: "landmarks") { t in
                t.column("idx", .integer).primaryKey()
                t.column("name", .text).notNull()
                t.column("kind", .text).notNull().check { Landmark.Kind.allCases.map(\.rawValue).contains($0) }
                t.column("x", .double).notNull()
                t.column("y", .double).notNull()
                t.column("facing", .double)
                t.column("width", .double).notNull()
            }
            try db.create(table: "rooms") { t in
                t.column("idx", .integer).primaryKey()
                t.column("name", .text).notNull()
                t.column("area", .text).notNull()
                t.column("polygon", .text).notNull()   // JSON [[x, y], …]
            }
            try db.create(table: "walls") { t in
                t.column("idx", .integer).primaryKey()
                t.column("x1", .double).notNull()
                t.column("y1", .double).notNull()
                t.column("x2", .double).notNull()
                t.column("y2", .double).notNull()
                t.column("material", .text)
                t.column("loss", .double).notNull()
            }
            try db.create(table: "rssi_samples") { t in
                t.column("t", .double).notNull()
                t.column("beacon", .integer).notNull().references("beacons", column: "idx")
                t.column("rssi", .double).notNull()
            }
            try db.create(table: "heading_samples") { t in
                t.column("t", .double).notNull()
                t.column("heading", .double).notNull()
                t.column("accuracy", .double).notNull()
                t.column("frieze", .integer).references("landmarks", column: "idx")
                t.column("target", .integer).references("landmarks", column: "idx")
            }
            try db.create(table: "ground_truth") { t in
                t.column("t", .double).notNull()
                t.column("x", .double).notNull()
                t.column("y", .double).notNull()
                t.column("z", .double)
                t.column("source", .text).notNull().check { TruthSource.allCases.map(\.rawValue).contains($0) }
            }
            try db.create(table: "baselines") { t in
                t.column("estimator", .text).notNull()
                t.column("metric", .text).notNull()
                t.column("value", .double).notNull()
                t.column("tolerance", .double).notNull()
                t.column("updated", .datetime).notNull()
                t.primaryKey(["estimator", "metric"])
            }
        }
        // v2: the phone's step detector (pedestrian dead reckoning). A v1 recording reads as one without steps.
        m.registerMigration("v2") { db in
            try db.create(table: "step_samples") { t in
                t.column("t", .double).notNull()
                t.column("length", .double).notNull()
                t.column("heading", .double).notNull()
                t.column("length_accuracy", .double).notNull()
                t.column("heading_accuracy", .double).notNull()
            }
        }
        // v3: the radio model's error (σ_m, dB). A v2 recording reads with none (0).
        m.registerMigration("v3") { db in
            try db.alter(table: "radio") { t in t.add(column: "model_error", .double).notNull().defaults(to: 0) }
        }
        // v4: the receiver's window dropout (the chance a scan window reports nothing of a beacon however strong). A v3
        // recording reads with none (0).
        m.registerMigration("v4") { db in
            try db.alter(table: "radio") { t in t.add(column: "dropout", .double).notNull().defaults(to: 0) }
        }
        // v5: live sessions (`indoorlab serve`): who the phone is and the last message committed, and the distances it
        // ranged. A v4 recording reads as one without ranges.
        m.registerMigration("v5") { db in
            try db.create(table: "range_samples") { t in
                t.column("t", .double).notNull()
                t.column("beacon", .integer).notNull().references("beacons", column: "idx")
                t.column("distance", .double).notNull()
                t.column("sigma", .double).notNull()
                t.column("technology", .text).notNull()
            }
            try db.create(table: "live_session") { t in
                t.column("id", .integer).primaryKey().check { $0 == 1 }
                t.column("phone", .text).notNull()
                t.column("model", .text).notNull()
                t.column("app", .text).notNull()
                t.column("survey", .boolean).notNull()
                t.column("last_seq", .integer).notNull()
                t.column("messages", .integer).notNull()
            }
        }
        return m
    }

    /// Every migration, in order. A recording whose migrations are a prefix of these is read (the tables of later
    /// ones are taken as empty); one with a migration not here was written by a newer indoorlab.
    static var migrationIdentifiers: [String] { ["v1", "v2", "v3", "v4", "v5"] }
}

// MARK: - Records (internal: GRDB stays out of the public API)

protocol SnakeCaseRecord: Codable, FetchableRecord, PersistableRecord {}
extension SnakeCaseRecord {
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
    static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
}

struct RecordingRow: SnakeCaseRecord {
    static let databaseTableName = "recordings"
    var id = 1
    var name: String
    var source: String
    var venue: String
    var created: Date
    var notes: String
    var walk: String?
    var seed: String?
    var scenarioYaml: String?
    var timeOrigin: Double?
    var minX: Double, minY: Double, maxX: Double, maxY: Double
}

struct RadioRow: SnakeCaseRecord {
    static let databaseTableName = "radio"
    var id = 1
    var p0: Double
    var exponent: Double
    var sigma: Double
    var sensitivity: Double
    var quantize: Bool
    var advertisingInterval: Double
    var scanWindow: Double
    var packetLoss: Double
    var correlationDistance: Double?
    var receiverHeight: Double
    /// Absent (nil) in a recording older than migration v3.
    var modelError: Double?
    /// Absent (nil) in a recording older than migration v4.
    var dropout: Double?

    init(_ r: RadioModel) {
        p0 = r.p0; exponent = r.exponent; sigma = r.sigma; sensitivity = r.sensitivity; quantize = r.quantize
        advertisingInterval = r.advertisingInterval; scanWindow = r.scanWindow; packetLoss = r.packetLoss
        correlationDistance = r.correlationDistance; receiverHeight = r.receiverHeight; modelError = r.modelError
        dropout = r.dropout
    }

    var model: RadioModel {
        RadioModel(p0: p0, exponent: exponent, sigma: sigma, sensitivity: sensitivity, quantize: quantize,
                   advertisingInterval: advertisingInterval, scanWindow: scanWindow, packetLoss: packetLoss,
                   correlationDistance: correlationDistance, receiverHeight: receiverHeight, modelError: modelError ?? 0,
                   dropout: dropout ?? 0)
    }
}

struct BeaconRow: SnakeCaseRecord {
    static let databaseTableName = "beacons"
    var idx: Int
    var id: String
    var uuid: String?
    var major: Int?
    var minor: Int?
    var address: String?
    var x: Double, y: Double
    var height: Double?
    var p0: Double?

    init(_ b: RecordedBeacon, index: Int) {
        idx = index; id = b.id; uuid = b.uuid; major = b.major; minor = b.minor; address = b.address
        x = b.position.x; y = b.position.y; height = b.height; p0 = b.p0
    }

    var beacon: RecordedBeacon {
        RecordedBeacon(id: id, uuid: uuid, major: major, minor: minor, address: address, position: Point(x, y), height: height, p0: p0)
    }
}

struct LandmarkRow: SnakeCaseRecord {
    static let databaseTableName = "landmarks"
    var idx: Int
    var name: String
    var kind: String
    var x: Double, y: Double
    var facing: Double?
    var width: Double

    init(_ l: Landmark, index: Int) {
        idx = index; name = l.name; kind = l.kind.rawValue; x = l.position.x; y = l.position.y; facing = l.facing; width = l.width
    }
}

struct RoomRow: SnakeCaseRecord {
    static let databaseTableName = "rooms"
    var idx: Int
    var name: String
    var area: String
    var polygon: String

    init(_ r: Room, index: Int) {
        idx = index; name = r.name; area = r.area
        polygon = "[" + r.polygon.vertices.map { "[\($0.x), \($0.y)]" }.joined(separator: ", ") + "]"
    }
}

struct WallRow: SnakeCaseRecord {
    static let databaseTableName = "walls"
    var idx: Int
    var x1: Double, y1: Double, x2: Double, y2: Double
    var material: String?
    var loss: Double

    init(_ w: Wall, index: Int) {
        idx = index; x1 = w.segment.a.x; y1 = w.segment.a.y; x2 = w.segment.b.x; y2 = w.segment.b.y
        material = w.material; loss = w.loss
    }

    var wall: Wall { Wall(segment: Segment(Point(x1, y1), Point(x2, y2)), material: material, loss: loss) }
}

struct BaselineRow: SnakeCaseRecord {
    static let databaseTableName = "baselines"
    var estimator: String
    var metric: String
    var value: Double
    var tolerance: Double
    var updated: Date
}
