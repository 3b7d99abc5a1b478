import Foundation
import LabCore

/// The formats `indoorlab import` reads (docs/recordings.md describes each).
public enum ImportFormat: String, Sendable, CaseIterable {
    /// The lab's own CSV: a directory with beacons.csv, readings.csv, truth.csv and optionally headings.csv.
    case labCSV = "lab-csv"
    /// The UJI BLE RSS database: the dataset directory (dep/, rss/).
    case uji
    /// The Daniş et al. annotated tracks: one or more `*_all_sensors.mbd` files.
    case danis

    /// The Tx powers the UJI dataset was measured at, dBm (one per import, ``ImportOptions/txPower``).
    public static var ujiTxPowers: [Int] { UJIImporter.txPowers.keys.sorted(by: >) }
}

/// Choices an import needs beyond its files.
public struct ImportOptions: Sendable {
    /// Recording name; default from the input's name.
    public var name: String?
    public var notes: String
    /// Scan window, seconds (default: the scenario's, else 1 s).
    public var scanWindow: Double?
    /// Radio model values to store (defaults: the scenario's, else P0 −59 dBm, n 2, σ 4 dB; `calibrate` fits them).
    public var p0: Double?
    public var exponent: Double?
    public var sigma: Double?
    /// lab-csv: the venue (bounds, radio, rooms, walls, landmarks, and the beacons when there is no beacons.csv).
    public var scenario: Scenario?
    /// uji: which of the three Tx power settings to import, dBm: −4, −12 or −20.
    public var txPower: Int
    /// uji: also import the obstacle polygons (`obs/<zone>.csv`: shelves and pillars) as walls, one per polygon
    /// edge, material `shelf` or `pillar`, at 0 dB until `calibrate --apply` fits each material's loss.
    public var obstacles = false
    /// danis: the configuration directory (tetam.dev, tetam.par); default `../cnf` next to the first track.
    public var configDirectory: String?
    public var created: Date

    public init(name: String? = nil, notes: String = "", scanWindow: Double? = nil, p0: Double? = nil, exponent: Double? = nil,
                sigma: Double? = nil, scenario: Scenario? = nil, txPower: Int = -4, configDirectory: String? = nil, created: Date = Date()) {
        self.name = name; self.notes = notes; self.scanWindow = scanWindow; self.p0 = p0; self.exponent = exponent
        self.sigma = sigma; self.scenario = scenario; self.txPower = txPower; self.configDirectory = configDirectory
        self.created = created
    }

    /// The radio model: `base` with the options' values applied.
    func radio(base: RadioModel = RadioModel()) -> RadioModel {
        var r = base
        if let v = p0 { r.p0 = v }
        if let v = exponent { r.exponent = v }
        if let v = sigma { r.sigma = v }
        if let v = scanWindow { r.scanWindow = v }
        return r
    }
}

/// Reads a dataset in one of the ``ImportFormat``s into a new recording, all or nothing.
public enum RecordingImporter {
    /// RSSI values outside this range are reported as errors (dBm).
    public static let plausibleRSSI = RadioModel.plausibleRSSI

    /// Imports `paths` (their meaning depends on `format`) into a new recording at `destination`.
    /// - Throws: ``InputError`` naming file, line and field for bad input; nothing is written then.
    @discardableResult
    public static func run(format: ImportFormat, paths: [String], to destination: String, options: ImportOptions = ImportOptions()) throws -> RecordingSummary {
        // Refuse early, before reading anything large.
        try RecordingStore.checkDestination(destination)
        switch format {
        case .labCSV:
            guard paths.count == 1 else { throw InputError(file: paths.joined(separator: " "), "lab-csv takes one directory (with beacons.csv, readings.csv, truth.csv)") }
            return try LabCSVImporter(directory: paths[0], options: options).write(to: destination)
        case .uji:
            guard paths.count == 1 else { throw InputError(file: paths.joined(separator: " "), "uji takes the dataset directory (with dep/ and rss/)") }
            return try UJIImporter(directory: paths[0], options: options).write(to: destination)
        case .danis:
            guard !paths.isEmpty else { throw InputError(file: "danis", "give one or more track files (*_all_sensors.mbd)") }
            return try DanisImporter(tracks: paths, options: options).write(to: destination)
        }
    }

    /// Bounds enclosing `points` with a margin on the north and east sides, from the origin (the lab's frame
    /// starts at the south-west corner); negative coordinates move that side out, with the margin.
    static func bounds(enclosing points: [Point], margin: Double) -> Rect {
        let xs = points.map(\.x), ys = points.map(\.y)
        func up(_ v: Double) -> Double { (v * 10).rounded(.up) / 10 }
        func down(_ v: Double) -> Double { (v * 10).rounded(.down) / 10 }
        let lowX = xs.min() ?? 0, lowY = ys.min() ?? 0
        return Rect(minX: lowX >= 0 ? 0 : down(lowX - margin), minY: lowY >= 0 ? 0 : down(lowY - margin),
                    maxX: up((xs.max() ?? 1) + margin), maxY: up((ys.max() ?? 1) + margin))
    }
}
