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

    private let venue: Venue
    private let engine: OffsetFreeFit
    private let tracker: ParticleTracker
    private let index: [BeaconIdentity: Int]
    /// iBeacon identities packed into integers: comparing them is much cheaper than hashing a UUID.
    private let packed: [PackedIBeacon?]
    private let lock = NSLock()
    /// Per-beacon accumulators reused by every fix (the lock guards them).
    private struct Workspace {
        var sums: [Double] = [], counts: [Int] = []
        var rangeInformation: [Double] = [], rangeWeightedSums: [Double] = []
        var observed: [BeaconObservation] = [], ranged: [MeasuredRange] = []
    }
    /// Taken out of the locator while a fix fills it (``locateLocked(_:ranges:headings:steps:at:tracked:windowTime:)``),
    /// so that its loops work on a local: each access to a class's stored array is a dynamic exclusivity check, which
    /// cost a tenth of a fix's time.
    private var workspace = Workspace()
    private var stream: [LocatorInput] = []
    private var newest = -Double.infinity
    /// Whether the stream has had a step since the phone took over: then a scan window without steps means standing.
    private var hasStepDetector = false
    /// Steps added to the stream and not yet used: ``currentLocation(at:)`` passes every one up to the time asked,
    /// however late it came (even after a later step) or however the asks fall, and each goes once a window that
    /// carried it was used (``windowsUsed``: the tracker stepped with it, even when that step gave no fix, or it was
    /// invalid and counted). ``reset()`` and ``forgetDevice()`` drop them; ``restartTrack()`` keeps them (a new
    /// track starts from a fix and moves by the steps after it).
    private var pendingSteps: [StepSample] = []
    /// How many stream windows have used their steps up: the tracker moved by them, or (every one invalid, nothing
    /// else heard) they were counted as ignored. An ask that gives the last outcome back uses nothing.
    private var windowsUsed = 0
    /// The tracker's last step from the stream: asking again within the same scan window gives it back rather than
    /// counting the same measurements twice.
    private var lastTracked: (windowTime: Double, outcome: LocationOutcome)?

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
    ///   - seed: the stream's tracker draws random numbers (its particles) from this seed: the same seed and the same
    ///     measurements give the same locations.
    /// - Throws: ``/IndoorLocator/LocatorError`` when fewer than 3 beacons are given, an identity repeats or is empty, a value is not
    ///   finite, or the beacons span more than a `Double` can measure.
    public init(beacons: [BeaconPlacement], pathLoss: PathLossModel = PathLossModel(), friezes: [Frieze] = [],
                walls: [WallSegment] = [], rooms: [Room] = [], area: (width: Double, depth: Double)? = nil, seed: UInt64 = 0) throws {
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
        workspace.sums = [Double](repeating: 0, count: beacons.count)
        workspace.counts = [Int](repeating: 0, count: beacons.count)
        workspace.rangeInformation = workspace.sums
        workspace.rangeWeightedSums = workspace.sums
        workspace.observed.reserveCapacity(beacons.count)
        workspace.ranged.reserveCapacity(beacons.count)
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
        self.venue = venue
        engine = OffsetFreeFit(venue: venue, options: .learning, solver: LevenbergMarquardt(finishesWithNewton: true))
        tracker = ParticleTracker(venue: venue, solver: LevenbergMarquardt())
    }

    // MARK: - The phone

    /// The phone's offset learned so far (nil before the first fix from RSSI, or after ``forgetDevice()``).
    public var deviceOffset: DeviceOffset? {
        lock.lock(); defer { lock.unlock() }
        return learnedOffset
    }

    /// What the engine has learned, as the public type (call with the lock held).
    private var learnedOffset: DeviceOffset? { engine.learned.map { DeviceOffset(decibels: $0.mean, sigma: $0.variance.squareRoot()) } }

    /// Starts from a known offset of this phone (e.g. measured once against a beacon at 1 m): the fits use it
    /// as a prior with its σ and keep refining it. A σ below 0.001 dB counts as 0.001 dB, one above 100 dB as 100 dB.
    /// - Throws: ``/IndoorLocator/LocatorError`` (and changes nothing) when the offset is not a number within ±100 dB or its σ is not
    ///   a finite number ≥ 0.
    public func assumeDeviceOffset(_ offset: DeviceOffset) throws {
        guard offset.decibels.isFinite, abs(offset.decibels) <= 100 else {
            throw LocatorError("deviceOffset: \(offset.decibels) dB is not an offset a phone has (finite, within ±100 dB)")
        }
        guard offset.sigma.isFinite, offset.sigma >= 0 else { throw LocatorError("deviceOffset: σ \(offset.sigma) dB must be finite and ≥ 0") }
        let sigma = min(max(offset.sigma, 1e-3), 100)
        lock.lock(); defer { lock.unlock() }
        engine.startDevice(offset: (offset.decibels, sigma))
        tracker.startDevice(knownOffset: (offset.decibels, sigma))
        lastTracked = nil
    }

    /// Another phone takes over (or the app wants to start afresh): forget the learned offset and the track.
    public func forgetDevice() {
        lock.lock(); defer { lock.unlock() }
        engine.startDevice()
        tracker.startDevice()
        hasStepDetector = false
        pendingSteps.removeAll()
        lastTracked = nil
    }

    /// The phone was carried elsewhere without the stream seeing it (the app was paused): end the track, keep what
    /// was learned about the phone. A gap of more than 30 s between windows does this by itself.
    public func restartTrack() {
        lock.lock(); defer { lock.unlock() }
        tracker.startTrack()
        engine.startTrack()
        lastTracked = nil
    }

    // MARK: - One scan

    /// Locates from one scan: RSSI samples averaged per beacon (in dBm), ranges combined per beacon (weighted by
    /// 1/σ²), headings toward friezes. Samples from beacons the locator does not know, RSSI 0 (unknown),
    /// positive, below −127 dBm or not finite, and invalid ranges are ignored and counted (``Location/ignored``).
    public func locate(rssi samples: [RSSISample], ranges: [RangeSample] = [], headings: [CompassHeading] = []) -> LocationOutcome {
        lock.lock(); defer { lock.unlock() }
        return locateLocked(samples, ranges: ranges, headings: headings, at: nil, tracked: false)
    }

    /// Locates from one scan of RSSI samples (and headings): ``locate(rssi:ranges:headings:)`` without ranges.
    public func locate(_ samples: [RSSISample], headings: [CompassHeading] = []) -> LocationOutcome {
        lock.lock(); defer { lock.unlock() }
        return locateLocked(samples, ranges: [], headings: headings, at: nil, tracked: false)
    }

    // MARK: - A stream

    /// Adds a measurement to the stream. Measurements older than one scan window before the newest are dropped.
    public func add(_ input: LocatorInput) {
        lock.lock(); defer { lock.unlock() }
        if case .step(let s) = input {
            // Kept until the tracker has moved by it (at most the last 4,096).
            if pendingSteps.count >= 4096 { pendingSteps.removeFirst(pendingSteps.count - 4095) }
            pendingSteps.append(s)
            return
        }
        stream.append(input)
        let t = input.timestamp.timeIntervalSinceReferenceDate
        newest = max(newest, t)
        let cutoff = newest - pathLoss.scanWindow
        // Amortised: only when something is old enough to go (measurements arrive roughly in time order).
        if stream.first.map({ $0.timestamp.timeIntervalSinceReferenceDate < cutoff }) ?? false || stream.count > 4096 {
            stream.removeAll { $0.timestamp.timeIntervalSinceReferenceDate < cutoff }
        }
    }

    /// Adds one RSSI sample to the stream.
    public func add(_ sample: RSSISample) { add(.rssi(sample)) }
    /// Adds one range to the stream.
    public func add(_ range: RangeSample) { add(.range(range)) }
    /// Adds one heading to the stream.
    public func add(_ heading: CompassHeading) { add(.heading(heading)) }
    /// Adds one step to the stream.
    public func add(_ step: StepSample) { add(.step(step)) }

    /// The tracked position from the stream's measurements of the scan window ending at `time`. The track moves on by
    /// one scan per window: asking again less than a window later gives the same location back. One stream per
    /// locator: ``currentLocation(at:)`` and ``locations(from:)-(Inputs)`` step the same track.
    public func currentLocation(at time: Date) -> LocationOutcome {
        lock.lock(); defer { lock.unlock() }
        let to = time.timeIntervalSinceReferenceDate, from = to - pathLoss.scanWindow
        var window = stream.filter { let t = $0.timestamp.timeIntervalSinceReferenceDate; return t > from && t <= to }
        // Every step not yet used up to `to`, not only the window's: a step the pedometer reported late still counts.
        let due: (StepSample) -> Bool = { $0.timestamp.timeIntervalSinceReferenceDate <= to }
        for s in pendingSteps where due(s) { window.append(.step(s)) }
        let used = windowsUsed
        let outcome = locate(window, at: time, windowTime: to)
        if windowsUsed != used { pendingSteps.removeAll(where: due) }
        return outcome
    }

    /// Forgets the stream.
    public func reset() {
        lock.lock(); defer { lock.unlock() }
        stream.removeAll(keepingCapacity: true)
        newest = -.infinity
        pendingSteps.removeAll(); hasStepDetector = false
        tracker.startTrack()
        engine.startTrack()
        lastTracked = nil
    }

    /// Turns a sequence of measurements into a stream of tracked outcomes, one per scan window (``PathLossModel/scanWindow``
    /// seconds of measurement time, windows starting at the first measurement; empty windows give nothing).
    /// The last, partial window gives an outcome when the input ends. Cancelling the consuming task (or
    /// dropping the stream) stops reading the input. The input's errors end the stream.
    public func locations<Inputs: AsyncSequence & Sendable>(from inputs: Inputs) -> AsyncStream<LocationOutcome>
    where Inputs.Element == LocatorInput {
        AsyncStream { continuation in
            let task = Task {
                var window: [LocatorInput] = []
                var start: Double?
                let length = self.pathLoss.scanWindow
                do {
                    for try await input in inputs {
                        if Task.isCancelled { break }
                        let t = input.timestamp.timeIntervalSinceReferenceDate
                        if let s = start, t >= s + length {
                            if !window.isEmpty { continuation.yield(self.locateWindow(window, ending: s + length)) }
                            window.removeAll(keepingCapacity: true)
                            // The next window starts where this one ended, or at this measurement after a gap.
                            start = t < s + 2 * length ? s + length : t
                        }
                        if start == nil { start = t }
                        window.append(input)
                    }
                } catch {}
                if !Task.isCancelled, !window.isEmpty, let s = start { continuation.yield(self.locateWindow(window, ending: s + length)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// ``locations(from:)-(Inputs)`` for a sequence of RSSI samples only.
    public func locations<Samples: AsyncSequence & Sendable>(from samples: Samples) -> AsyncStream<LocationOutcome>
    where Samples.Element == RSSISample {
        locations(from: RSSIInputs(samples: samples))
    }

    /// Which frieze a heading taken at `position` points at: the visible frieze whose bearing agrees best.
    public func frieze(inViewFrom position: Position, heading: Double) -> String? {
        FriezeMatcher.bestFrieze(for: heading, from: Point(position.x, position.y), venue: venue).map { venue.landmarks[$0].name }
    }

    // MARK: - Internals

    private func locateWindow(_ window: [LocatorInput], ending end: Double) -> LocationOutcome {
        lock.lock(); defer { lock.unlock() }
        return locate(window, at: nil, windowTime: end)
    }

    /// Splits a window's mixed measurements and tracks (lock held); `windowTime` is the window's end, seconds since
    /// the reference date (what the tracker predicts across).
    private func locate(_ inputs: [LocatorInput], at time: Date?, windowTime: Double) -> LocationOutcome {
        var samples: [RSSISample] = [], ranges: [RangeSample] = [], headings: [CompassHeading] = [], steps: [StepSample] = []
        for i in inputs {
            switch i {
            case .rssi(let s): samples.append(s)
            case .range(let r): ranges.append(r)
            case .heading(let h): headings.append(h)
            case .step(let s): steps.append(s)
            }
        }
        return locateLocked(samples, ranges: ranges, headings: headings, steps: steps, at: time, tracked: true, windowTime: windowTime)
    }

    /// The index of a beacon identity, or nil when the locator does not know it.
    @inline(__always) private func beaconIndex(_ id: BeaconIdentity) -> Int? {
        if packed.count <= 64, let key = PackedIBeacon(id) {
            for (i, p) in packed.enumerated() where p == key { return i }
            return nil
        }
        return index[id]
    }

    private func locateLocked(_ samples: [RSSISample], ranges: [RangeSample], headings: [CompassHeading], steps: [StepSample] = [],
                              at time: Date?, tracked: Bool, windowTime: Double = 0) -> LocationOutcome {
        var w = Workspace()
        swap(&w, &workspace)
        defer { swap(&w, &workspace) }
        var ignored = IgnoredSamples()
        var newestUsed = -Double.infinity
        // Mean RSSI per known beacon, in dBm, without building intermediate arrays.
        // In place: a sample copied out copies its identity's enum, with its retains, and each write to an array checks
        // that it is not shared (together most of the loop's work).
        w.sums.withUnsafeMutableBufferPointer { sums in
            w.counts.withUnsafeMutableBufferPointer { counts in
                sums.update(repeating: 0); counts.update(repeating: 0)
                samples.withUnsafeBufferPointer { buffer in
                    for k in buffer.indices {
                        guard let i = beaconIndex(buffer[k].beacon) else { ignored.unknownBeacon += 1; continue }
                        let rssi = buffer[k].rssi
                        guard rssi.isFinite else { ignored.notFinite += 1; continue }
                        if rssi == 0 { ignored.rssiUnknown += 1; continue }
                        if rssi > 0 { ignored.rssiPositive += 1; continue }
                        if rssi < RSSISample.weakestRSSI { ignored.rssiTooWeak += 1; continue }
                        sums[i] += rssi
                        counts[i] += 1
                        newestUsed = max(newestUsed, buffer[k].timestamp.timeIntervalSinceReferenceDate)
                    }
                }
            }
        }
        // In the observation's order (strongest first), so that it need not sort a copy.
        w.observed.removeAll(keepingCapacity: true)
        for i in w.sums.indices where w.counts[i] > 0 {
            w.observed.append(BeaconObservation(beacon: i, rssi: w.sums[i] / Double(w.counts[i]), count: w.counts[i]))
            w.observed.withUnsafeMutableBufferPointer { b in
                var k = b.count - 1
                while k > 0, Observation.isHeardBefore(b[k], b[k - 1]) { b.swapAt(k, k - 1); k -= 1 }
            }
        }
        // Ranges per beacon, combined by inverse variance.
        w.ranged.removeAll(keepingCapacity: true)
        if !ranges.isEmpty {
            for i in w.rangeInformation.indices { w.rangeInformation[i] = 0; w.rangeWeightedSums[i] = 0 }
            for r in ranges {
                guard let i = beaconIndex(r.beacon) else { ignored.unknownBeacon += 1; continue }
                guard r.distance.isFinite, r.sigma.isFinite else { ignored.notFinite += 1; continue }
                guard r.distance >= 0, r.sigma > 0 else { ignored.invalidRange += 1; continue }
                let weight = 1 / (r.sigma * r.sigma)
                w.rangeInformation[i] += weight
                w.rangeWeightedSums[i] += weight * r.distance
                newestUsed = max(newestUsed, r.timestamp.timeIntervalSinceReferenceDate)
            }
            for i in w.rangeInformation.indices where w.rangeInformation[i] > 0 {
                w.ranged.append(MeasuredRange(beacon: i, distance: w.rangeWeightedSums[i] / w.rangeInformation[i],
                                            sigma: 1 / w.rangeInformation[i].squareRoot()))
            }
        }
        var hs: [HeadingReading] = []
        for h in headings {
            guard h.degrees.isFinite, h.accuracy.isFinite else { ignored.notFinite += 1; continue }
            var frieze: Int?
            if let name = h.frieze {
                guard let f = venue.landmarks.firstIndex(where: { $0.name == name }) else { ignored.unknownFrieze += 1; continue }
                frieze = f
            }
            hs.append(HeadingReading(t: h.timestamp.timeIntervalSinceReferenceDate, heading: h.degrees, accuracy: h.accuracy, frieze: frieze, target: nil))
            newestUsed = max(newestUsed, h.timestamp.timeIntervalSinceReferenceDate)
        }
        var walked: [StepReading] = []
        for s in steps {
            let step = StepReading(t: s.timestamp.timeIntervalSinceReferenceDate, length: s.length, heading: s.heading,
                                   lengthAccuracy: s.lengthAccuracy, headingAccuracy: s.headingAccuracy)
            guard step.isValid else { ignored.invalidStep += 1; continue }
            walked.append(step)
            newestUsed = max(newestUsed, step.t)
        }
        guard !w.observed.isEmpty || !w.ranged.isEmpty || !hs.isEmpty || (tracked && !walked.isEmpty) else {
            if tracked { windowsUsed += 1 }   // its steps, if any, were all invalid and are counted
            return .unavailable(.noMeasurements, ignored: ignored)
        }
        if tracked, let last = lastTracked, windowTime >= last.windowTime, windowTime < last.windowTime + pathLoss.scanWindow {
            return last.outcome
        }
        if !walked.isEmpty { hasStepDetector = true }
        if tracked { windowsUsed += 1 }
        let observation = Observation(beacons: w.observed, headings: hs, t: tracked ? windowTime : nil,
                                      steps: tracked && hasStepDetector ? walked.sorted { $0.t < $1.t } : nil)
        let snapshot = engine.locate(observation, ranges: w.ranged)
        let outcome = tracked ? tracker.step(observation, ranges: w.ranged) : snapshot
        switch outcome {
        case .noFix(let reason): return .unavailable(LocationUnavailable(reason, heard: w.observed.count + w.ranged.count), ignored: ignored)
        case .fix(let f):
            let p = Position(x: f.position.x, y: f.position.y)
            var location = Location(position: p, timestamp: time ?? Date(timeIntervalSinceReferenceDate: newestUsed),
                                    room: venue.roomIndex(at: f.position).map { venue.rooms[$0].name },
                                    friezeInView: f.frieze.map { venue.landmarks[$0].name },
                                    uncertainty: f.covariance.flatMap(UncertaintyEllipse.init(covariance:)),
                                    deviceOffset: w.observed.isEmpty ? nil : tracked ? tracker.offset.map { DeviceOffset(decibels: $0.mean, sigma: $0.sigma) } : learnedOffset,
                                    beaconsUsed: beaconsUsed(f.beaconsUsed, heard: w.observed, ranged: w.ranged), ignored: ignored)
            if tracked {
                location.velocity = f.velocity.map { Position(x: $0.x, y: $0.y) }
                location.snapshot = snapshot.fix.map { Position(x: $0.position.x, y: $0.position.y) }
                lastTracked = (windowTime, .located(location))
            }
            return .located(location)
        }
    }

    /// The identities behind a fix's beacon set; beyond 128 beacons the set keeps only a count, so then every
    /// beacon heard or ranged in the scan is listed (the shipped estimator uses all of them).
    private func beaconsUsed(_ set: BeaconSet, heard observed: [BeaconObservation], ranged: [MeasuredRange]) -> [BeaconIdentity] {
        // Scans often hear the same beacons as the last: then the last list is given again (an array shares its storage).
        if let last = lastBeaconsUsed, last.set == set { return last.identities }
        var identities: [BeaconIdentity] = []
        identities.reserveCapacity(set.count)
        for i in set { identities.append(beacons[i].identity) }
        guard identities.count == set.count else {   // beyond 128 beacons the set only counts: not cached
            return Array(Set(observed.map(\.beacon) + ranged.map(\.beacon))).sorted().map { beacons[$0].identity }
        }
        lastBeaconsUsed = (set, identities)
        return identities
    }
    /// The last fix's beacon set and its identities (``beaconsUsed(_:heard:ranged:)``).
    private var lastBeaconsUsed: (set: BeaconSet, identities: [BeaconIdentity])?

    /// Internal: the one-scan fix for an already-built observation (used to check the library against the tournament).
    func locate(observation: Observation) -> EstimateOutcome {
        lock.lock(); defer { lock.unlock() }
        return engine.locate(observation)
    }

    /// Internal: the tracker's next fix for an already-built observation (checked against the tournament's particle filter).
    func track(observation: Observation) -> EstimateOutcome {
        lock.lock(); defer { lock.unlock() }
        return tracker.step(observation)
    }
}

extension UncertaintyEllipse {
    /// The 95% ellipse of a 2-D Gaussian with covariance `c`: semi-axes √(χ²₂(0.95)·λ), λ the eigenvalues.
    init?(covariance c: Covariance2) {
        // χ²₂ at confidenceLevel (both are the engine's stated level)
        guard let (a, b, u) = c.ellipse(chiSquare: OffsetFreeFit.chiSquare95) else { return nil }
        var bearing = atan2(u.x, u.y) * 180 / .pi
        bearing = bearing.truncatingRemainder(dividingBy: 180)
        if bearing < 0 { bearing += 180 }
        self.init(semiMajor: a, semiMinor: b, orientation: bearing)
    }
}

extension LocationUnavailable {
    /// The public reason for the engine's.
    init(_ reason: NoFixReason, heard: Int) {
        switch reason {
        case .tooFewBeacons(let h, let n): self = .tooFewBeacons(heard: h, needed: n)
        case .tooFewHeadings(let h, let n): self = .tooFewHeadings(have: h, needed: n)
        case .degenerateGeometry: self = .collinearBeacons(count: heard)
        case .invalidInput(let s), .solverFailed(let s): self = .solverFailed(s)
        }
    }
}

/// An iBeacon identity as two 64-bit words (the UUID) and one (major, minor); nil for other kinds.
struct PackedIBeacon: Equatable {
    let high: UInt64, low: UInt64, majorMinor: UInt32

    init?(_ id: BeaconIdentity) {
        guard case .iBeacon(let uuid, let major, let minor) = id.kind else { return nil }
        (high, low) = withUnsafeBytes(of: uuid.uuid) {
            ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        majorMinor = UInt32(major) << 16 | UInt32(minor)
    }
}

/// An RSSI-sample sequence seen as a measurement sequence.
struct RSSIInputs<Samples: AsyncSequence & Sendable>: AsyncSequence, Sendable where Samples.Element == RSSISample {
    typealias Element = LocatorInput
    let samples: Samples
    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Samples.AsyncIterator
        mutating func next() async throws -> LocatorInput? { try await base.next().map { .rssi($0) } }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: samples.makeAsyncIterator()) }
}
