import Foundation
import LabCore

/// Simulates what a phone hears and sees in a scenario: RSSI per advertisement, compass headings for
/// look events, and the ground truth of every scan window. Deterministic for a given seed.
///
/// Model per advertisement of beacon i heard at p (docs/scenario-format.md, "How one scan window is simulated"):
///
///     RSSI = P0_i − 10·n·log10(d_i) − Σ wall losses + X,   X ~ N(0, σ²)
///
/// then lost with probability `packetLoss` (and a whole window's of one beacon with probability `dropout`), rounded to whole dBm when `quantize`, dropped below
/// `sensitivity`, and capped at the strongest RSSI a receiver reports (``RadioModel/plausibleRSSI``, +20 dBm). A scan window holds floor(scanWindow / advertisingInterval) advertisements per beacon;
/// the phone is taken to stand still for the window at the epoch's position, which it reaches at the
/// window's middle (so the walk's clock starts half a window before the first waypoint). A QR checkpoint
/// is scanned once per pass: in the first window whose path comes within 1 m of it. With a
/// `correlationDistance`, X is one Gudmundson process per beacon along the walk (correlation
/// exp(−Δ/d_corr) between windows Δ metres apart), shared by the advertisements of one window.
///
/// In the **field** condition the scenario's ``FieldImpairments`` are added (device offset per phone, beacon
/// spread, multipath outliers, body shadowing). Their draws come from streams of their own, so the ideal
/// model's draws — and hence the ideal output — are the same in both conditions.
public struct Simulator: Sendable {
    public let scenario: Scenario
    public let pathLoss: PathLoss
    public let condition: SimulationCondition

    /// Seconds between the headings of one look, stamped from the window's middle on: 0.1 s, closer when `count` of
    /// them would not fit in the window's second half, so that every heading stays in its own window (a recording's
    /// replay puts each reading back in the window its time falls in: spilled into the next, a frieze look would move
    /// scans).
    static func headingSpacing(window: Double, count: Int) -> Double {
        min(0.1, window / 2 / Double(max(count, 1)))
    }

    /// - Throws: ``InputErrors`` when the scenario asks for more work than ``WorkBudget`` allows (the loader
    ///   reports the same with line numbers; this guards scenarios built in code).
    public init(scenario: Scenario, condition: SimulationCondition = .ideal) throws {
        try WorkBudget.check(scenario)
        self.scenario = scenario
        self.pathLoss = PathLoss(scenario: scenario)
        self.condition = condition
    }

    /// The impairments in force: the scenario's in the field condition, none when ideal.
    public var impairments: FieldImpairments { condition.impairments(scenario.radio) }

    /// One phone in the field: its own random stream, its offset, the beacons' true P0 shifts, and the
    /// walker's heading (for body shadowing).
    public struct Phone {
        let rng: RandomSource
        let impairments: FieldImpairments
        /// The device offset δ, dB.
        public var offset: Double
        /// ΔP0 per beacon, dB.
        public let beaconShifts: [Double]
        /// Walker heading, degrees; nil = no body shadowing.
        public var heading: Double?
    }

    /// The phone of a walk or grid pass, or nil in the ideal condition.
    /// - Parameter stream: names the phone ("walk:NAME" or "grid").
    public func phone(seed: UInt64, stream: String) -> Phone? {
        let f = impairments
        guard !f.isNone else { return nil }
        let rng = RandomSource(seed: seed, stream: RandomSource.stream("field:" + stream))
        let offset = f.deviceOffset + (f.deviceOffsetSigma > 0 ? rng.gaussian(sigma: f.deviceOffsetSigma) : 0)
        return Phone(rng: rng, impairments: f, offset: offset, beaconShifts: beaconShifts(seed: seed), heading: nil)
    }

    /// Each beacon's true P0 minus its configured one in the field condition (one draw per beacon per seed), dB.
    public func beaconShifts(seed: UInt64) -> [Double] {
        let f = impairments
        guard f.beaconP0Sigma > 0 else { return [Double](repeating: 0, count: pathLoss.beaconCount) }
        let rng = RandomSource(seed: seed, stream: RandomSource.stream("field:beacons"))
        return (0..<pathLoss.beaconCount).map { _ in rng.gaussian(sigma: f.beaconP0Sigma) }
    }

