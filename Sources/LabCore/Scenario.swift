import Foundation

/// A venue and everything the lab knows about it: floorplan, radio model, beacons, landmarks, walks.
///
/// Loaded from YAML by ``ScenarioLoader``; the format is documented in `docs/scenario-format.md`.
public struct Scenario: Sendable, Hashable {
    public var name: String
    public var description: String
    /// The floorplan's extent: x in [0, width], y in [0, depth], metres.
    public var bounds: Rect
    /// Attenuation per material, dB per wall crossed.
    public var materials: [String: Double]
    public var rooms: [Room]
    public var walls: [Wall]
    public var radio: RadioModel
    public var beacons: [Beacon]
    public var landmarks: [Landmark]
    public var checkpoints: [Checkpoint]
    public var walks: [Walk]
    public var compass: CompassModel
    /// The phone's pedestrian dead-reckoning sensors (step detector and compass per step) on walks; nil = none.
    public var pdr: PDRModel?
    /// Spacing of the static test grid the tournament lays over the rooms, metres.
    public var testGridSpacing: Double

    public init(name: String, description: String = "", bounds: Rect, materials: [String: Double] = Scenario.defaultMaterials,
                rooms: [Room] = [], walls: [Wall] = [], radio: RadioModel = RadioModel(), beacons: [Beacon],
                landmarks: [Landmark] = [], checkpoints: [Checkpoint] = [], walks: [Walk] = [],
                compass: CompassModel = CompassModel(), pdr: PDRModel? = nil, testGridSpacing: Double = 2) {
        self.name = name; self.description = description; self.bounds = bounds; self.materials = materials
        self.rooms = rooms; self.walls = walls; self.radio = radio; self.beacons = beacons
        self.landmarks = landmarks; self.checkpoints = checkpoints; self.walks = walks; self.compass = compass
        self.pdr = pdr; self.testGridSpacing = testGridSpacing
    }

    /// Typical single-wall losses at 2.4 GHz, dB.
    public static let defaultMaterials: [String: Double] = [
        "drywall": 3.4, "concrete": 6.9, "glass": 2.0, "brick": 5.0, "wood": 2.8, "metal": 10.0,
    ]

    public var friezes: [Landmark] { landmarks.filter { $0.kind == .frieze } }
    public var exhibits: [Landmark] { landmarks.filter { $0.kind == .exhibit } }

    /// Index of the room containing `p`, if any (first match wins).
    public func roomIndex(at p: Point) -> Int? {
        rooms.firstIndex { $0.polygon.contains(p) }
    }

    public func walk(named name: String) -> Walk? { walks.first { $0.name == name } }

    /// True where a person can stand: inside a room, or anywhere in the bounds when there are no rooms.
    public func isWalkable(_ p: Point) -> Bool {
        rooms.isEmpty ? bounds.contains(p, tolerance: 0) : roomIndex(at: p) != nil
    }

    /// Cell centres of a square grid with the given spacing that are walkable: the static test points.
    public func walkableGrid(spacing g: Double) -> [Point] {
        var pts: [Point] = []
        var y = bounds.minY + g / 2
        while y < bounds.maxY {
            var x = bounds.minX + g / 2
            while x < bounds.maxX {
                let p = Point(x, y)
                if isWalkable(p) { pts.append(p) }
                x += g
            }
            y += g
        }
        return pts
    }
}

/// A room: a named polygon belonging to an area (floor, wing, garden…).
public struct Room: Sendable, Hashable {
    public var name: String
    public var area: String
    public var polygon: Polygon
    public init(name: String, area: String = "", polygon: Polygon) {
        self.name = name; self.area = area; self.polygon = polygon
    }
}

/// A wall segment; a line of sight crossing it loses `loss` dB.
public struct Wall: Sendable, Hashable {
    public var segment: Segment
    public var material: String?
    public var loss: Double
    public init(segment: Segment, material: String? = nil, loss: Double) {
        self.segment = segment; self.material = material; self.loss = loss
    }
}

/// Log-distance path loss with log-normal shadowing, plus the receiver's limits.
///
///     RSSI(d) = P0 − 10·n·log10(d / 1 m) − Σ wall losses + X,   X ~ N(0, σ²)
public struct RadioModel: Sendable, Hashable {
    /// RSSI a receiver can report, dBm: readings (importers and recordings check them) and P0.
    public static let plausibleRSSI: ClosedRange<Double> = -150...20
    /// What a scenario may state: P0 a receiver can report, an exponent between a waveguide's and a dense
    /// building's with room to spare (1.6–3.5 indoors, 2 in free space), a σ under any measured shadowing.
    public static let plausibleP0 = plausibleRSSI
    public static let plausibleExponent: ClosedRange<Double> = 0.5...10
    public static let plausibleSigma: ClosedRange<Double> = 0...30
    /// The model error a calibration can measure: as σ.
    public static let plausibleModelError = plausibleSigma
    /// A phone's or a beacon's height above the floor, metres: up to a tall atrium's ceiling.
    public static let plausibleHeight: ClosedRange<Double> = 0...100

