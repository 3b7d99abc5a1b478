import Foundation
import LabCore

/// A fitted radio model as a file (`calibrate --save-fit`), for `replay --radio` to score another recording
/// with it: the calibration protocol as two commands.
public struct RadioFit: Codable, Sendable, Hashable {
    /// RSSI at 1 m, dBm.
    public var p0: Double
    public var exponent: Double
    /// Shadowing σ, dB: what averaging a scan window's readings shrinks.
    public var sigma: Double
    /// The model error σ_m, dB (``RadioModel/modelError``): what it does not (nil in older files: none).
    public var modelError: Double?
    /// Each beacon's P0 at the global exponent, by beacon id.
    public var beaconP0: [String: Double]
    /// Each wall material's loss per crossing, dB, when the fit had walls with materials (nil in older files).
    public var materialLoss: [String: Double]?
    /// The calibration part's receiver floor, dBm (``RadioFit/floor(of:)``; nil in older files and for a simulated
    /// calibration, whose scenario states its sensitivity exactly). Applied as the scored venue's
    /// ``RadioModel/sensitivity``, or the scored readings' own floor where that is lower (``applied(to:readings:)``).
    public var sensitivity: Double?
    /// The calibration part's window dropout (``RadioModel/dropout``; nil in older files: none), applied as the scored
    /// venue's.
    public var dropout: Double?
    /// Where it was fitted (the recording's name).
    public var fittedOn: String
    /// The venue's radio map, when the fit made one (`calibrate --radio-map`; nil in older files and otherwise).
    public var radioMap: RadioMapFile?

    public init(p0: Double, exponent: Double, sigma: Double, beaconP0: [String: Double] = [:], fittedOn: String) {
        self.p0 = p0; self.exponent = exponent; self.sigma = sigma; self.beaconP0 = beaconP0; self.fittedOn = fittedOn
    }

    /// `venue` with this radio model: P0, n, σ and the model error, and the P0 of every beacon whose id the fit knows (other
    /// beacons fall back to the global P0).
    /// With `readings` (the scored recording's; no truth needed), the sensitivity is the lower of the fit's and
    /// their own floor: the weakest reading only bounds a receiver's floor from above, and no scored reading may
    /// lie below the sensitivity it is scored with.
    public func applied(to venue: RecordedVenue, readings: [RSSIReading] = []) -> RecordedVenue {
        applied(to: venue, floor: RadioFit.floor(of: readings))
    }

    /// ``applied(to:readings:)`` given the readings' floor (``floor(of:)``; a condensed recording's ``Recording/readingFloor``).
    public func applied(to venue: RecordedVenue, floor: Double?) -> RecordedVenue {
        var v = venue
        v.radio.p0 = p0; v.radio.exponent = exponent; v.radio.sigma = sigma; v.radio.modelError = modelError ?? 0
        if let dropout { v.radio.dropout = dropout }
        if let sensitivity { v.radio.sensitivity = min(sensitivity, floor ?? sensitivity) }
        for i in v.beacons.indices { v.beacons[i].p0 = beaconP0[v.beacons[i].id] }
        if let materialLoss {
            for i in v.walls.indices { if let m = v.walls[i].material, let loss = materialLoss[m] { v.walls[i].loss = loss } }
        }
        v.radioMap = radioMap?.map(beaconIDs: v.beacons.map(\.id))
        return v
    }

    /// What of this fit `venue` has no use for: beacon ids and wall materials it does not have (sorted), which
    /// ``applied(to:readings:)`` leaves out.
    public func unused(by venue: RecordedVenue) -> (beacons: [String], materials: [String]) {
        let ids = Set(venue.beacons.map(\.id)), materials = Set(venue.walls.compactMap(\.material))
        return (beaconP0.keys.filter { !ids.contains($0) }.sorted(), (materialLoss ?? [:]).keys.filter { !materials.contains($0) }.sorted())
    }

    /// A receiver's floor as `readings` show it, dBm: the weakest reading, less half a dB when every reading is a
    /// whole dB (a reading of −91 was at least −91.5 before rounding). Readings below it were never reported, so
    /// estimators that truncate or censor at the sensitivity take it; it bounds the true floor from above (a
    /// walk that never went far enough from the beacons shows a floor that is too high). Nil without readings.
    public static func floor(of readings: [RSSIReading]) -> Double? {
        var f = ReceiverFloor()
        for r in readings { f.see(r.rssi) }
        return f.value
    }

