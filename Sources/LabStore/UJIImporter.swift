import Foundation
import LabCore

/// The UJI BLE RSS measurements database (Mendoza-Silva et al., Data 4(1):12, 2019; Zenodo
/// 10.5281/zenodo.1618692; CC BY 4.0), one zone:
///
///     dep/<zone>.csv       id,x,y             the beacons, metres (header line)
///     rss/<zone>_rss.csv   one column per beacon (in dep order), dBm; 100 = not detected (no header)
///     rss/<zone>_crd.csv   x,y of each scan, metres
///     rss/<zone>_ids.csv   8 digits: phone, Tx power (1 = −4, 2 = −12, 3 = −20 dBm), campaign, point, sample
///     rss/<zone>_tms.csv   one column per beacon: when the phone collected each reading, ns (0 = not detected)
///     obs/<zone>.csv       id,x,y,type        obstacle polygons (type 1 = shelf, 2 = pillar), with --obstacles
///
/// Row i of every rss file describes scan i. The beacons broadcast at three Tx powers, so the same spot has
/// three different radio models: an import takes one power (``ImportOptions/txPower``, default −4 dBm).
/// A scan holds at most one reading per beacon, so the recording states one advertisement per scan window.
/// Each scan of that power becomes one scan window at the phone's own time: its latest reading's collection time
/// (`_tms.csv`), at least one window W after the scan before (a scan's readings span up to a window, so the latest of
/// one scan and of the next can lie closer), and one W after it for a scan that heard nothing (no times). Its readings
/// and its truth (source `survey`) are at that time. The surveyor stood at each reference point for about 13 scans and
/// walked to the next in 4–10 s, so the scans are a walk with stops, as a tracker meets them. A campaign's clock
/// restarts: each campaign starts ``campaignGap`` after the one before (longer than a tracker bridges: a new track).
/// Without `_tms.csv` (an older copy) the scans are one window apart in file order.
struct UJIImporter {
    let directory: String
    let options: ImportOptions

    static let txPowers: [Int: Character] = [-4: "1", -12: "2", -20: "3"]
    static let notDetected = 100.0
    /// The time between the last scan of one campaign and the first of the next, s.
    static let campaignGap = 120.0
    /// Obstacle types of `obs/<zone>.csv`: 1 are the rectangular shelves (0.7 m × 1.6–4.3 m), 2 the round pillars
    /// (0.4 m, 16-gons).
    static let obstacleMaterials: [Int: String] = [1: "shelf", 2: "pillar"]

    /// The obstacle polygons of `path` as walls (each edge one wall, 0 dB: the loss is `calibrate`'s to fit).
    static func obstacleWalls(path: String) throws -> [Wall] {
        var polygons: [(id: String, material: String, points: [Point], line: Int)] = []
        try CSVFile(path: path).forEachRow(required: ["id", "x", "y", "type"]) { rec, c in
            let id = rec.string(c["id"]!)
            guard !id.isEmpty else { throw rec.error(c["id"]!, "expected an obstacle id, found an empty field") }
            let p = Point(try rec.coordinate(c["x"]!), try rec.coordinate(c["y"]!))
            let type = try rec.double(c["type"]!)
            guard let material = Int(exactly: type).flatMap({ obstacleMaterials[$0] }) else {
                throw rec.error(c["type"]!, "expected an obstacle type 1 (shelf) or 2 (pillar), found \(type)")
            }
            if let last = polygons.last, last.id == id {
                guard last.material == material else { throw rec.error(c["type"]!, "obstacle \(id) changes type within its polygon") }
                polygons[polygons.count - 1].points.append(p)
            } else {
                guard !polygons.contains(where: { $0.id == id }) else { throw rec.error(c["id"]!, "obstacle \(id)'s vertices are not consecutive") }
                polygons.append((id, material, [p], rec.line))
            }
        }
        var walls: [Wall] = []
        for poly in polygons {
            var pts = poly.points
            if pts.count > 1, pts.first == pts.last { pts.removeLast() }   // closed by repeating the first vertex
            guard pts.count >= 3 else {
                throw InputError(file: path, line: poly.line, field: "id", "obstacle \(poly.id) has \(pts.count) distinct vertices; a polygon needs at least 3")
            }
            for i in pts.indices {
                walls.append(Wall(segment: Segment(pts[i], pts[(i + 1) % pts.count]), material: poly.material, loss: 0))
            }
        }
        guard !walls.isEmpty else { throw InputError(file: path, "no obstacles") }
        return walls
    }