    /// RSSI at 1 m, dBm (iBeacon "measured power").
    public var p0: Double
    /// Path-loss exponent n (2 in free space, 1.6–3.5 indoors).
    public var exponent: Double
    /// Shadowing standard deviation σ, dB.
    public var sigma: Double
    /// Readings weaker than this (dBm) are not heard.
    public var sensitivity: Double
    /// Round RSSI to whole dBm, as phones report it.
    public var quantize: Bool
    /// Time between a beacon's advertisements, seconds.
    public var advertisingInterval: Double
    /// Length of one scan window (one epoch), seconds.
    public var scanWindow: Double
    /// Probability that one advertisement is lost.
    public var packetLoss: Double
    /// Probability that a scan window reports nothing of a beacon however strongly it reads (the receiver busy, a
    /// throttled or duty-cycled scan, a phone that reports one reading per scan and often none): the whole window's
    /// advertisements of that beacon go missing together. 0 by default; `calibrate` measures it on a recording (a UJI
    /// phone missed 60% of its beacons' windows near or far). Estimators that weigh a missed beacon
    /// take it as the least chance of a miss.
    public var dropout: Double
    /// Gudmundson decorrelation distance of the shadowing, metres; nil = independent draws.
    public var correlationDistance: Double?
    /// Height of the phone above the floor, metres (matters only for beacons with a height).
    public var receiverHeight: Double
    /// The model error σ_m, dB: how far each beacon's mean RSSI in a scan window may sit from the path-loss law
    /// for reasons that averaging the window's readings does not remove (the beacon's own P0, the walker's body,
    /// a path the model does not know). Estimators weight a beacon heard k times by 1/√(σ²/k + σ_m²), and
    /// their stated uncertainty grows with it. The simulator draws nothing from it: it is what the estimators
    /// allow for. 0 by default; `calibrate` measures it on a recording; the field condition adds
    /// ``FieldImpairments/modelError`` (``withModelError(adding:)``).
    public var modelError: Double
    /// What the field condition adds (``FieldImpairments``); the ideal condition ignores it.
    public var field: FieldImpairments

    public init(p0: Double = -59, exponent: Double = 2.0, sigma: Double = 4.0, sensitivity: Double = -100,
                quantize: Bool = true, advertisingInterval: Double = 0.1, scanWindow: Double = 1.0,
                packetLoss: Double = 0, correlationDistance: Double? = nil, receiverHeight: Double = 1.2,
                modelError: Double = 0, dropout: Double = 0, field: FieldImpairments = .realistic) {
        self.p0 = p0; self.exponent = exponent; self.sigma = sigma; self.sensitivity = sensitivity
        self.quantize = quantize; self.advertisingInterval = advertisingInterval; self.scanWindow = scanWindow
        self.packetLoss = packetLoss; self.correlationDistance = correlationDistance; self.receiverHeight = receiverHeight
        self.modelError = modelError; self.dropout = dropout; self.field = field
    }

    /// This model with `extra` added to its model error in quadrature (independent sources of misfit).
    public func withModelError(adding extra: Double) -> RadioModel {
        var r = self
        r.modelError = (modelError * modelError + extra * extra).squareRoot()
        return r
    }

    /// Advertisements a beacon sends in one scan window (at least one; capped at 10⁹ so no ratio traps the
    /// conversion — ``WorkBudget`` refuses far fewer).
    public var advertisementsPerWindow: Int {
        let ratio = (scanWindow / advertisingInterval + 1e-9).rounded(.down)
        return ratio.isNaN ? 1 : max(1, Int(min(ratio, 1e9)))
    }

    /// Mean RSSI at distance `d` metres for a beacon whose 1 m power is `p0`, before walls and noise.
    @inlinable public func meanRSSI(distance d: Double, p0: Double) -> Double {
        p0 - 10 * exponent * log10(max(d, 0.01))
    }

    /// Inverse of the path-loss law: d = 10^((P0 − RSSI) / (10·n)), metres.
    @inlinable public func distance(rssi: Double, p0: Double) -> Double {
        RadioModel.distance(rssi: rssi, p0: p0, exponent: exponent)
    }