    public func write(to path: String) throws { try OutputFile.write(try LabJSON.encoder().encode(self), to: path) }

    /// - Throws: ``InputError`` naming the file for a missing or malformed fit, or impossible values.
    public static func read(path: String) throws -> RadioFit {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(file: path, "cannot read the radio fit (write one with 'indoorlab calibrate REC --save-fit FILE')")
        }
        let fit: RadioFit
        fit = try LabJSON.decode(RadioFit.self, from: data, file: path, as: "a radio fit (write one with 'indoorlab calibrate REC --save-fit FILE')")
        // The ranges a scenario's radio block takes: a fit that import or replay uses must make a readable recording.
        if let p = Format.outside(RadioModel.plausibleP0, fit.p0, unit: "dBm") { throw InputError(file: path, field: "p0", p) }
        if let p = Format.outside(RadioModel.plausibleExponent, fit.exponent) { throw InputError(file: path, field: "exponent", p) }
        if let p = Format.outside(RadioModel.plausibleSigma, fit.sigma, unit: "dB") { throw InputError(file: path, field: "sigma", p) }
        if let s = fit.sensitivity, let p = Format.outside(RadioModel.plausibleRSSI, s, unit: "dBm") { throw InputError(file: path, field: "sensitivity", p) }
        if let m = fit.modelError, !(m.isFinite && m >= 0) { throw InputError(file: path, field: "modelError", "expected a model error ≥ 0 dB, found \(m)") }
        if let d = fit.dropout, !(d >= 0 && d < 1) { throw InputError(file: path, field: "dropout", "expected a probability in [0, 1), found \(d)") }
        for (id, v) in fit.beaconP0.sorted(by: { $0.key < $1.key }) {
            if let p = Format.outside(RadioModel.plausibleP0, v, unit: "dBm") { throw InputError(file: path, field: "beaconP0.\(id)", p) }
        }
        for (m, v) in (fit.materialLoss ?? [:]).sorted(by: { $0.key < $1.key }) where !(v.isFinite && v >= 0) {
            throw InputError(file: path, field: "materialLoss.\(m)", "expected a loss ≥ 0 dB, found \(v)")
        }
        if let map = fit.radioMap, let (field, problem) = map.problem() { throw InputError(file: path, field: "radioMap." + field, problem) }
        return fit
    }
}

/// The receiver's floor as readings show it (``RadioFit/floor(of:)``), seen one reading at a time: a replay condenses
/// its readings as they stream (``CondensedReadings``) and takes the floor on the way.
public struct ReceiverFloor: Sendable {
    private var weakest: Double?
    private var whole = true

    public init() {}

    @inline(__always) public mutating func see(_ rssi: Double) {
        weakest = min(weakest ?? rssi, rssi)
        if whole && rssi.rounded() != rssi { whole = false }
    }

    /// The weakest reading, less half a dB when every reading was a whole dB; nil before any reading.
    public var value: Double? { weakest.map { whole ? $0 - 0.5 : $0 } }
}

/// A radio map as a fit file carries it (docs/real-data.md, "The radio map"): the grid, and per beacon id its Gaussian
/// process's hyperparameters and its residual mean and that mean's σ at each node, row-major (node (i, j) at
/// `originX + i·cellSize`, `originY + j·cellSize`, index `j·nx + i`), dB.
public struct RadioMapFile: Codable, Sendable, Hashable {
    public var originX: Double, originY: Double, cellSize: Double
    public var nx: Int, ny: Int
    /// Surveyed spots the map was fitted on.
    public var spots: Int
    public var beacons: [String: Field]
    /// The survey spot by spot: each spot's position (m), its scan windows, and per beacon id heard there the mean residual
    /// from the fitted law (dB) and the share of the spot's windows that heard it (nil in files without it).
    public var survey: [Spot]?

    public struct Spot: Codable, Sendable, Hashable {
        public var x: Double, y: Double
        public var windows: Int
        public var beacons: [String: Heard]
        public struct Heard: Codable, Sendable, Hashable {
            public var residual: Double
            public var share: Double
            public init(residual: Double, share: Double) { self.residual = residual; self.share = share }
        }
        public init(x: Double, y: Double, windows: Int, beacons: [String: Heard]) { self.x = x; self.y = y; self.windows = windows; self.beacons = beacons }
    }

