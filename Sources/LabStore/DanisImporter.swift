import Foundation
import LabCore

/// Position-annotated BLE RSSI tracks (Daniş, Naskali, Cemgil, Ersoy, IEEE Access 2021; CC0).
///
/// The roles are reversed compared with a phone: 12 fixed receivers ("sensors") hear one moving beacon.
/// RSSI is symmetric, so the receivers become the recording's anchors ("beacons", id = the sensor's alias,
/// address = its MAC, height = its z) and the moving beacon is the device to locate.
///
///     cnf/tetam.dev   line "Dongles:{MAC: [[x, y, z], colour, alias], …}"; line "Beacons:{MAC: [...], …}"
///     cnf/tetam.par   {"limits": [minX, minY, maxX, maxY], …}  → the bounds
///     trk/*.mbd       timestamp,sensorMAC,beaconMAC,rssi,x,y,z,r11,…,r33   (x, y, z: the beacon's truth)
///
/// Every line gives one RSSI sample and one truth sample (source `annotated`, with z), at t = timestamp − the
/// first track's first timestamp. Several tracks go into one recording, in time order; they must not
/// overlap in time. The merged files have sub-millisecond inversions where per-receiver logs were merged:
/// a step back of up to ``timeSlack`` is accepted (the sample keeps its time), a larger one is an error.
/// The radio model's receiver height is the median truth z (the beacon was carried at 1.6–2.0 m).
struct DanisImporter {
    let tracks: [String]
    let options: ImportOptions

    static let timeSlack = 0.001
    static let fieldNames = ["timestamp", "sensor", "beacon", "rssi", "x", "y", "z",
                             "r11", "r12", "r13", "r21", "r22", "r23", "r31", "r32", "r33"]

    struct Device { var mac: String; var alias: String; var position: [Double] }

    var configDirectory: String {
        if let c = options.configDirectory { return c }
        let trackDir = URL(fileURLWithPath: tracks[0]).deletingLastPathComponent()
        return trackDir.deletingLastPathComponent().appendingPathComponent("cnf").path
    }

