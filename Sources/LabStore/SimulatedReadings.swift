import Foundation
import LabCore

/// The readings `simulate` writes as CSV: one row per reading, heading, checkpoint and step, each with its epoch.
public enum EpochCSV {
    public static let header = "walk,epoch,epoch_t,truth_x,truth_y,room,type,t,id,value,target"

    public static func encode(_ epochs: [Epoch], scenario s: Scenario) -> String {
        var out = header + "\n"
        out.reserveCapacity(epochs.count * 40 * 64)
        for e in epochs {
            let prefix = "\(e.walk ?? "grid"),\(e.index),\(Format.fixed(e.t, 3)),\(Format.fixed(e.truth.x, 3)),\(Format.fixed(e.truth.y, 3)),\(e.room.map { s.rooms[$0].name } ?? "")"
            for r in e.readings {
                out += "\(prefix),rssi,\(Format.fixed(r.t, 3)),\(s.beacons[r.beacon].id),\(Format.fixed(r.rssi, s.radio.quantize ? 0 : 2)),\n"
            }
            for h in e.headings {
                out += "\(prefix),heading,\(Format.fixed(h.t, 3)),\(h.frieze.map { s.landmarks[$0].name } ?? ""),\(Format.fixed(h.heading, 2)),\(h.target.map { s.landmarks[$0].name } ?? "")\n"
            }
            if let c = e.checkpoint {
                out += "\(prefix),checkpoint,\(Format.fixed(e.t, 3)),\(s.checkpoints[c].id),,\n"
            }
            for st in e.steps ?? [] {
                out += "\(prefix),step,\(Format.fixed(st.t, 3)),,\(Format.fixed(st.length, 3)),\(Format.fixed(st.heading, 2))\n"
            }
        }
        return out
    }
}

/// The readings `simulate --format json` writes: the epochs with names for beacons, rooms and friezes.
public enum EpochJSON {
    public struct File: Encodable {
        var scenario: String
        var seed: UInt64
        var epochs: [E]
        public init(scenario s: Scenario, seed: UInt64, epochs: [Epoch]) {
            self.scenario = s.name
            self.seed = seed
            self.epochs = epochs.map { E($0, s) }
        }
    }
    struct E: Encodable {
        var walk: String?, index: Int, t: Double, truth: Point, room: String?, checkpoint: String?
        var readings: [R], headings: [H]
        /// Present when the scenario has pdr.
        var steps: [StepReading]?
        init(_ e: Epoch, _ s: Scenario) {
            walk = e.walk; index = e.index; t = e.t; truth = e.truth
            room = e.room.map { s.rooms[$0].name }
            checkpoint = e.checkpoint.map { s.checkpoints[$0].id }
            readings = e.readings.map { R(beacon: s.beacons[$0.beacon].id, t: $0.t, rssi: $0.rssi) }
            headings = e.headings.map { H(t: $0.t, heading: $0.heading, accuracy: $0.accuracy,
                                          frieze: $0.frieze.map { s.landmarks[$0].name }, target: $0.target.map { s.landmarks[$0].name }) }
            steps = e.steps
        }
    }
    struct R: Encodable { var beacon: String, t: Double, rssi: Double }
    struct H: Encodable { var t: Double, heading: Double, accuracy: Double, frieze: String?, target: String? }
}