    /// Gudmundson shadowing state along one walk: one value per beacon and where it was drawn.
    public struct ShadowState {
        var values: [Double]
        var position: Point?
        public init(beacons: Int) { values = [Double](repeating: 0, count: beacons); position = nil }
    }

    /// Simulates one scan window with the phone at `p`, appending the readings heard to `out`.
    /// - Returns: the number of readings appended.
    @discardableResult
    public func scan(at p: Point, startTime t0: Double, rng: RandomSource, shadow: inout ShadowState?,
                     phone: Phone? = nil, into out: inout [RSSIReading]) -> Int {
        let radio = scenario.radio
        let n = pathLoss.beaconCount
        let k = radio.advertisementsPerWindow
        let sigma = radio.sigma
        let loss = radio.packetLoss
        let interval = radio.advertisingInterval
        let start = out.count

        if var state = shadow, let dc = radio.correlationDistance {
            // Advance each beacon's shadowing by the distance moved since the last window.
            if let last = state.position {
                let rho = exp(-last.distance(to: p) / dc)
                let innovation = (1 - rho * rho).squareRoot()
                for i in 0..<n { state.values[i] = rho * state.values[i] + innovation * rng.gaussian(sigma: sigma) }
            } else {
                for i in 0..<n { state.values[i] = rng.gaussian(sigma: sigma) }
            }
            state.position = p
            shadow = state
        }

        for i in 0..<n {
            var mean = pathLoss.meanRSSI(beacon: i, at: p)
            var outlierRate = 0.0, outlierScale = 0.0
            if let phone {
                let f = phone.impairments
                mean += phone.offset + phone.beaconShifts[i]
                // The bearing (an atan2) is only worth computing when there is a body loss to apply.
                if !f.body.isNone, let h = phone.heading, f.body.blocks(heading: h, bearing: Bearing.degrees(from: p, to: pathLoss.beaconPosition(i))) {
                    mean -= f.body.loss
                }
                outlierRate = f.outlierRate; outlierScale = f.outlierScale
            }
            let fixedShadow = shadow?.values[i]
            // The receiver reports nothing of this beacon in this window (no draw at all when there is no dropout, so
            // scenarios without one keep their readings).
            if radio.dropout > 0 && rng.uniform() < radio.dropout { continue }
            let phase = interval * Double(i) / Double(n)
            for j in 0..<k {
                if loss > 0 && rng.uniform() < loss { continue }
                var rssi = mean + (fixedShadow ?? rng.gaussian(sigma: sigma))
                if outlierRate > 0, let phone, phone.rng.uniform() < outlierRate { rssi += phone.rng.gaussian(sigma: outlierScale) }
                if radio.quantize { rssi = rssi.rounded() }
                if rssi < radio.sensitivity { continue }
                // A receiver saturates: nothing reads above the strongest RSSI one reports (a loud beacon at 0.3 m
                // can draw +41 dBm, which no recording could store).
                rssi = min(rssi, RadioModel.plausibleRSSI.upperBound)
                out.append(RSSIReading(beacon: i, t: t0 + Double(j) * interval + phase, rssi: rssi))
            }
        }
        // Keep readings in time order (slot-major), as a phone would log them.
        if k > 1 { out[start...].sort { $0.t < $1.t } }
        return out.count - start
    }