    public struct Field: Codable, Sendable, Hashable {
        /// The Gaussian process's length scale (m), signal σ_f and noise σ_n (dB).
        public var lengthScale: Double, signalSigma: Double, noiseSigma: Double
        public var mean: [Double]
        public var sigma: [Double]
    }

    /// The most nodes a file may hold (a 1 m grid over 1 km²).
    public static let maximumNodes = 1_000_000

    /// `map` (in the order of `beaconIDs`), each mapped beacon with its hyperparameters (ℓ, σ_f, σ_n), every value rounded
    /// to 0.01 dB.
    public init(_ map: RadioMap, beaconIDs: [String], spots: Int, hyperparameters: (Int) -> (Double, Double, Double)?) {
        originX = map.origin.x; originY = map.origin.y; cellSize = map.cellSize; nx = map.nx; ny = map.ny
        self.spots = spots
        func round(_ x: Double) -> Double { (x * 100).rounded() / 100 }
        var fields: [String: Field] = [:]
        for (b, id) in beaconIDs.enumerated() where map.maps(beacon: b) {
            guard let (l, f, n) = hyperparameters(b) else { continue }
            fields[id] = Field(lengthScale: round(l), signalSigma: round(f), noiseSigma: round(n),
                               mean: map.mean[b].map { round(Double($0)) }, sigma: map.variance[b].map { round(Double($0).squareRoot()) })
        }
        beacons = fields
    }

    /// The map for a venue with these beacons (by id; beacons it does not know get none).
    public func map(beaconIDs: [String]) -> RadioMap {
        let mean = beaconIDs.map { beacons[$0]?.mean.map(Float.init) ?? [] }
        let variance = beaconIDs.map { beacons[$0]?.sigma.map { Float($0 * $0) } ?? [] }
        return RadioMap(origin: Point(originX, originY), cellSize: cellSize, nx: nx, ny: ny, mean: mean, variance: variance)
    }

    /// What makes the file unusable: the field's path below `radioMap` and the problem; nil when it is usable.
    public func problem() -> (String, String)? {
        guard originX.isFinite, originY.isFinite else { return ("originX", "expected finite coordinates, found (\(originX), \(originY))") }
        guard cellSize.isFinite, cellSize > 0 else { return ("cellSize", "expected a cell size > 0 m, found \(cellSize)") }
        guard nx >= 1, ny >= 1, nx <= Self.maximumNodes / ny else {
            return ("nx", "expected a grid of 1 to \(Self.maximumNodes) nodes, found \(nx) × \(ny)")
        }
        for (k, spot) in (survey ?? []).enumerated() {
            guard spot.x.isFinite, spot.y.isFinite, spot.windows >= 0 else { return ("survey[\(k)]", "expected a finite position and windows ≥ 0") }
            for (id, h) in spot.beacons.sorted(by: { $0.key < $1.key }) where !(h.residual.isFinite && abs(h.residual) <= 100 && h.share >= 0 && h.share <= 1) {
                return ("survey[\(k)].beacons.\(id)", "expected a residual within ±100 dB and a share in 0–1, found \(h.residual) and \(h.share)")
            }
        }
        for (id, f) in beacons.sorted(by: { $0.key < $1.key }) {
            for (name, v) in [("lengthScale", f.lengthScale), ("signalSigma", f.signalSigma), ("noiseSigma", f.noiseSigma)] where !(v.isFinite && v > 0) {
                return ("beacons.\(id).\(name)", "expected a value > 0, found \(v)")
            }
            for (name, values) in [("mean", f.mean), ("sigma", f.sigma)] {
                guard values.count == nx * ny else { return ("beacons.\(id).\(name)", "expected \(nx * ny) values (nx × ny), found \(values.count)") }
                if let k = values.firstIndex(where: { !$0.isFinite || abs($0) > 100 || (name == "sigma" && $0 < 0) }) {
                    return ("beacons.\(id).\(name)[\(k)]", "expected \(name == "sigma" ? "a σ in 0–100" : "a residual within ±100") dB, found \(values[k])")
                }
            }
        }
        return nil
    }
}
