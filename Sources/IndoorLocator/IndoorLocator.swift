import Foundation
internal import LabCore
internal import LabEstimators

/// Turns what a phone hears from iBeacons (and, optionally, compass headings toward friezes) into a
/// position with an uncertainty radius.
///
/// It wraps the estimator that won IndoorLab's tournament (see ``estimatorName``): RSSI-domain maximum
/// likelihood of the position **and the phone's RSSI offset** (phones read many dB weaker or stronger than the
/// one the beacons were calibrated with), with a Huber loss against multipath outliers, a path-loss model that
/// includes the loss of every wall between beacon and phone, and bearing residuals when headings are given.
/// The offset is learned over the scans: each fix starts from what the previous ones said about it
/// (``deviceOffset``), so after a few dozen scans the fit is nearly as good as with a calibrated phone. When
/// the app knows the phone's offset, give it with ``assumeDeviceOffset(_:)``; when another phone takes over,
/// call ``forgetDevice()``. Give it the venue's walls: without them the fit is free-space, which is several
/// times less accurate behind walls.
///
/// Thread safety: every method may be called from any thread; calls are serialised internally (the
/// solver keeps its workspace between fixes). For parallel throughput, make one locator per thread.
public final class IndoorLocator: @unchecked Sendable {
    /// The name of the tournament estimator this library ships (``EstimatorRegistry/shipped`` in the lab).
    public static let estimatorName = EstimatorKind.shipped.rawValue

    /// The beacons, in the order given.
    public let beacons: [BeaconPlacement]
    /// The radio model in use.
    public let pathLoss: PathLossModel
    /// The friezes headings can point at.
    public let friezes: [Frieze]
    /// The walls whose losses the model includes.
    public let walls: [WallSegment]

    private let venue: Venue
    private let estimator: OffsetLearningEstimator
    private let index: [BeaconIdentity: Int]
    /// The identities packed into integers: comparing them is much cheaper than hashing a UUID.
    private let packed: [PackedIdentity]
    private let lock = NSLock()
    // Per-beacon accumulators reused by every fix (the lock guards them).
    private var sums: [Double]
    private var counts: [Int]
    private var observed: [BeaconObservation] = []
    private var streamSamples: [RSSISample] = []
    private var streamHeadings: [CompassHeading] = []
    private var newest = -Double.infinity