    init(directory: String, options: ImportOptions) {
        self.directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        self.options = options
    }

    /// The zone present: `geo` (the Geotec lab), else `lib` (the library).
    func zone() throws -> String {
        for z in ["geo", "lib"] where FileManager.default.fileExists(atPath: "\(directory)/dep/\(z).csv") { return z }
        throw InputError(file: directory, "expected the UJI dataset directory, with dep/geo.csv and rss/geo_rss.csv, geo_crd.csv, geo_ids.csv")
    }

    func write(to destination: String) throws -> RecordingSummary {
        guard let code = UJIImporter.txPowers[options.txPower] else {
            throw InputError(file: directory, field: "tx-power", "expected a Tx power of -4, -12 or -20 dBm, found \(options.txPower)")
        }
        let z = try zone()
        let depPath = "\(directory)/dep/\(z).csv"
        var beacons: [RecordedBeacon] = []
        try CSVFile(path: depPath).forEachRow(required: ["id", "x", "y"]) { rec, c in
            let id = rec.string(c["id"]!)
            guard !id.isEmpty else { throw rec.error(c["id"]!, "expected a beacon id, found an empty field") }
            if beacons.contains(where: { $0.id == id }) { throw rec.error(c["id"]!, "duplicate beacon id '\(rec.shown(c["id"]!))'") }
            beacons.append(RecordedBeacon(id: id, position: Point(try rec.coordinate(c["x"]!), try rec.coordinate(c["y"]!))))
        }
        guard !beacons.isEmpty else { throw InputError(file: depPath, "no beacons") }

        // ids: which rows have the chosen power.
        let idsPath = "\(directory)/rss/\(z)_ids.csv"
        var selected: [Bool] = [], campaigns: [String] = []
        try CSVFile(path: idsPath).forEachRecord(columns: ["id"]) { rec in
            try rec.expect(fields: 1...1)
            let s = rec.string(0)
            guard s.count == 8, s.allSatisfy(\.isNumber), let digit = s.dropFirst().first, "123".contains(digit) else {
                throw rec.error(0, "expected an 8-digit scan id whose second digit is the Tx power (1, 2 or 3), found '\(rec.shown(0))'")
            }
            selected.append(digit == code)
            campaigns.append(String(s.prefix(3)))
        }
        let crdPath = "\(directory)/rss/\(z)_crd.csv"
        var coords: [Point] = []
        try CSVFile(path: crdPath).forEachRecord(columns: ["x", "y"]) { rec in
            try rec.expect(fields: 2...2)
            coords.append(Point(try rec.coordinate(0), try rec.coordinate(1)))
        }
        let rssPath = "\(directory)/rss/\(z)_rss.csv"
        let rss = try CSVFile(path: rssPath)
        let columns = beacons.map(\.id)
        var rows: [[Double?]] = []
        let plausible = RecordingImporter.plausibleRSSI
        try rss.forEachRecord(columns: columns) { rec in
            try rec.expect(fields: beacons.count...beacons.count)
            var row = [Double?](repeating: nil, count: beacons.count)
            for j in 0..<beacons.count {
                let v = try rec.double(j)
                if v == UJIImporter.notDetected { continue }
                guard plausible.contains(v) else {
                    throw rec.error(j, "expected an RSSI in dBm within \(Int(plausible.lowerBound))…\(Int(plausible.upperBound)) or 100 (not detected), found \(v)")
                }
                row[j] = v
            }
            rows.append(row)
        }
        guard rows.count == coords.count, rows.count == selected.count else {
            throw InputError(file: rssPath, "row counts differ: \(rows.count) scans in \(rssPath), \(coords.count) in \(crdPath), \(selected.count) in \(idsPath); row i of each must describe scan i")
        }
        guard selected.contains(true) else { throw InputError(file: idsPath, "no scan has Tx power \(options.txPower) dBm") }
        let tmsPath = "\(directory)/rss/\(z)_tms.csv"
        let collected = FileManager.default.fileExists(atPath: tmsPath) ? try UJIImporter.collectionTimes(path: tmsPath, beacons: beacons.count) : nil
        if let collected, collected.count != rows.count {
            throw InputError(file: tmsPath, "row counts differ: \(collected.count) scans in \(tmsPath), \(rows.count) in \(rssPath); row i of each must describe scan i")
        }

        // A scan holds at most one reading of a beacon: one advertisement per scan window (what the trackers' detection
        // model counts; `calibrate` measures how often a scan misses a beacon however strong, the dropout).
        var radio = options.radio(base: RadioModel(quantize: true, scanWindow: 1.0))
        radio.advertisingInterval = radio.scanWindow
        let w = radio.scanWindow
        let picked = rows.indices.filter { selected[$0] }
        let bounds = RecordingImporter.bounds(enclosing: beacons.map(\.position) + picked.map { coords[$0] }, margin: 0.5)
        let name = options.name ?? "uji-\(z)-tx\(options.txPower)dBm"
        let walls = options.obstacles ? try UJIImporter.obstacleWalls(path: "\(directory)/obs/\(z).csv") : []
        let venue = RecordedVenue(name: "uji-\(z)", bounds: bounds, radio: radio, beacons: beacons, walls: walls)
        let notes = options.notes.isEmpty
            ? "UJI BLE RSS database, zone \(z), Tx power \(options.txPower) dBm: \(picked.count) of \(rows.count) scans. Mendoza-Silva et al., Zenodo 10.5281/zenodo.1618692, CC BY 4.0."
            : options.notes
        let info = RecordingInfo(name: name, source: .uji, venue: venue.name, created: options.created, notes: notes)
        let times = UJIImporter.scanTimes(picked: picked, campaigns: campaigns, collected: collected, window: w)
        return try RecordingStore.create(at: destination, info: info, venue: venue) { writer in
            for (k, i) in picked.enumerated() {
                let t = times[k]
                try writer.append(TruthSample(t: t, position: coords[i], source: .survey))
                for (j, v) in rows[i].enumerated() {
                    if let v { try writer.append(RSSIReading(beacon: j, t: t, rssi: v)) }
                }
            }
        }
    }