    /// d = 10^((P0 − RSSI) / (10·n)), metres: the one RSSI→range conversion of the lab.
    @inlinable public static func distance(rssi: Double, p0: Double, exponent n: Double) -> Double {
        pow(10, (p0 - rssi) / (10 * n))
    }

    /// A beacon's RSSI at 1 m, dBm: its own when it has one, else the radio model's.
    @inlinable public func p0(beacon own: Double?) -> Double { own ?? p0 }

    /// A beacon's height above the phone, metres: its mounting height (the phone's when it has none)
    /// minus the phone's. 0 for the 2-D case.
    @inlinable public func heightOffset(beaconHeight h: Double?) -> Double { (h ?? receiverHeight) - receiverHeight }

    /// Expected number of independent readings of one beacon in a scan window, where its mean RSSI
    /// (walls included) is `mean`:
    ///
    ///     k_eff = k · (1 − packet loss) · (1 − dropout) · P(RSSI ≥ sensitivity),   P = ½·erfc(−(mean − sensitivity) / (σ·√2))
    ///
    /// with k the advertisements per window; with correlated shadowing a window's readings share one draw,
    /// so k_eff = (1 − dropout)·P(heard) (one independent reading). Below half a reading per window the beacon counts as
    /// not heard (0). This is what the √CRLB map and the planner count.
    public func expectedIndependentReadings(meanRSSI mean: Double) -> Double {
        let s = max(sigma, FisherInformation.minimumSigmaDB)
        let k = correlationDistance != nil ? 1 : Double(advertisementsPerWindow) * (1 - packetLoss)
        let heard = 0.5 * erfc(-(mean - sensitivity) / (s * 2.0.squareRoot()))
        let kEff = k * heard * (1 - dropout)
        return kEff < 0.5 ? 0 : kEff
    }
}

/// An iBeacon at a known position.
public struct Beacon: Sendable, Hashable, Codable {
    public var id: String
    public var uuid: String?
    public var major: Int?
    public var minor: Int?
    public var position: Point
    /// Mounting height above the floor, metres; nil = the phone's height (2-D geometry).
    public var height: Double?
    /// This beacon's RSSI at 1 m, overriding the radio model's.
    public var p0: Double?

    public init(id: String, uuid: String? = nil, major: Int? = nil, minor: Int? = nil, position: Point,
                height: Double? = nil, p0: Double? = nil) {
        self.id = id; self.uuid = uuid; self.major = major; self.minor = minor
        self.position = position; self.height = height; self.p0 = p0
    }
}

/// Something a visitor looks at: an exhibit or a frieze.
public struct Landmark: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable { case exhibit, frieze }
    public var name: String
    public var kind: Kind
    public var position: Point
    /// Compass heading the landmark's face looks toward, degrees; nil = visible from all sides.
    public var facing: Double?
    /// Width of the landmark, metres.
    public var width: Double

    public init(name: String, kind: Kind, position: Point, facing: Double? = nil, width: Double = 1) {
        self.name = name; self.kind = kind; self.position = position; self.facing = facing; self.width = width
    }

    /// True when `p` stands in front of the landmark's face (or the landmark has no face).
    public func isVisible(from p: Point) -> Bool {
        guard let facing else { return true }
        let toViewer = Bearing.degrees(from: position, to: p)
        return abs(Bearing.difference(toViewer, facing)) < 90
    }
}

/// A QR code at a known spot: scanning it gives an exact position fix.
public struct Checkpoint: Sendable, Hashable {
    public var id: String
    public var position: Point
    public init(id: String, position: Point) { self.id = id; self.position = position }
}

/// A path a user walks at constant speed through waypoints, pausing to look at friezes.
public struct Walk: Sendable, Hashable {
    public var name: String
    public var waypoints: [Point]
    /// Mean walking speed, metres per second.
    public var speed: Double
    /// Standard deviation of the walking speed about `speed`, m/s: an Ornstein–Uhlenbeck process with
    /// ``speedCorrelationTime`` (0 = constant speed).
    public var speedSigma: Double
    /// The walker starts turning this far before a waypoint where it does not stop, and ends this far after it, on a
    /// parabolic arc tangent to both legs (at most half of either leg), metres; 0 = sharp corners.
    public var turnDistance: Double
    public var looks: [LookEvent]
    /// Stops at waypoints (exhibits, checkpoints).
    public var pauses: [Pause]
    public init(name: String, waypoints: [Point], speed: Double = 1.0, speedSigma: Double = 0, turnDistance: Double = 0,
                looks: [LookEvent] = [], pauses: [Pause] = []) {
        self.name = name; self.waypoints = waypoints; self.speed = speed; self.speedSigma = speedSigma
        self.turnDistance = turnDistance; self.looks = looks; self.pauses = pauses
    }

