import Foundation
internal import LabCore
internal import LocatorEngine

/// Turns what a phone measures — RSSI from beacons (iBeacon, Eddystone-UID or any identifier), distances
/// ranged by UWB, Bluetooth Channel Sounding or Wi-Fi RTT, and compass headings toward friezes — into a
/// position with a 95% uncertainty ellipse, the room and the frieze in view.
///
/// It runs what won IndoorLab's tournament. The one-scan fix (``snapshotEstimatorName``) is maximum likelihood of
/// the position **and the phone's RSSI offset** (phones read many dB weaker or stronger than the one the beacons
/// were calibrated with), with a path-loss model that includes the loss of every wall between beacon and phone,
/// ranges and bearings joining the same likelihood. The stream (``estimatorName``) is a particle filter on the
/// floorplan, started from the first scan's posterior around that fix (below). It is pure Swift (Levenberg–Marquardt
/// on two or three unknowns); the lab checks both against GSL on every epoch of its tournament.
///
/// The offset is learned over the scans: each fix uses what the previous ones said about it
/// (``deviceOffset``), so after a few dozen scans the fit is nearly as good as with a calibrated phone. When
/// the app knows the phone's offset, give it with ``assumeDeviceOffset(_:)``; when another phone takes over,
/// call ``forgetDevice()``. Give it the venue's walls: without them the fit is free-space, which is several
/// times less accurate behind walls.
///
/// **One scan or a stream.** ``locate(rssi:ranges:headings:)`` fixes one scan on its own (the tournament's best
/// snapshot estimator, ``snapshotEstimatorName``). The stream — ``locations(from:)-(Inputs)`` and ``currentLocation(at:)`` —
/// **tracks** the walker (``estimatorName``, the tournament's winner): a particle filter on the floorplan (1,000
/// particles that cannot walk through walls, each with the phone's offset), weighed by each window's RSSI with the
/// walls' losses, by which beacons were heard and which were missed (given ``PathLossModel/sensitivity``), and by
/// ranges; moved by the phone's steps when the app feeds them (``/IndoorLocator/StepSample``). Each location also weighs the scans
/// before it and carries a velocity; the window's own fix stays available as ``Location/snapshot``. Its random draws
/// come from the `seed` given at creation.
///
/// Thread safety: every method may be called from any thread; calls are serialised internally (the
/// solver keeps its workspace between fixes). For parallel throughput, make one locator per thread.
public final class IndoorLocator: @unchecked Sendable {
    /// The name of the tournament's winner, the tracker the stream runs (`EstimatorRegistry.shippedTracker` in the
    /// lab).
    public static let estimatorName = "particle-filter"
    /// The name of the tournament's best snapshot estimator, the one-scan fix (`EstimatorRegistry.shipped` in the lab).
    public static let snapshotEstimatorName = "offset-learning"

    /// The beacons, in the order given.
    public let beacons: [BeaconPlacement]
    /// The radio model in use.
    public let pathLoss: PathLossModel
    /// The friezes headings can point at.
    public let friezes: [Frieze]
    /// The walls whose losses the model includes.
    public let walls: [WallSegment]
    /// The rooms fixes are named after.
    public let rooms: [Room]

    let venue: Venue
    let engine: OffsetFreeFit
    let tracker: ParticleTracker
    let index: [BeaconIdentity: Int]
    /// iBeacon identities packed into integers: comparing them is much cheaper than hashing a UUID.
    let packed: [PackedIBeacon?]
    let lock = NSLock()
    /// Per-beacon accumulators reused by every fix (the lock guards them).
    struct Workspace {
        var sums: [Double] = [], counts: [Int] = []
        var rangeInformation: [Double] = [], rangeWeightedSums: [Double] = []
        var observed: [BeaconObservation] = [], ranged: [MeasuredRange] = []

        init() {}

        /// Sized for `beacons` beacons.
        init(beacons: Int) {
            sums = [Double](repeating: 0, count: beacons)
            counts = [Int](repeating: 0, count: beacons)
            rangeInformation = sums
            rangeWeightedSums = sums
            observed.reserveCapacity(beacons)
            ranged.reserveCapacity(beacons)
        }
    }
    /// Taken out of the locator while a fix fills it (``locateLocked(_:ranges:headings:steps:at:tracked:windowTime:)``),
    /// so that its loops work on a local: each access to a class's stored array is a dynamic exclusivity check
    /// (docs/speed.md, "How and why").
    var workspace = Workspace()
    var stream: [LocatorInput] = []
    var newest = -Double.infinity
    /// Whether the stream has had a step since the phone took over: then a scan window without steps means standing.
    var hasStepDetector = false
    /// Steps added to the stream and not yet used: ``currentLocation(at:)`` passes every one up to the time asked,
    /// however late it came (even after a later step) or however the asks fall, and each goes once a window that
    /// carried it was used (``windowsUsed``: the tracker stepped with it, even when that step gave no fix, or it was
    /// invalid and counted). ``reset()`` and ``forgetDevice()`` drop them; ``restartTrack()`` keeps them (a new
    /// track starts from a fix and moves by the steps after it).
    var pendingSteps: [StepSample] = []
    /// How many stream windows have used their steps up: the tracker moved by them, or (every one invalid, nothing
    /// else heard) they were counted as ignored. An ask that gives the last outcome back uses nothing.
    var windowsUsed = 0
    /// The tracker's last step from the stream: asking again within the same scan window gives it back rather than
    /// counting the same measurements twice.
    var lastTracked: (windowTime: Double, outcome: LocationOutcome)?
    /// The last fix's beacon set and its identities (``beaconsUsed(_:heard:ranged:)``).
    var lastBeaconsUsed: (set: BeaconSet, identities: [BeaconIdentity])?