    /// Creates a locator from beacon placements and a radio model.
    /// - Parameters:
    ///   - area: the venue's width (x) and depth (y) in metres; fixes are kept inside it. Nil: the
    ///     beacons' bounding box grown by 10 m on each side.
    ///   - walls: the venue's walls with their losses; the estimator models the loss of each wall a line of
    ///     sight crosses.
    /// - Throws: ``LocatorError`` when fewer than 3 beacons are given, an identity repeats, or a value is not finite.
    public init(beacons: [BeaconPlacement], pathLoss: PathLossModel = PathLossModel(), friezes: [Frieze] = [],
                walls: [WallSegment] = [], area: (width: Double, depth: Double)? = nil) throws {
        guard beacons.count >= 3 else { throw LocatorError("need at least 3 beacons, got \(beacons.count)") }
        var index: [BeaconIdentity: Int] = [:]
        for (i, b) in beacons.enumerated() {
            guard index[b.identity] == nil else { throw LocatorError("beacons[\(i)]: identity \(b.identity) is listed twice") }
            guard b.position.x.isFinite, b.position.y.isFinite else { throw LocatorError("beacons[\(i)].position is not finite") }
            guard b.height.map({ $0.isFinite && $0 >= 0 }) ?? true else { throw LocatorError("beacons[\(i)].height must be finite and ≥ 0") }
            guard b.measuredPower?.isFinite ?? true else { throw LocatorError("beacons[\(i)].measuredPower is not finite") }
            index[b.identity] = i
        }
        guard pathLoss.exponent > 0, pathLoss.exponent.isFinite, pathLoss.shadowingSigma >= 0, pathLoss.shadowingSigma.isFinite,
              pathLoss.scanWindow > 0, pathLoss.scanWindow.isFinite, pathLoss.measuredPower.isFinite,
              pathLoss.receiverHeight.isFinite, pathLoss.receiverHeight >= 0, pathLoss.sensitivity?.isFinite ?? true else {
            throw LocatorError("pathLoss: exponent and scanWindow must be positive, shadowingSigma and receiverHeight ≥ 0, all finite (sensitivity too, when given)")
        }
        for (i, f) in friezes.enumerated() where !(f.position.x.isFinite && f.position.y.isFinite) {
            throw LocatorError("friezes[\(i)] ('\(f.name)'): position is not finite")
        }
        for (i, w) in walls.enumerated() where !(w.loss >= 0 && w.loss.isFinite && w.from.x.isFinite && w.from.y.isFinite && w.to.x.isFinite && w.to.y.isFinite) {
            throw LocatorError("walls[\(i)]: loss must be ≥ 0 dB and the ends finite")
        }
        let bounds: Rect
        if let area {
            guard area.width > 0, area.depth > 0 else { throw LocatorError("area: width and depth must be positive") }
            bounds = Rect(minX: 0, minY: 0, maxX: area.width, maxY: area.depth)
        } else {
            let xs = beacons.map(\.position.x), ys = beacons.map(\.position.y)
            bounds = Rect(minX: xs.min()! - 10, minY: ys.min()! - 10, maxX: xs.max()! + 10, maxY: ys.max()! + 10)
        }
        self.beacons = beacons
        self.pathLoss = pathLoss
        self.friezes = friezes
        self.walls = walls
        self.index = index
        packed = beacons.map { PackedIdentity($0.identity) }
        sums = [Double](repeating: 0, count: beacons.count)
        counts = [Int](repeating: 0, count: beacons.count)
        observed.reserveCapacity(beacons.count)
        let radio = RadioModel(p0: pathLoss.measuredPower, exponent: pathLoss.exponent, sigma: pathLoss.shadowingSigma,
                               sensitivity: pathLoss.sensitivity ?? -.infinity,
                               scanWindow: pathLoss.scanWindow, receiverHeight: pathLoss.receiverHeight)
        venue = Venue(name: "locator", bounds: bounds, radio: radio,
                      beaconIDs: beacons.map(\.identity.description),
                      beaconPositions: beacons.map { Point($0.position.x, $0.position.y) },
                      beaconP0: beacons.map { $0.measuredPower ?? pathLoss.measuredPower },
                      beaconHeightOffset: beacons.map { ($0.height ?? pathLoss.receiverHeight) - pathLoss.receiverHeight },
                      landmarks: friezes.map { Landmark(name: $0.name, kind: .frieze, position: Point($0.position.x, $0.position.y), facing: $0.facing) },
                      walls: walls.map { Wall(segment: Segment(Point($0.from.x, $0.from.y), Point($0.to.x, $0.to.y)), loss: $0.loss) })
        estimator = OffsetLearningEstimator(venue: venue)
    }

    /// The phone's offset learned so far (nil before the first fix, or after ``forgetDevice()``).
    public var deviceOffset: DeviceOffset? {
        lock.lock(); defer { lock.unlock() }
        return learnedOffset
    }

    /// What the estimator has learned, as the public type (call with the lock held).
    private var learnedOffset: DeviceOffset? { estimator.learnedOffset.map { DeviceOffset(decibels: $0.mean, sigma: $0.sigma) } }

    /// Starts from a known offset of this phone (e.g. measured once against a beacon at 1 m): the fits use it
    /// as a prior with its σ and keep refining it. A σ below 0.001 dB counts as 0.001 dB.
    public func assumeDeviceOffset(_ offset: DeviceOffset) {
        lock.lock(); defer { lock.unlock() }
        estimator.startDevice(knownOffset: offset.decibels, sigma: max(offset.sigma, 1e-3))
    }

    /// Another phone takes over (or the app wants to start afresh): forget the learned offset.
    public func forgetDevice() {
        lock.lock(); defer { lock.unlock() }
        estimator.startDevice()
    }

    /// Locates from one scan: the samples are averaged per beacon (in dBm). Samples from beacons the
    /// locator does not know are ignored, as a phone hears other venues' beacons too.
    /// - Parameter headings: compass headings toward friezes taken during the scan, if any.
    public func locate(_ samples: [RSSISample], headings: [CompassHeading] = []) -> LocationOutcome {
        lock.lock(); defer { lock.unlock() }
        return locateLocked(samples, headings: headings)
    }

    /// Adds one sample to the stream. Samples older than one scan window before the newest are dropped.
    public func add(_ sample: RSSISample) {
        lock.lock(); defer { lock.unlock() }
        streamSamples.append(sample)
        newest = max(newest, sample.timestamp)
        prune(before: newest - pathLoss.scanWindow)
    }

    /// Adds one heading to the stream. Headings older than one scan window before the newest are dropped.
    public func add(_ heading: CompassHeading) {
        lock.lock(); defer { lock.unlock() }
        streamHeadings.append(heading)
        newest = max(newest, heading.timestamp)
        prune(before: newest - pathLoss.scanWindow)
    }

