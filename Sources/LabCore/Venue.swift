/// What an estimator may know about a venue: beacon positions and powers, the radio model, landmarks, rooms.
/// Built once from a ``Scenario`` (or a recording) and shared read-only by all estimators.
public struct Venue: Sendable {
    public let name: String
    public let bounds: Rect
    public let radio: RadioModel
    public let beaconIDs: [String]
    public let beaconPositions: [Point]
    /// Each beacon's RSSI at 1 m, dBm.
    public let beaconP0: [Double]
    /// Height difference between each beacon and the phone, metres (0 for 2-D beacons).
    public let beaconHeightOffset: [Double]
    public let landmarks: [Landmark]
    /// Landmark indices of the friezes and exhibits.
    public let friezes: [Int]
    public let exhibits: [Int]
    public let rooms: [Room]
    /// The walls and their losses, for estimators that model the floorplan.
    public let walls: WallIndex
    /// True when every beacon is at the phone's height, so ranges order like (P0 − RSSI).
    public let isPlanar: Bool
    /// A survey of the venue for fingerprinting, when one was made.
    public var survey: SurveyMap?
    /// How each beacon's readings depart from the law across the venue, when a survey was fitted into a radio map
    /// (`calibrate --radio-map`): the particle filter and the fits expect it and count its variance as model error.
    public var radioMap: RadioMap?
    /// The seed of estimators that draw random numbers (particle filters): the tournament sets the job's seed, the
    /// real protocols each seed of `compare --seed --seeds` in turn; replay keeps 0. Their fixes repeat for the same seed and the same sequence of
    /// phones (each phone's stream follows from the seed and how many phones came before it).
    public var seed: UInt64 = 0
    /// The walker's body shadowing as estimators know it (its size, never the heading): in the field, the
    /// impairments'; otherwise none. Trackers that know where the walker heads use it (``BodyShadowing``); for
    /// everyone else it is part of ``RadioModel/modelError``.
    public var body: BodyShadowing = .none
    /// σ of each beacon's P0 error, dB, as estimators know it (its size, never the draws): in the field, the
    /// impairments' beacon spread (``FieldImpairments/beaconP0Sigma``); otherwise 0. The error is static, so a
    /// tracker that sees a beacon from many places can learn it (the particle filter does); for everyone else it is
    /// part of ``RadioModel/modelError``.
    public var beaconSpread = 0.0

    public init(name: String, bounds: Rect, radio: RadioModel, beaconIDs: [String], beaconPositions: [Point],
                beaconP0: [Double], beaconHeightOffset: [Double], landmarks: [Landmark] = [], rooms: [Room] = [], walls: [Wall] = []) {
        precondition(beaconIDs.count == beaconPositions.count && beaconP0.count == beaconPositions.count
                     && beaconHeightOffset.count == beaconPositions.count, "beacon arrays must have one entry per beacon")
        self.name = name; self.bounds = bounds; self.radio = radio; self.beaconIDs = beaconIDs
        self.beaconPositions = beaconPositions; self.beaconP0 = beaconP0; self.beaconHeightOffset = beaconHeightOffset
        self.landmarks = landmarks; self.rooms = rooms; self.walls = WallIndex(walls, origins: beaconPositions)
        self.isPlanar = beaconHeightOffset.allSatisfy { $0 == 0 }
        self.friezes = landmarks.indices.filter { landmarks[$0].kind == .frieze }
        self.exhibits = landmarks.indices.filter { landmarks[$0].kind == .exhibit }
    }

    /// The venue of `s` as estimators know it in `condition`: in the field, the radio model's error grows by what
    /// the impairments leave after averaging (``FieldImpairments/modelError``): their sizes, never their draws.
    public init(_ s: Scenario, condition: SimulationCondition = .ideal) {
        self.init(name: s.name, bounds: s.bounds, radio: s.radio.withModelError(adding: condition.impairments(s.radio).modelError),
                  beaconIDs: s.beacons.map(\.id), beaconPositions: s.beacons.map(\.position), beaconP0: s.beacons.map { s.radio.p0(beacon: $0.p0) },
                  beaconHeightOffset: s.beacons.map { s.radio.heightOffset(beaconHeight: $0.height) },
                  landmarks: s.landmarks, rooms: s.rooms, walls: s.walls)
        let field = condition.impairments(s.radio)
        body = field.body
        beaconSpread = field.beaconP0Sigma
    }

    public var beaconCount: Int { beaconPositions.count }

    /// The loss of the walls between beacon `i` and a phone at `p`, dB: through the beacon's fan (``WallIndex``'s
    /// origin `i`), the same value as `walls.loss(from:to:)`.
    public func wallLoss(beacon i: Int, to p: Point) -> Double { walls.loss(fromOrigin: i, to: p) }

    /// The law's mean reading of beacon `i` at `p`, dBm: its P0, n and the 3-D distance (at least 0.1 m: no phone is
    /// nearer a beacon's antenna), less the walls between. What a radio map is a residual from.
    public func lawMean(beacon i: Int, at p: Point) -> Double {
        let c = beaconPositions[i], dz = beaconHeightOffset[i]
        let d = ((p.x - c.x) * (p.x - c.x) + (p.y - c.y) * (p.y - c.y) + dz * dz).squareRoot()
        return radio.meanRSSI(distance: max(d, 0.1), p0: beaconP0[i]) - wallLoss(beacon: i, to: p)
    }

    /// Horizontal range implied by an RSSI (the path-loss law inverted, height removed), metres.
    @inlinable public func horizontalRange(beacon i: Int, rssi: Double) -> Double {
        let d = radio.distance(rssi: rssi, p0: beaconP0[i])
        let dz = beaconHeightOffset[i]
        return dz == 0 ? d : max(d * d - dz * dz, 0).squareRoot()
    }

    /// Room index containing `p`, if any.
    public func roomIndex(at p: Point) -> Int? { rooms.firstIndex { $0.polygon.contains(p) } }

    /// Index of the landmark of `kind` nearest to `p`.
    public func nearestLandmark(to p: Point, kind: Landmark.Kind) -> Int? {
        let list = kind == .frieze ? friezes : exhibits
        return list.min { landmarks[$0].position.distance(to: p) < landmarks[$1].position.distance(to: p) }
    }
}