    /// Creates a locator from beacon placements and a radio model.
    /// - Parameters:
    ///   - beacons: where each beacon is and who it is; at least 3, each identity once.
    ///   - pathLoss: the radio model the beacons were calibrated with (their power at 1 m, the path-loss exponent,
    ///     the shadowing and the receiver's sensitivity).
    ///   - friezes: the friezes or exhibits whose compass headings the app may report; a fix names the one in view.
    ///   - walls: the venue's walls with their losses; the estimator models the loss of each wall a line of
    ///     sight crosses.
    ///   - rooms: the venue's rooms; a fix names the room it falls in.
    ///   - area: the venue's width (x) and depth (y) in metres; fixes are kept inside it. Nil: the
    ///     beacons' bounding box grown by 10 m on each side.
    ///   - radioMap: the venue's radio map, from a survey (``RadioMap``): the stream's tracker expects it. Its beacons must be
    ///     among `beacons`.
    ///   - seed: the stream's tracker draws random numbers (its particles) from this seed: the same seed and the same
    ///     measurements give the same locations.
    /// - Throws: ``/IndoorLocator/LocatorError`` when fewer than 3 beacons are given, an identity repeats or is empty, a value is not
    ///   finite, or the beacons span more than a `Double` can measure.
    public init(beacons: [BeaconPlacement], pathLoss: PathLossModel = PathLossModel(), friezes: [Frieze] = [],
                walls: [WallSegment] = [], rooms: [Room] = [], area: (width: Double, depth: Double)? = nil, radioMap: RadioMap? = nil,
                seed: UInt64 = 0) throws {
        guard beacons.count >= 3 else { throw LocatorError("need at least 3 beacons, got \(beacons.count)") }
        var index: [BeaconIdentity: Int] = [:]
        for (i, b) in beacons.enumerated() {
            if case .name(let s) = b.identity.kind, s.isEmpty { throw LocatorError("beacons[\(i)]: the identity is an empty string") }
            guard index[b.identity] == nil else { throw LocatorError("beacons[\(i)]: identity \(b.identity) is listed twice") }
            guard b.position.x.isFinite, b.position.y.isFinite else { throw LocatorError("beacons[\(i)].position is not finite") }
            guard b.height.map({ $0.isFinite && $0 >= 0 }) ?? true else { throw LocatorError("beacons[\(i)].height must be finite and ≥ 0") }
            guard b.measuredPower?.isFinite ?? true else { throw LocatorError("beacons[\(i)].measuredPower is not finite") }
            index[b.identity] = i
        }
        guard pathLoss.exponent > 0, pathLoss.exponent.isFinite, pathLoss.shadowingSigma >= 0, pathLoss.shadowingSigma.isFinite,
              pathLoss.scanWindow > 0, pathLoss.scanWindow.isFinite, pathLoss.measuredPower.isFinite,
              pathLoss.receiverHeight.isFinite, pathLoss.receiverHeight >= 0, pathLoss.sensitivity?.isFinite ?? true,
              pathLoss.modelError.isFinite, pathLoss.modelError >= 0,
              pathLoss.correlationDistance.map({ $0 > 0 && $0.isFinite }) ?? true,
              pathLoss.advertisingInterval > 0, pathLoss.advertisingInterval.isFinite, pathLoss.packetLoss >= 0, pathLoss.packetLoss < 1,
              pathLoss.dropout >= 0, pathLoss.dropout < 1,
              pathLoss.beaconPowerSigma >= 0, pathLoss.beaconPowerSigma.isFinite, pathLoss.bodyLoss >= 0, pathLoss.bodyLoss.isFinite,
              pathLoss.bodyHalfAngle > 0, pathLoss.bodyHalfAngle <= 180 else {
            throw LocatorError("pathLoss: exponent, scanWindow and advertisingInterval must be positive, shadowingSigma, receiverHeight, "
                               + "modelError, beaconPowerSigma and bodyLoss ≥ 0, packetLoss and dropout in [0, 1), bodyHalfAngle in (0, 180], "
                               + "correlationDistance > 0, all finite (sensitivity too, when given)")
        }
        for (i, f) in friezes.enumerated() where !(f.position.x.isFinite && f.position.y.isFinite) {
            throw LocatorError("friezes[\(i)] ('\(f.name)'): position is not finite")
        }
        for (i, w) in walls.enumerated() where !(w.loss >= 0 && w.loss.isFinite && w.from.x.isFinite && w.from.y.isFinite && w.to.x.isFinite && w.to.y.isFinite) {
            throw LocatorError("walls[\(i)]: loss must be ≥ 0 dB and the ends finite")
        }
        for (i, r) in rooms.enumerated() {
            guard r.outline.count >= 3, r.outline.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
                throw LocatorError("rooms[\(i)] ('\(r.name)'): the outline needs at least 3 finite corners")
            }
        }
        let bounds: Rect
        if let area {
            guard area.width > 0, area.depth > 0, area.width.isFinite, area.depth.isFinite else { throw LocatorError("area: width and depth must be positive and finite") }
            bounds = Rect(minX: 0, minY: 0, maxX: area.width, maxY: area.depth)
        } else {
            let xs = beacons.map(\.position.x), ys = beacons.map(\.position.y)
            bounds = Rect(minX: xs.min()! - 10, minY: ys.min()! - 10, maxX: xs.max()! + 10, maxY: ys.max()! + 10)
            guard bounds.width.isFinite, bounds.height.isFinite else {
                throw LocatorError("beacons: their positions span more than a number can hold; place them in metres from the venue's corner")
            }
        }
        self.beacons = beacons
        self.pathLoss = pathLoss
        self.friezes = friezes
        self.walls = walls
        self.rooms = rooms
        self.index = index
        packed = beacons.map { PackedIBeacon($0.identity) }
        workspace = Workspace(beacons: beacons.count)
        let radio = RadioModel(p0: pathLoss.measuredPower, exponent: pathLoss.exponent, sigma: pathLoss.shadowingSigma,
                               sensitivity: pathLoss.sensitivity ?? -.infinity, advertisingInterval: pathLoss.advertisingInterval,
                               scanWindow: pathLoss.scanWindow, packetLoss: pathLoss.packetLoss,
                               correlationDistance: pathLoss.correlationDistance, receiverHeight: pathLoss.receiverHeight,
                               modelError: pathLoss.modelError, dropout: pathLoss.dropout)
        var venue = Venue(name: "locator", bounds: bounds, radio: radio,
                      beaconIDs: beacons.map(\.identity.description),
                      beaconPositions: beacons.map { Point($0.position.x, $0.position.y) },
                      beaconP0: beacons.map { $0.measuredPower ?? pathLoss.measuredPower },
                      beaconHeightOffset: beacons.map { ($0.height ?? pathLoss.receiverHeight) - pathLoss.receiverHeight },
                      landmarks: friezes.map { Landmark(name: $0.name, kind: .frieze, position: Point($0.position.x, $0.position.y), facing: $0.facing) },
                      rooms: rooms.map { LabCore.Room(name: $0.name, polygon: Polygon($0.outline.map { Point($0.x, $0.y) })) },
                      walls: walls.map { Wall(segment: Segment(Point($0.from.x, $0.from.y), Point($0.to.x, $0.to.y)), loss: $0.loss) })
        venue.seed = seed
        venue.beaconSpread = pathLoss.beaconPowerSigma
        venue.body = BodyShadowing(loss: pathLoss.bodyLoss, halfAngle: pathLoss.bodyHalfAngle)
        if let radioMap {
            if let stranger = radioMap.fields.keys.map(\.description).sorted().first(where: { id in !beacons.contains { $0.identity.description == id } }) {
                throw LocatorError("radioMap: beacon \(stranger) is not among the beacons")
            }
            venue.radioMap = radioMap.engineMap(beacons: beacons)
        }
        self.venue = venue
        engine = OffsetFreeFit(venue: venue, options: .learning, solver: LevenbergMarquardt(finishesWithNewton: true))
        tracker = ParticleTracker(venue: venue, solver: LevenbergMarquardt())
    }

    /// Another locator of the same venue, for another phone: the same beacons, radio model, friezes, walls, rooms and
    /// radio map, and the venue's precomputed grids shared rather than built again (a server locating many phones keeps
    /// one copy of them); its own stream, track and device offset, its particles drawing from `seed`. It gives exactly
    /// what a locator made from the same description with that seed gives.
    public func sibling(seed: UInt64) -> IndoorLocator {
        IndoorLocator(sibling: self, seed: seed)
    }

    private init(sibling other: IndoorLocator, seed: UInt64) {
        beacons = other.beacons; pathLoss = other.pathLoss; friezes = other.friezes; walls = other.walls; rooms = other.rooms
        index = other.index; packed = other.packed
        workspace = Workspace(beacons: beacons.count)
        var venue = other.venue
        venue.seed = seed
        self.venue = venue
        engine = OffsetFreeFit(venue: venue, options: .learning, solver: LevenbergMarquardt(finishesWithNewton: true))
        tracker = ParticleTracker(venue: venue, solver: LevenbergMarquardt(), floorplan: other.tracker.floorplan)
    }

    /// Which frieze a heading taken at `position` points at: the visible frieze whose bearing agrees best.
    public func frieze(inViewFrom position: Position, heading: Double) -> String? {
        FriezeMatcher.bestFrieze(for: heading, from: Point(position.x, position.y), venue: venue).map { venue.landmarks[$0].name }
    }
}