    /// Simulates a walk, one epoch per scan window, with a look epoch at each look event and the epochs of each
    /// pause; with the scenario's ``PDRModel``, each epoch carries the steps taken since the previous one.
    public func simulate(walk: Walk, seed: UInt64) -> [Epoch] {
        let rng = RandomSource(seed: seed, stream: RandomSource.stream("walk:" + walk.name))
        let window = scenario.radio.scanWindow
        let bias = scenario.compass.bias + (scenario.compass.biasSigma > 0 ? rng.gaussian(sigma: scenario.compass.biasSigma) : 0)
        var shadow: ShadowState? = scenario.radio.correlationDistance != nil ? ShadowState(beacons: pathLoss.beaconCount) : nil
        var phone = self.phone(seed: seed, stream: "walk:" + walk.name)
        let path = WalkPath(walk)
        var speed = WalkSpeed(walk: walk, window: window, seed: seed)
        var pedometer = scenario.pdr.map { Pedometer(model: $0, path: path, walk: walk.name, seed: seed, startTime: window / 2) }
        var epochs: [Epoch] = []
        var t = 0.0
        var previous: Point?
        var lastCheckpoint: Int?
        /// Where the walker is along the path (arc length) at the last epoch, and its speed since then.
        var walked = 0.0
        var pace = speed.current

        /// `heading`: where the walker faces (the walking direction, or the first frieze looked at).
        /// `arc`: the epoch's arc length along the path (the pedometer's steps since the last epoch end there).
        func emit(_ p: Point, arc: Double, look: LookEvent?, heading walkerHeading: Double?) {
            var readings: [RSSIReading] = []
            readings.reserveCapacity(pathLoss.beaconCount * scenario.radio.advertisementsPerWindow)
            phone?.heading = walkerHeading
            scan(at: p, startTime: t, rng: rng, shadow: &shadow, phone: phone, into: &readings)
            let mid = t + window / 2
            var headings: [HeadingReading] = []
            if let look {
                let spacing = Simulator.headingSpacing(window: window, count: look.friezes.count)
                for (k, name) in look.friezes.enumerated() {
                    guard let target = scenario.landmarks.firstIndex(where: { $0.name == name && $0.kind == .frieze }) else { continue }
                    headings.append(heading(from: p, to: target, t: mid + spacing * Double(k), bias: bias,
                                            identified: look.identified, rng: rng))
                }
            }
            var steps: [StepReading] = []
            if !epochs.isEmpty { pedometer?.walk(from: walked, to: arc, t0: mid - window, t1: mid, speed: pace, into: &steps) }
            walked = arc
            // Registered once per pass: not again while the path stays near the same code.
            let near = checkpointPassed(from: previous ?? p, to: p)
            let checkpoint = near != lastCheckpoint ? near : nil
            lastCheckpoint = near
            epochs.append(Epoch(walk: walk.name, index: epochs.count, t: mid, truth: p,
                                room: scenario.roomIndex(at: p), readings: readings, headings: headings,
                                checkpoint: checkpoint, steps: pedometer == nil ? nil : steps))
            previous = p
            t += window
        }
        /// The epochs of the walker standing at `p` (path vertex `v`): look events, then pauses.
        func stop(at v: Int, _ p: Point, facing walking: Double?) {
            guard let j = path.waypoints[v] else { return }
            for look in walk.looks where look.waypoint == j {
                emit(p, arc: path.arc[v], look: look, heading: facing(look) ?? walking)
                pedometer?.stand(at: path.arc[v])
            }
            for pause in walk.pauses where pause.waypoint == j {
                for _ in 0..<Int((pause.seconds / window).rounded(.up)) {
                    emit(p, arc: path.arc[v], look: nil, heading: walking)
                    pedometer?.stand(at: path.arc[v])
                }
            }
        }

        guard let first = path.points.first else { return [] }
        func facing(_ look: LookEvent) -> Double? {
            look.friezes.first.flatMap { name in scenario.landmarks.first { $0.name == name } }.map { Bearing.degrees(from: previous ?? first, to: $0.position) }
        }
        var walking: Double? = path.points.count > 1 ? Bearing.degrees(from: first, to: path.points[1]) : nil
        emit(first, arc: 0, look: nil, heading: walking)
        stop(at: 0, first, facing: walking)
        var carry = pace * window
        for j in 1..<max(path.points.count, 1) {
            let a = path.points[j - 1], b = path.points[j]
            let len = a.distance(to: b)
            if len > 0 { walking = Bearing.degrees(from: a, to: b) }
            var s = carry
            while s < len {
                emit(a + (b - a) * (s / len), arc: path.arc[j - 1] + s, look: nil, heading: walking)
                pace = speed.next()
                s += pace * window
            }
            carry = s - len
            if walk.stops(at: path.waypoints[j] ?? -1) {
                stop(at: j, b, facing: walking)
                carry = pace * window
            }
        }
        if let last = path.points.last, previous != last { emit(last, arc: path.length, look: nil, heading: walking) }
        return epochs
    }

