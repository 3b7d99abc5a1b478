import Foundation
internal import LabCore

/// A venue's radio map: how each beacon's readings depart from the path-loss law across the venue, learned from a
/// survey (`indoorlab calibrate REC --radio-map --save-fit FIT.json`: a Gaussian process per beacon on its residuals).
/// Give it to ``IndoorLocator/init(beacons:pathLoss:friezes:walls:rooms:area:radioMap:seed:)``: the stream and the
/// one-scan fix then expect beacon b at p to read the law's mean plus the map's residual there, and count the map's own
/// uncertainty (its σ there) as model error. The phone's offset is not in the map, so any phone can use it.
///
/// The grid's node (i, j) lies at `origin + (i·cellSize, j·cellSize)`, metres; each beacon's values are row-major,
/// index `j·columns + i`, dB. Between nodes the map interpolates bilinearly; beyond the grid it keeps its edge's value.
public struct RadioMap: Sendable, Hashable {
    /// One beacon's map: the residual mean at each node and that mean's σ, dB.
    public struct Field: Sendable, Hashable {
        /// The residual's mean at each node (row-major), dB: the reading is expected that much above the law.
        public var mean: [Double]
        /// That mean's σ at each node, dB: model error on top of the path-loss model's.
        public var sigma: [Double]
        /// Creates a field.
        public init(mean: [Double], sigma: [Double]) { self.mean = mean; self.sigma = sigma }
    }

    /// Node (0, 0), metres.
    public var origin: Position
    /// The nodes' spacing, metres.
    public var cellSize: Double
    /// Nodes along x.
    public var columns: Int
    /// Nodes along y.
    public var rows: Int
    /// Per beacon; a beacon without a field follows the law.
    public var fields: [BeaconIdentity: Field]

    /// Creates a map.
    /// - Throws: ``LocatorError`` when the grid is empty or has more than 1,000,000 nodes, the cell is not positive, or a
    ///   field does not hold one finite value per node (means within ±100 dB, σ in 0–100 dB).
    public init(origin: Position, cellSize: Double, columns: Int, rows: Int, fields: [BeaconIdentity: Field]) throws {
        guard origin.x.isFinite, origin.y.isFinite, cellSize.isFinite, cellSize > 0 else {
            throw LocatorError("radioMap: the origin must be finite and the cell size positive, found \(origin) and \(cellSize) m")
        }
        guard columns >= 1, rows >= 1, columns <= 1_000_000 / rows else {
            throw LocatorError("radioMap: expected a grid of 1 to 1,000,000 nodes, found \(columns) × \(rows)")
        }
        for (id, f) in fields.sorted(by: { $0.key.description < $1.key.description }) {
            for (name, values) in [("mean", f.mean), ("sigma", f.sigma)] {
                guard values.count == columns * rows else {
                    throw LocatorError("radioMap: \(id).\(name): expected \(columns * rows) values (columns × rows), found \(values.count)")
                }
                if let k = values.firstIndex(where: { !$0.isFinite || abs($0) > 100 || (name == "sigma" && $0 < 0) }) {
                    throw LocatorError("radioMap: \(id).\(name)[\(k)]: expected \(name == "sigma" ? "a σ in 0–100" : "a residual within ±100") dB, found \(values[k])")
                }
            }
        }
        self.origin = origin; self.cellSize = cellSize; self.columns = columns; self.rows = rows; self.fields = fields
    }

    /// The map in a fit file `indoorlab calibrate --radio-map --save-fit` wrote (its `radioMap`), each of its beacon ids
    /// named by `identity` (by default the id as a name, ``BeaconIdentity/init(name:)``; nil leaves that beacon out).
    /// - Throws: ``LocatorError`` when the file holds no radio map or it is malformed.
    public init(calibrationFit data: Data, identity: (String) -> BeaconIdentity? = { BeaconIdentity(name: $0) }) throws {
        struct File: Decodable {
            struct Map: Decodable {
                struct Field: Decodable { var mean: [Double]; var sigma: [Double] }
                var originX: Double, originY: Double, cellSize: Double, nx: Int, ny: Int
                var beacons: [String: Field]
            }
            var radioMap: Map?
        }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw LocatorError("radioMap: the fit file is not one 'indoorlab calibrate --save-fit' wrote: \(error)")
        }
        guard let m = file.radioMap else { throw LocatorError("radioMap: the fit file has no radio map (fit one with 'indoorlab calibrate --radio-map')") }
        var fields: [BeaconIdentity: Field] = [:]
        for (id, f) in m.beacons { if let key = identity(id) { fields[key] = Field(mean: f.mean, sigma: f.sigma) } }
        try self.init(origin: Position(x: m.originX, y: m.originY), cellSize: m.cellSize, columns: m.nx, rows: m.ny, fields: fields)
    }

    /// The engine's map for beacons in this order.
    func engineMap(beacons: [BeaconPlacement]) -> LabCore.RadioMap {
        LabCore.RadioMap(origin: Point(origin.x, origin.y), cellSize: cellSize, nx: columns, ny: rows,
                         mean: beacons.map { fields[$0.identity]?.mean.map(Float.init) ?? [] },
                         variance: beacons.map { fields[$0.identity]?.sigma.map { Float($0 * $0) } ?? [] })
    }
}
