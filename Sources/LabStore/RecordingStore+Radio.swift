import Foundation
internal import GRDB
import LabCore

extension RecordingStore {
    /// Replaces the radio model's P0, exponent and σ and, when given, its model error, its sensitivity and the
    /// per-beacon P0 (by beacon id), in one transaction. To store a model error, a recording older than its column (schema v3) is
    /// migrated first: one way, as older builds refuse a newer schema.
    public static func updateRadio(path: String, p0: Double, exponent: Double, sigma: Double, modelError: Double? = nil,
                                   sensitivity: Double? = nil, dropout: Double? = nil, beaconP0: [String: Double] = [:],
                                   materialLoss: [String: Double] = [:]) throws {
        if modelError != nil || dropout != nil { try upgradeSchema(path: path) }
        try withDatabase(path: path, writable: true) { db in
            try db.execute(sql: "UPDATE radio SET p0 = ?, exponent = ?, sigma = ? WHERE id = 1", arguments: [p0, exponent, sigma])
            if let sensitivity { try db.execute(sql: "UPDATE radio SET sensitivity = ? WHERE id = 1", arguments: [sensitivity]) }
            if let modelError { try db.execute(sql: "UPDATE radio SET model_error = ? WHERE id = 1", arguments: [modelError]) }
            if let dropout { try db.execute(sql: "UPDATE radio SET dropout = ? WHERE id = 1", arguments: [dropout]) }
            for (id, v) in beaconP0.sorted(by: { $0.key < $1.key }) {
                try db.execute(sql: "UPDATE beacons SET p0 = ? WHERE id = ?", arguments: [v, id])
            }
            for (m, v) in materialLoss.sorted(by: { $0.key < $1.key }) {
                try db.execute(sql: "UPDATE walls SET loss = ? WHERE material = ?", arguments: [v, m])
            }
        }
    }
}
