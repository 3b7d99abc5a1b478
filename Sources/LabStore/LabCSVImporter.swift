import Foundation
import LabCore

/// The lab's own CSV format: a directory holding
///
///     beacons.csv    id,x,y[,height][,p0][,uuid][,major][,minor]     (optional with --scenario)
///     readings.csv   t,beacon,rssi                                    one row per advertisement heard
///     truth.csv      t,x,y[,z][,source]                               ground truth
///     headings.csv   t,heading[,accuracy][,frieze][,target]           optional; friezes by landmark name
///     steps.csv      t,length,heading[,length_accuracy][,heading_accuracy]   optional; the step detector's steps
///
/// Units: seconds, metres, dBm, degrees clockwise from north. Each file starts with a header naming its
/// columns (any order). Times must not go backwards within a file. docs/recordings.md has the details.
struct LabCSVImporter {
    let directory: String
    let options: ImportOptions

    init(directory: String, options: ImportOptions) {
        self.directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        self.options = options
    }

    func path(_ name: String) -> String { directory + "/" + name }

    func write(to destination: String) throws -> RecordingSummary {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDir), isDir.boolValue else {
            throw InputError(file: directory, "expected a directory holding beacons.csv, readings.csv and truth.csv")
        }
        let scenario = options.scenario
        let beacons: [RecordedBeacon]
        if FileManager.default.fileExists(atPath: path("beacons.csv")) {
            beacons = try readBeacons()
        } else if let scenario {
            beacons = scenario.beacons.map(RecordedBeacon.init)
        } else {
            throw InputError(file: path("beacons.csv"), "no such file (it is needed unless --scenario gives the beacons)")
        }
        let landmarks = scenario?.landmarks ?? []
        let truth = try readTruth()
        let headings = FileManager.default.fileExists(atPath: path("headings.csv"))
            ? try readHeadings(landmarks: landmarks, defaultAccuracy: scenario?.compass.sigma ?? 10) : []
        let steps = FileManager.default.fileExists(atPath: path("steps.csv"))
            ? try readSteps(defaults: scenario?.pdr ?? PDRModel()) : []
        let readings = try CSVFile(path: path("readings.csv"))