    /// Reads a `Key:{python dict}` line of tetam.dev.
    static func devices(_ text: String, key: String, file: String) throws -> [Device] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let (n, line) = lines.enumerated().first(where: { $0.element.hasPrefix(key + ":") }) else {
            throw InputError(file: file, "no '\(key):' line")
        }
        let body = line.dropFirst(key.count + 1).replacingOccurrences(of: "'", with: "\"")
        guard let dict = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] else {
            throw InputError(file: file, line: n + 1, field: key, "expected a dictionary {MAC: [[x, y, z], colour, alias], …}")
        }
        var out: [Device] = []
        for (mac, value) in dict.sorted(by: { $0.key < $1.key }) {
            guard let a = value as? [Any], a.count >= 3, let pos = a[0] as? [Any], let alias = a[2] as? String else {
                throw InputError(file: file, line: n + 1, field: "\(key).\(mac)", "expected [[x, y, z], colour, alias]")
            }
            let numbers = pos.compactMap { ($0 as? NSNumber)?.doubleValue }
            guard numbers.count == pos.count, numbers.allSatisfy({ $0.isFinite && abs($0) <= WorkBudget.maximumExtent }) else {
                throw InputError(file: file, line: n + 1, field: "\(key).\(abbreviated(mac))", "expected a position [x, y, z] in metres, each within ±\(Format.number(WorkBudget.maximumExtent))")
            }
            guard !alias.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw InputError(file: file, line: n + 1, field: "\(key).\(abbreviated(mac))", "expected an alias (the receiver's name), found an empty one")
            }
            if out.contains(where: { $0.mac == mac.lowercased() }) {
                throw InputError(file: file, line: n + 1, field: "\(key).\(abbreviated(mac))", "the MAC address appears twice (letter case aside)")
            }
            if let other = out.first(where: { $0.alias == alias }) {
                throw InputError(file: file, line: n + 1, field: "\(key).\(abbreviated(mac))", "duplicate alias '\(abbreviated(alias))' (also \(abbreviated(other.mac)))")
            }
            out.append(Device(mac: mac.lowercased(), alias: alias, position: numbers))
        }
        return out.sorted { $0.alias.localizedStandardCompare($1.alias) == .orderedAscending }
    }

    func write(to destination: String) throws -> RecordingSummary {
        for t in tracks {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: t, isDirectory: &isDirectory) else {
                throw InputError(file: t, "no such file: expected a Daniş track (*_all_sensors.mbd)")
            }
            if isDirectory.boolValue {
                throw InputError(file: t, "is a directory: expected Daniş track files (*_all_sensors.mbd, e.g. \(t)/*_all_sensors.mbd)")
            }
        }
        // A file that is no Daniş track says so before the configuration is looked for (by default in ../cnf beside the
        // first track, which a wrong file does not have either): its first line, as the full parse below reads it. The
        // files read here are the ones parsed below.
        struct FirstLineRead: Error {}
        let files = try tracks.map { try CSVFile(path: $0) }
        for file in files {
            var sawLine = false
            do {
                try file.forEachRecord(columns: DanisImporter.fieldNames) { rec in
                    try rec.expect(fields: 16...16)
                    _ = try rec.double(0)   // a timestamp: a header or another table's first line is not a track
                    sawLine = true
                    throw FirstLineRead()
                }
            } catch is FirstLineRead {}
            guard sawLine else { throw InputError(file: file.path, "the track is empty") }
        }
        let cnf = configDirectory
        let devPath = cnf + "/tetam.dev", parPath = cnf + "/tetam.par"
        guard let devText = try? String(contentsOfFile: devPath, encoding: .utf8) else {
            throw InputError(file: devPath, "cannot read the receiver configuration (give its directory with --config)")
        }
        let sensors = try DanisImporter.devices(devText, key: "Dongles", file: devPath)
        let movers = try DanisImporter.devices(devText, key: "Beacons", file: devPath)
        for s in sensors where s.position.count != 3 {
            throw InputError(file: devPath, field: "Dongles.\(s.mac)", "expected the receiver's position [x, y, z]")
        }
        guard !sensors.isEmpty, !movers.isEmpty else { throw InputError(file: devPath, "expected at least one receiver and one beacon") }
        guard let parData = FileManager.default.contents(atPath: parPath),
              let par = (try? JSONSerialization.jsonObject(with: parData)) as? [String: Any],
              let limits = (par["limits"] as? [Any])?.compactMap({ ($0 as? NSNumber)?.doubleValue }), limits.count == 4 else {
            throw InputError(file: parPath, field: "limits", "expected {\"limits\": [minX, minY, maxX, maxY], …}")
        }
        let bounds = Rect(minX: limits[0], minY: limits[1], maxX: limits[2], maxY: limits[3])
        guard limits.allSatisfy({ $0.isFinite }), bounds.maxX > bounds.minX, bounds.maxY > bounds.minY,
              bounds.width <= WorkBudget.maximumExtent, bounds.height <= WorkBudget.maximumExtent else {
            throw InputError(file: parPath, field: "limits", "expected [minX, minY, maxX, maxY] with minX < maxX and minY < maxY, at most \(Format.number(WorkBudget.maximumExtent)) m across; found \(limits.map(Format.number))")
        }
        for s in sensors where !bounds.contains(Point(s.position[0], s.position[1]), tolerance: 1e-6) {
            throw InputError(file: devPath, field: "Dongles.\(s.mac)", "receiver '\(s.alias)' at (\(Format.number(s.position[0])), \(Format.number(s.position[1]))) lies outside the limits of \(parPath)")
        }

        // Parse every track first (they are small): all lines are checked before anything is written.
        struct Line { var ts: Double; var sensor: Int; var rssi: Double; var x: Double; var y: Double; var z: Double }
        struct Track { var path: String; var lines: [Line] }
        let sensorIDs = sensors.map(\.mac)
        let moverMACs = movers.map { Array($0.mac.utf8) }
        var parsed: [Track] = []
        for file in files {
            let path = file.path
            var lookup = BeaconLookup(ids: sensorIDs)
            var last = -Double.infinity
            var lines: [Line] = []
            let plausible = RecordingImporter.plausibleRSSI
            try file.forEachRecord(columns: DanisImporter.fieldNames) { rec in
                try rec.expect(fields: 16...16)
                let ts = try rec.double(0)
                if ts < last - DanisImporter.timeSlack {
                    throw rec.error(0, "time goes backwards: \(ts) after \(last), the latest time before it (more than \(DanisImporter.timeSlack) s)")
                }
                last = max(last, ts)
                guard let sensor = lookup.index(rec, field: 1) else {
                    throw rec.error(1, "unknown receiver '\(rec.shown(1))': not among the Dongles of \(devPath)")
                }
                guard moverMACs.contains(where: { rec.equals(2, $0) }) else {
                    throw rec.error(2, "unknown beacon '\(rec.shown(2))': not among the Beacons of \(devPath)")
                }
                let v = try rec.double(3)
                guard plausible.contains(v) else {
                    throw rec.error(3, "expected an RSSI in dBm within \(Int(plausible.lowerBound))…\(Int(plausible.upperBound)), found \(v)")
                }
                let x = try rec.coordinate(4), y = try rec.coordinate(5), z = try rec.coordinate(6)
                // The venue's limits hold the walker as they hold the receivers: a point outside is a damaged line.
                guard bounds.contains(Point(x, y), tolerance: 1e-6) else {
                    throw rec.error(4, "the walker at (\(Format.number(x)), \(Format.number(y))) lies outside the limits of \(parPath)")
                }
                for k in 7..<16 { _ = try rec.double(k) }
                lines.append(Line(ts: ts, sensor: sensor, rssi: v, x: x, y: y, z: z))
            }
            guard !lines.isEmpty else { throw InputError(file: path, "the track is empty") }
            parsed.append(Track(path: path, lines: lines))
        }
        // Tracks in time order; t = 0 at the first one's first line.
        parsed.sort { $0.lines[0].ts < $1.lines[0].ts }
        for (a, b) in zip(parsed, parsed.dropFirst()) {
            let end = a.lines.map(\.ts).max()!
            if b.lines[0].ts < end {
                throw InputError(file: b.path, line: 1, field: "timestamp",
                                 "this track starts at \(b.lines[0].ts), before \(a.path) ends (\(end)): tracks must not overlap in time")
            }
        }
        let origin = parsed[0].lines[0].ts
        var rssi: [RSSIReading] = []
        var truth: [TruthSample] = []
        for track in parsed {
            for l in track.lines {
                rssi.append(RSSIReading(beacon: l.sensor, t: l.ts - origin, rssi: l.rssi))
                truth.append(TruthSample(t: l.ts - origin, position: Point(l.x, l.y), z: l.z, source: .annotated))
            }
        }
        let tracks = parsed.map(\.path)

        let zs = truth.compactMap(\.z).sorted()
        var radio = options.radio(base: RadioModel(quantize: true, scanWindow: 1.0))
        radio.receiverHeight = ((zs[zs.count / 2]) * 100).rounded() / 100
        radio.sensitivity = min(radio.sensitivity, rssi.map(\.rssi).min() ?? radio.sensitivity)
        let beacons = sensors.map { s in
            RecordedBeacon(id: s.alias, address: s.mac, position: Point(s.position[0], s.position[1]), height: s.position[2])
        }
        let trackNames = tracks.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent.replacingOccurrences(of: "_all_sensors", with: "") }
        let name = options.name ?? (tracks.count == 1 ? "danis-\(trackNames[0])" : "danis-\(tracks.count)-tracks")
        let notes = options.notes.isEmpty
            ? "Daniş et al. (IEEE Access 2021, CC0) tracks \(trackNames.joined(separator: ", ")): \(sensors.count) fixed receivers are the anchors; the moving beacon \(movers.map { "\($0.alias) (\($0.mac))" }.joined(separator: ", ")) is the device."
            : options.notes
        let venue = RecordedVenue(name: "danis-tetam", bounds: bounds, radio: radio, beacons: beacons)
        let info = RecordingInfo(name: name, source: .danis, venue: venue.name, created: options.created, notes: notes, timeOrigin: origin)
        return try RecordingStore.create(at: destination, info: info, venue: venue) { w in
            for s in truth { try w.append(s) }
            for r in rssi { try w.append(r) }
        }
    }
}