    /// Each row's collection time of `path` (`_tms.csv`): its latest reading's, s; nil for a row that heard nothing.
    static func collectionTimes(path: String, beacons: Int) throws -> [Double?] {
        var out: [Double?] = []
        try CSVFile(path: path).forEachRecord(columns: (0..<beacons).map { "beacon \($0 + 1)" }) { rec in
            try rec.expect(fields: beacons...beacons)
            var latest = 0.0
            for j in 0..<beacons {
                let v = try rec.double(j)
                guard v >= 0 else { throw rec.error(j, "expected a collection time in ns (0 = not detected), found \(v)") }
                latest = max(latest, v)
            }
            out.append(latest > 0 ? latest / 1e9 : nil)
        }
        return out
    }

    /// The time of each picked scan (`picked`: row indices in file order), s from the recording's start: the rows'
    /// collection times where known, each at least `window` after the scan before (one `window` after it when unknown);
    /// a new campaign (or a clock that goes back) ``campaignGap`` after the last scan. Without times, one window apart.
    static func scanTimes(picked: [Int], campaigns: [String], collected: [Double?]?, window w: Double) -> [Double] {
        guard let collected else { return picked.indices.map { (Double($0) + 0.5) * w } }
        var out: [Double] = []
        out.reserveCapacity(picked.count)
        // The campaign's clock against the recording's: its first known collection time and the time it was given
        // (a scan placed later than its clock says, to keep a window from the one before, does not push the rest).
        var anchor: (clock: Double, t: Double)?, lastClock = -Double.infinity, campaign: String?
        for i in picked {
            guard let previous = out.last else {
                out.append(0.5 * w); campaign = campaigns[i]
                if let c = collected[i] { anchor = (c, 0.5 * w); lastClock = c }
                continue
            }
            let t: Double
            if campaigns[i] != campaign || (collected[i].map { $0 < lastClock } ?? false) {
                t = previous + campaignGap
                anchor = collected[i].map { ($0, t) }
            } else if let c = collected[i], let a = anchor {
                t = max(a.t + (c - a.clock), previous + w)
            } else {
                t = previous + w
                if anchor == nil, let c = collected[i] { anchor = (c, t) }
            }
            if let c = collected[i] { lastClock = c }
            out.append(t); campaign = campaigns[i]
        }
        return out
    }
}