    /// The position from the stream's samples of the last scan window ending at `time`.
    public func currentLocation(at time: Double) -> LocationOutcome {
        lock.lock(); defer { lock.unlock() }
        let from = time - pathLoss.scanWindow
        let samples = streamSamples.filter { $0.timestamp > from && $0.timestamp <= time }
        let headings = streamHeadings.filter { $0.timestamp > from && $0.timestamp <= time }
        return locateLocked(samples, headings: headings)
    }

    /// Forgets the stream.
    public func reset() {
        lock.lock(); defer { lock.unlock() }
        streamSamples.removeAll(keepingCapacity: true)
        streamHeadings.removeAll(keepingCapacity: true)
        newest = -.infinity
    }

    /// Which frieze a heading taken at `position` points at: the visible frieze whose bearing agrees best.
    public func frieze(inViewFrom position: Position, heading: Double) -> String? {
        FriezeMatcher.bestFrieze(for: heading, from: Point(position.x, position.y), venue: venue).map { venue.landmarks[$0].name }
    }

    // MARK: - Internals

    private func prune(before t: Double) {
        // Amortised: only when something is old enough to go (samples arrive roughly in time order).
        if streamSamples.first.map({ $0.timestamp < t }) ?? false || streamSamples.count > 4096 {
            streamSamples.removeAll { $0.timestamp < t }
        }
        if streamHeadings.first.map({ $0.timestamp < t }) ?? false || streamHeadings.count > 256 {
            streamHeadings.removeAll { $0.timestamp < t }
        }
    }

    private func locateLocked(_ samples: [RSSISample], headings: [CompassHeading]) -> LocationOutcome {
        // Mean RSSI per known beacon, in dBm, without building intermediate arrays.
        for i in sums.indices { sums[i] = 0; counts[i] = 0 }
        for s in samples {
            let i: Int
            if packed.count <= 64 {
                let key = PackedIdentity(s.beacon)
                guard let found = packed.firstIndex(of: key) else { continue }
                i = found
            } else {
                guard let found = index[s.beacon] else { continue }
                i = found
            }
            guard s.rssi.isFinite else { return .unavailable(reason: "invalid input: RSSI of \(s.beacon) is not a finite number") }
            sums[i] += s.rssi
            counts[i] += 1
        }
        observed.removeAll(keepingCapacity: true)
        for i in sums.indices where counts[i] > 0 {
            observed.append(BeaconObservation(beacon: i, rssi: sums[i] / Double(counts[i]), count: counts[i]))
        }
        var hs: [HeadingReading] = []
        for h in headings {
            var frieze: Int?
            if let name = h.frieze {
                guard let f = venue.landmarks.firstIndex(where: { $0.name == name }) else {
                    return .unavailable(reason: "invalid input: no frieze named '\(name)'")
                }
                frieze = f
            }
            hs.append(HeadingReading(t: h.timestamp, heading: h.degrees, accuracy: h.accuracy, frieze: frieze, target: nil))
        }
        let observation = Observation(beacons: observed, headings: hs)
        switch estimator.locate(observation) {
        case .noFix(let reason): return .unavailable(reason: reason.description)
        case .fix(let f):
            return .located(Location(position: Position(x: f.position.x, y: f.position.y), uncertainty: f.uncertainty,
                                     beaconsUsed: beaconsUsed(f.beaconsUsed),
                                     friezeInView: f.frieze.map { venue.landmarks[$0].name },
                                     deviceOffset: learnedOffset))
        }
    }

    /// The identities behind a fix's beacon set; beyond 128 beacons the set keeps only a count, so then every
    /// beacon heard in the scan is listed (the shipped estimator uses all of them).
    private func beaconsUsed(_ set: BeaconSet) -> [BeaconIdentity] {
        let listed = Array(set)
        if listed.count == set.count { return listed.map { beacons[$0].identity } }
        return observed.map { beacons[$0.beacon].identity }
    }

    /// Internal: the fix for an already-built observation (used to check the library against the tournament).
    func locate(observation: Observation) -> EstimateOutcome {
        lock.lock(); defer { lock.unlock() }
        return estimator.locate(observation)
    }
}

/// An iBeacon identity as two 64-bit words (the UUID) and one (major, minor).
struct PackedIdentity: Equatable {
    let high: UInt64, low: UInt64, majorMinor: UInt32

    init(_ id: BeaconIdentity) {
        (high, low) = withUnsafeBytes(of: id.uuid.uuid) {
            ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        majorMinor = UInt32(id.major) << 16 | UInt32(id.minor)
    }
}