        let radio = options.radio(base: scenario?.radio ?? RadioModel())
        guard radio.scanWindow > 0 else { throw InputError(file: directory, field: "scan_window", "expected a positive scan window") }
        let bounds = scenario?.bounds ?? RecordingImporter.bounds(enclosing: beacons.map(\.position) + truth.map(\.position), margin: 1)
        if let scenario {
            // The scenario's venue holds the walk and the beacons: a point outside it is a typo (x = 500 in a 20 m
            // venue), which replay would score as a 60 m error.
            if let i = truth.firstIndex(where: { !bounds.contains($0.position, tolerance: 1e-6) }) {
                throw InputError(file: path("truth.csv"), line: i + 2, field: "x",
                                 "(\(Format.number(truth[i].position.x)), \(Format.number(truth[i].position.y))) lies outside \(scenario.name)'s bounds")
            }
            if FileManager.default.fileExists(atPath: path("beacons.csv")), let b = beacons.first(where: { !bounds.contains($0.position, tolerance: 1e-6) }) {
                throw InputError(file: path("beacons.csv"), field: "x", "beacon '\(b.id)' at (\(Format.number(b.position.x)), \(Format.number(b.position.y))) lies outside \(scenario.name)'s bounds")
            }
        }
        let name = options.name ?? URL(fileURLWithPath: directory).lastPathComponent
        let venue = RecordedVenue(name: scenario?.name ?? name, bounds: bounds, radio: radio, beacons: beacons,
                                  landmarks: landmarks, rooms: scenario?.rooms ?? [], walls: scenario?.walls ?? [])
        let info = RecordingInfo(name: name, source: .labCSV, venue: venue.name, created: options.created, notes: options.notes)
        return try RecordingStore.create(at: destination, info: info, venue: venue) { w in
            for s in truth { try w.append(s) }
            for h in headings { try w.append(h) }
            for st in steps { try w.append(st) }
            try streamReadings(readings, beacons: beacons, into: w)
        }
    }

    func readBeacons() throws -> [RecordedBeacon] {
        let file = try CSVFile(path: path("beacons.csv"))
        var out: [RecordedBeacon] = []
        var seen: [String: Int] = [:]
        try file.forEachRow(required: ["id", "x", "y"], optional: ["height", "p0", "uuid", "major", "minor"]) { rec, c in
            let idField = c["id"]!
            let id = rec.string(idField)
            guard !id.isEmpty else { throw rec.error(idField, "expected a beacon id, found an empty field") }
            if let problem = controlCharacterProblem(in: id) { throw rec.error(idField, "the beacon id \(problem)") }
            if let first = seen[id] { throw rec.error(idField, "duplicate beacon id '\(rec.shown(idField))' (first on line \(first))") }
            seen[id] = rec.line
            var b = RecordedBeacon(id: id, position: Point(try rec.coordinate(c["x"]!), try rec.coordinate(c["y"]!)))
            if let i = c["height"], let h = try rec.optionalDouble(i) {
                guard (0...WorkBudget.maximumExtent).contains(h) else { throw rec.error(i, "expected a mounting height ≥ 0 m, found \(Format.number(h))") }
                b.height = h
            }
            if let i = c["p0"] { b.p0 = try rec.optionalDouble(i) }
            if let i = c["uuid"], !rec.isEmpty(i) {
                let u = rec.string(i)
                guard UUID(uuidString: u) != nil else { throw rec.error(i, "expected an iBeacon UUID like B9407F30-F5F8-466E-AFF9-25556B57FE6D, found '\(rec.shown(i))'") }
                b.uuid = u.uppercased()
            }
            func uint16(_ key: String) throws -> Int? {
                guard let i = c[key], !rec.isEmpty(i) else { return nil }
                let v = try rec.int(i)
                guard (0...65535).contains(v) else { throw rec.error(i, "expected a whole number in 0…65535, found \(v)") }
                return v
            }
            b.major = try uint16("major")
            b.minor = try uint16("minor")
            out.append(b)
        }
        if out.isEmpty { throw InputError(file: path("beacons.csv"), "no beacons: expected one row per beacon after the header") }
        return out
    }

    func readTruth() throws -> [TruthSample] {
        let file = try CSVFile(path: path("truth.csv"))
        var out: [TruthSample] = []
        var last = -Double.infinity
        try file.forEachRow(required: ["t", "x", "y"], optional: ["z", "source"]) { rec, c in
            let ti = c["t"]!
            let t = try rec.double(ti)
            if t < last { throw rec.error(ti, "time goes backwards: \(t) s after \(last) s on the line before") }
            last = t
            var source = TruthSource.survey
            if let si = c["source"], !rec.isEmpty(si) {
                guard let s = TruthSource(rawValue: rec.string(si)) else {
                    throw rec.error(si, "expected one of \(TruthSource.allCases.map(\.rawValue).joined(separator: ", ")), found '\(rec.shown(si))'")
                }
                source = s
            }
            out.append(TruthSample(t: t, position: Point(try rec.coordinate(c["x"]!), try rec.coordinate(c["y"]!)),
                                   z: try c["z"].flatMap { rec.isEmpty($0) ? nil : try rec.coordinate($0) }, source: source))
        }
        if out.isEmpty { throw InputError(file: path("truth.csv"), "no ground truth: expected one row per position after the header") }
        return out
    }

    func readHeadings(landmarks: [Landmark], defaultAccuracy: Double) throws -> [HeadingReading] {
        let file = try CSVFile(path: path("headings.csv"))
        var out: [HeadingReading] = []
        var last = -Double.infinity
        let friezes = Dictionary(landmarks.indices.filter { landmarks[$0].kind == .frieze }.map { (landmarks[$0].name, $0) },
                                 uniquingKeysWith: { a, _ in a })
        try file.forEachRow(required: ["t", "heading"], optional: ["accuracy", "frieze", "target"]) { rec, c in
            let ti = c["t"]!, hi = c["heading"]!
            let t = try rec.double(ti)
            if t < last { throw rec.error(ti, "time goes backwards: \(t) s after \(last) s on the line before") }
            last = t
            let h = try rec.double(hi)
            guard h >= 0 && h < 360 else { throw rec.error(hi, "expected a compass heading in [0, 360) degrees, found \(h)") }
            var accuracy = defaultAccuracy
            if let ai = c["accuracy"], let a = try rec.optionalDouble(ai) {
                guard a > 0 else { throw rec.error(ai, "expected a positive standard deviation in degrees, found \(a)") }
                accuracy = a
            }
            func frieze(_ key: String) throws -> Int? {
                guard let i = c[key], !rec.isEmpty(i) else { return nil }
                let name = rec.string(i)
                guard let k = friezes[name] else {
                    let known = friezes.isEmpty ? "no friezes are known (give the venue with --scenario)" : "known friezes: \(friezes.keys.sorted().joined(separator: ", "))"
                    throw rec.error(i, "unknown frieze '\(rec.shown(i))'; \(known)")
                }
                return k
            }
            out.append(HeadingReading(t: t, heading: h, accuracy: accuracy, frieze: try frieze("frieze"), target: try frieze("target")))
        }
        return out
    }

    /// The step detector's steps; accuracies left out come from the scenario's `pdr` (or its defaults).
    func readSteps(defaults: PDRModel) throws -> [StepReading] {
        let file = try CSVFile(path: path("steps.csv"))
        var out: [StepReading] = []
        var last = -Double.infinity
        try file.forEachRow(required: ["t", "length", "heading"], optional: ["length_accuracy", "heading_accuracy"]) { rec, c in
            let ti = c["t"]!, li = c["length"]!, hi = c["heading"]!
            let t = try rec.double(ti)
            if t < last { throw rec.error(ti, "time goes backwards: \(t) s after \(last) s on the line before") }
            last = t
            let length = try rec.double(li)
            guard length >= 0 && length <= StepReading.longest else {
                throw rec.error(li, "expected a step length in metres within 0…\(Format.number(StepReading.longest)), found \(length)")
            }
            let h = try rec.double(hi)
            guard h >= 0 && h < 360 else { throw rec.error(hi, "expected a compass heading in [0, 360) degrees, found \(h)") }
            func accuracy(_ key: String, _ fallback: Double, _ limit: Double, _ unit: String) throws -> Double {
                guard let i = c[key], let a = try rec.optionalDouble(i) else { return fallback }
                guard a >= 0 && a <= limit else {
                    throw rec.error(i, "expected a standard deviation ≥ 0 \(unit), at most \(Format.number(limit)), found \(a)")
                }
                return a
            }
            out.append(StepReading(t: t, length: length, heading: h,
                                   lengthAccuracy: try accuracy("length_accuracy", defaults.lengthSigma, StepReading.longest, "metres"),
                                   headingAccuracy: try accuracy("heading_accuracy", defaults.headingSigma, 180, "degrees")))
        }
        if out.isEmpty { throw InputError(file: file.path, "no steps: expected one row per step after the header (or no steps.csv)") }
        return out
    }

    /// Parses readings.csv and appends every row as it goes (the transaction makes it all or nothing).
    func streamReadings(_ file: CSVFile, beacons: [RecordedBeacon], into w: RecordingWriter) throws {
        var lookup = BeaconLookup(ids: beacons.map(\.id))
        var last = -Double.infinity
        var ti = 0, bi = 0, ri = 0
        var resolved = false
        let plausible = RecordingImporter.plausibleRSSI
        try file.forEachRow(required: ["t", "beacon", "rssi"]) { rec, c in
            if !resolved { ti = c["t"]!; bi = c["beacon"]!; ri = c["rssi"]!; resolved = true }
            let t = try rec.double(ti)
            if t < last { throw rec.error(ti, "time goes backwards: \(t) s after \(last) s on the line before") }
            last = t
            guard let b = lookup.index(rec, field: bi) else {
                throw rec.error(bi, "unknown beacon id '\(rec.shown(bi))' (not in beacons.csv\(options.scenario != nil ? " or the scenario" : ""))")
            }
            let rssi = try rec.double(ri)
            guard plausible.contains(rssi) else {
                throw rec.error(ri, "expected an RSSI in dBm within \(Int(plausible.lowerBound))…\(Int(plausible.upperBound)), found \(rssi)")
            }
            do { try w.append(RSSIReading(beacon: b, t: t, rssi: rssi)) } catch let e as InputError { throw rec.error(ti, e.message) }
        }
        if w.rssiCount == 0 { throw InputError(file: file.path, "no readings: expected one row per advertisement after the header") }
    }
}