    /// How long a walker's speed stays above or below its mean, seconds (the speed process's correlation time).
    public static let speedCorrelationTime = 10.0
    /// The speed process is kept within [speed × (1 − this), speed × (1 + this)].
    public static let speedExcursion = 0.5

    /// The speeds the walker can reach: ± ``speedExcursion`` about `speed` when it varies, `speed` alone otherwise.
    public var speedBounds: ClosedRange<Double> {
        speedSigma > 0 ? speed * (1 - Walk.speedExcursion)...speed * (1 + Walk.speedExcursion) : speed...speed
    }

    public var length: Double {
        zip(waypoints, waypoints.dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) }
    }

    /// Whether the walker stops at waypoint `j` (a look or a pause): its corner stays sharp.
    public func stops(at j: Int) -> Bool {
        looks.contains { $0.waypoint == j } || pauses.contains { $0.waypoint == j }
    }
}

/// The walker stands at waypoint `waypoint` for `seconds` (scanning all the while) before walking on.
public struct Pause: Sendable, Hashable {
    public var waypoint: Int
    public var seconds: Double
    public init(waypoint: Int, seconds: Double) { self.waypoint = waypoint; self.seconds = seconds }
}

/// The phone's pedestrian dead reckoning: a step detector that reports each step with a length and a
/// compass heading. Step length = true length × (1 + scale) + N(0, lengthSigma²), the scale drawn once per
/// walk; heading = true direction + bias(t) + N(0, headingSigma²), the bias drawn once per walk and drifting
/// as a random walk.
public struct PDRModel: Sendable, Hashable {
    /// Steps per second while walking (the true step length is speed / cadence).
    public var cadence: Double
    /// Standard deviation of each step's length error, metres.
    public var lengthSigma: Double
    /// Standard deviation of the per-walk step-length scale error (a fraction: 0.05 = 5%).
    public var scaleSigma: Double
    /// Standard deviation of each step's heading error, degrees.
    public var headingSigma: Double
    /// Standard deviation of the heading bias at the start of a walk, degrees.
    public var biasSigma: Double
    /// Random-walk drift of the heading bias, degrees per √second.
    public var biasDrift: Double
    public init(cadence: Double = 1.8, lengthSigma: Double = 0.05, scaleSigma: Double = 0.05, headingSigma: Double = 8,
                biasSigma: Double = 10, biasDrift: Double = 0.3) {
        self.cadence = cadence; self.lengthSigma = lengthSigma; self.scaleSigma = scaleSigma
        self.headingSigma = headingSigma; self.biasSigma = biasSigma; self.biasDrift = biasDrift
    }
}

extension PDRModel {
    /// Each error setting's scenario key, property and largest value (with what the limit is): the loader and
    /// ``WorkBudget`` both check against these. The cadence's range is ``WorkBudget/cadenceRange`` (it sizes work).
    public static var limits: [(key: String, path: WritableKeyPath<PDRModel, Double>, limit: Double, what: String)] {
        [("length_sigma", \.lengthSigma, 1, "1 m per step"), ("scale_sigma", \.scaleSigma, 0.5, "a 50% scale error"),
         ("heading_sigma", \.headingSigma, 180, "180°"), ("bias_sigma", \.biasSigma, 180, "180°"),
         ("bias_drift", \.biasDrift, 10, "10° per √s")]
    }
}

/// At waypoint `at`, the user stops and points the phone at each named frieze in turn.
public struct LookEvent: Sendable, Hashable {
    /// Index into the walk's waypoints.
    public var waypoint: Int
    /// Names of the friezes looked at.
    public var friezes: [String]
    /// Whether the app knows which frieze each heading points at (false: it must be matched).
    public var identified: Bool
    public init(waypoint: Int, friezes: [String], identified: Bool = true) {
        self.waypoint = waypoint; self.friezes = friezes; self.identified = identified
    }
}

/// Compass headings: true bearing + N(0, σ²) + a bias per walk.
public struct CompassModel: Sendable, Hashable {
    /// Standard deviation of a heading reading, degrees.
    public var sigma: Double
    /// Fixed bias added to every heading of a walk, degrees.
    public var bias: Double
    /// Standard deviation of an extra random bias drawn once per walk, degrees (magnetically disturbed rooms).
    public var biasSigma: Double
    public init(sigma: Double = 10, bias: Double = 0, biasSigma: Double = 0) {
        self.sigma = sigma; self.bias = bias; self.biasSigma = biasSigma
    }
}