    /// Simulates one independent scan window at each static test point (stream = point number).
    /// Where the venue has friezes, the user also takes headings toward up to three visible ones.
    /// In the field, one phone makes the whole pass and faces a random way at each point.
    public func simulate(points: [Point], seed: UInt64) -> [Epoch] {
        simulate(points: points, seed: seed, stream: "point", phone: phone(seed: seed, stream: "grid"))
    }

    /// A survey of `points` for fingerprinting: the same venue as `seed` (in the field, the same beacon spread),
    /// other noise draws, and the calibration phone (δ = 0), as a site survey is made.
    public func survey(points: [Point], seed: UInt64) -> [Epoch] {
        var surveyor = phone(seed: seed, stream: "survey")
        surveyor?.offset = 0
        return simulate(points: points, seed: seed, stream: "survey-point", phone: surveyor)
    }

    private func simulate(points: [Point], seed: UInt64, stream: String, phone initial: Phone?) -> [Epoch] {
        var epochs: [Epoch] = []
        epochs.reserveCapacity(points.count)
        var readings: [RSSIReading] = []
        var phone = initial
        for (i, p) in points.enumerated() {
            let rng = RandomSource(seed: seed, stream: RandomSource.stream(stream, i))
            var shadow: ShadowState? = scenario.radio.correlationDistance != nil ? ShadowState(beacons: pathLoss.beaconCount) : nil
            readings.removeAll(keepingCapacity: true)
            if phone != nil { phone!.heading = 360 * phone!.rng.uniform() }
            scan(at: p, startTime: 0, rng: rng, shadow: &shadow, phone: phone, into: &readings)
            let bias = scenario.compass.bias + (scenario.compass.biasSigma > 0 ? rng.gaussian(sigma: scenario.compass.biasSigma) : 0)
            let visible = scenario.landmarks.indices
                .filter { scenario.landmarks[$0].kind == .frieze && scenario.landmarks[$0].isVisible(from: p) }
                .sorted { scenario.landmarks[$0].position.distance(to: p) < scenario.landmarks[$1].position.distance(to: p) }
                .prefix(3)
            let spacing = Simulator.headingSpacing(window: scenario.radio.scanWindow, count: visible.count)
            let headings = visible.enumerated().map { k, target in
                heading(from: p, to: target, t: scenario.radio.scanWindow / 2 + spacing * Double(k), bias: bias, identified: true, rng: rng)
            }
            epochs.append(Epoch(walk: nil, index: i, t: scenario.radio.scanWindow / 2, truth: p,
                                room: scenario.roomIndex(at: p), readings: readings, headings: headings))
        }
        return epochs
    }

    /// Cell centres of a square grid (the scenario's `test_grid` spacing) that fall inside a room,
    /// or inside the bounds when the scenario has no rooms.
    public func testPoints(spacing: Double? = nil) -> [Point] {
        scenario.walkableGrid(spacing: spacing ?? scenario.testGridSpacing)
    }

    private func heading(from p: Point, to target: Int, t: Double, bias: Double, identified: Bool, rng: RandomSource) -> HeadingReading {
        let sigma = scenario.compass.sigma
        let truth = Bearing.degrees(from: p, to: scenario.landmarks[target].position)
        let h = Bearing.normalise(truth + bias + (sigma > 0 ? rng.gaussian(sigma: sigma) : 0))
        return HeadingReading(t: t, heading: h, accuracy: sigma, frieze: identified ? target : nil, target: target)
    }

    /// The checkpoint whose QR code lies within 1 m of the path from `a` to `b`, if any.
    private func checkpointPassed(from a: Point, to b: Point) -> Int? {
        let seg = Segment(a, b)
        return scenario.checkpoints.indices.min {
            seg.distance(to: scenario.checkpoints[$0].position) < seg.distance(to: scenario.checkpoints[$1].position)
        }.flatMap { seg.distance(to: scenario.checkpoints[$0].position) <= 1.0 ? $0 : nil }
    }
}
