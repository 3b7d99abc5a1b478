import Foundation
import LabCore
import LabEstimators

/// Where a recording's readings came from.
public enum RecordingSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// `indoorlab record`: a simulated walk through a scenario.
    case simulated
    /// The lab's own CSV format (docs/recordings.md).
    case labCSV = "lab-csv"
    /// UJI BLE RSS database, Geotec zone (Mendoza-Silva et al., Zenodo 10.5281/zenodo.1618692, CC BY 4.0).
    case uji
    /// Position-annotated BLE RSSI tracks (Daniş et al., IEEE Access 2021, CC0).
    case danis
    /// `indoorlab serve`: what a phone streamed to the live service, one session per file.
    case live
}

/// What a recording says about itself: one row of the `recordings` table.
public struct RecordingInfo: Sendable, Hashable {
    public var name: String
    public var source: RecordingSource
    /// Name of the venue (the scenario's name for simulated recordings).
    public var venue: String
    public var created: Date
    public var notes: String
    /// Walk simulated (simulated recordings only).
    public var walk: String?
    /// Seed of the simulation (simulated recordings only).
    public var seed: UInt64?
    /// The scenario YAML the walk was simulated from, verbatim (simulated recordings only).
    public var scenarioYAML: String?
    /// Unix time (s) of t = 0, when the source had absolute times.
    public var timeOrigin: Double?

    public init(name: String, source: RecordingSource, venue: String, created: Date = Date(), notes: String = "",
                walk: String? = nil, seed: UInt64? = nil, scenarioYAML: String? = nil, timeOrigin: Double? = nil) {
        self.name = name; self.source = source; self.venue = venue; self.created = created; self.notes = notes
        self.walk = walk; self.seed = seed; self.scenarioYAML = scenarioYAML; self.timeOrigin = timeOrigin
    }
}

/// A beacon (or, for receiver-side datasets, a fixed receiver serving as an anchor) as stored in a recording.
public struct RecordedBeacon: Sendable, Hashable {
    public var id: String
    public var uuid: String?
    public var major: Int?
    public var minor: Int?
    /// Hardware (MAC) address, when the source gives one.
    public var address: String?
    public var position: Point
    /// Mounting height above the floor, metres; nil = the phone's height.
    public var height: Double?
    /// RSSI at 1 m, dBm; nil = the radio model's.
    public var p0: Double?

    public init(id: String, uuid: String? = nil, major: Int? = nil, minor: Int? = nil, address: String? = nil,
                position: Point, height: Double? = nil, p0: Double? = nil) {
        self.id = id; self.uuid = uuid; self.major = major; self.minor = minor; self.address = address
        self.position = position; self.height = height; self.p0 = p0
    }

    public init(_ b: Beacon) {
        self.init(id: b.id, uuid: b.uuid, major: b.major, minor: b.minor, position: b.position, height: b.height, p0: b.p0)
    }

    public var beacon: Beacon {
        Beacon(id: id, uuid: uuid, major: major, minor: minor, position: position, height: height, p0: p0)
    }
}

/// Everything an estimator may know about the venue of a recording: the radio model, bounds, beacons,
/// landmarks (friezes, exhibits), rooms and walls (with their losses).
public struct RecordedVenue: Sendable, Hashable {
    public var name: String
    public var bounds: Rect
    public var radio: RadioModel
    public var beacons: [RecordedBeacon]
    public var landmarks: [Landmark]
    public var rooms: [Room]
    public var walls: [Wall]
    /// A radio map a fit brings (``RadioFit/applied(to:readings:)``); a recording stores none.
    public var radioMap: RadioMap?

    public init(name: String, bounds: Rect, radio: RadioModel, beacons: [RecordedBeacon], landmarks: [Landmark] = [],
                rooms: [Room] = [], walls: [Wall] = []) {
        self.name = name; self.bounds = bounds; self.radio = radio; self.beacons = beacons
        self.landmarks = landmarks; self.rooms = rooms; self.walls = walls
    }

    public init(scenario s: Scenario) {
        self.init(name: s.name, bounds: s.bounds, radio: s.radio, beacons: s.beacons.map(RecordedBeacon.init),
                  landmarks: s.landmarks, rooms: s.rooms, walls: s.walls)
    }

    /// The estimators' view, built exactly as `Venue(scenario)` builds it (per-beacon P0 falling back to the
    /// radio model's; heights relative to the receiver), so a simulated recording replays bit for bit.
    public var venue: Venue {
        var v = Venue(name: name, bounds: bounds, radio: radio, beaconIDs: beacons.map(\.id), beaconPositions: beacons.map(\.position),
                      beaconP0: beacons.map { radio.p0(beacon: $0.p0) },
                      beaconHeightOffset: beacons.map { radio.heightOffset(beaconHeight: $0.height) },
                      landmarks: landmarks, rooms: rooms, walls: walls)
        v.radioMap = radioMap
        return v
    }

    public func beaconIndex(id: String) -> Int? { beacons.firstIndex { $0.id == id } }
}

/// One ground-truth position.
public struct TruthSample: Sendable, Hashable {
    /// Seconds since the start of the recording.
    public var t: Double
    public var position: Point
    /// Height of the device above the floor, metres, when known.
    public var z: Double?
    public var source: TruthSource
    /// A finite time and coordinates within ±``WorkBudget/maximumExtent`` m (what import writes): the one check of
    /// truth, on write and on read.
    public var isPlausible: Bool {
        let limit = WorkBudget.maximumExtent
        return t.isFinite && abs(position.x) <= limit && abs(position.y) <= limit && (z.map { abs($0) <= limit } ?? true)
    }

    public init(t: Double, position: Point, z: Double? = nil, source: TruthSource) {
        self.t = t; self.position = position; self.z = z; self.source = source
    }
}

/// A stored accuracy figure that replay must keep: error metrics may not grow beyond `value + tolerance`,
/// rates may not fall below `value − tolerance`.
public struct Baseline: Sendable, Hashable, Codable {
    public var estimator: EstimatorKind
    public var metric: BaselineMetric
    public var value: Double
    public var tolerance: Double
    public init(estimator: EstimatorKind, metric: BaselineMetric, value: Double, tolerance: Double) {
        self.estimator = estimator; self.metric = metric; self.value = value; self.tolerance = tolerance
    }

    /// What makes this no baseline replay could have stored, or nil: a finite value (a rate within 0–1, an error
    /// ≥ 0 m) and a finite tolerance ≥ 0. The recording's table and the baselines file are checked alike.
    public var problem: String? {
        guard value.isFinite, tolerance.isFinite, tolerance >= 0 else {
            return "expected a finite value and a tolerance ≥ 0, found value \(Format.number(value)), tolerance \(Format.number(tolerance))"
        }
        if metric.higherIsBetter { return Format.outside(0...1, value).map { "a rate: " + $0 } }
        return value >= 0 ? nil : "an error in metres: expected ≥ 0, found \(Format.number(value))"
    }
}

/// A whole recording in memory: what it is, the venue, the samples, the baselines.
///
/// Samples keep the order they were written in (the order of the source), which is what makes a replay of
/// a simulated walk reproduce the simulator's floating-point sums exactly.
public struct Recording: Sendable {
    public var info: RecordingInfo
    public var venue: RecordedVenue
    public var rssi: [RSSIReading]
    public var headings: [HeadingReading]
    /// The phone's steps (pedestrian dead reckoning), in time order; nil when it has no step detector (no step
    /// samples stored).
    public var steps: [StepReading]?
    public var truth: [TruthSample]
    public var baselines: [Baseline]
    /// A recording read for replay (``RecordingStore/readCondensed(path:)``) holds its readings condensed per scan
    /// window instead of in ``rssi`` (then empty): what the epochs' observations are made of, in memory per window.
    public var condensed: CondensedReadings?

    /// The receiver's floor the readings show (``RadioFit/floor(of:)``), condensed or not.
    public var readingFloor: Double? {
        if let condensed { return condensed.floor }
        return RadioFit.floor(of: rssi)
    }

    public init(info: RecordingInfo, venue: RecordedVenue, rssi: [RSSIReading] = [], headings: [HeadingReading] = [],
                steps: [StepReading]? = nil, truth: [TruthSample] = [], baselines: [Baseline] = []) {
        self.info = info; self.venue = venue; self.rssi = rssi; self.headings = headings; self.steps = steps
        self.truth = truth; self.baselines = baselines
    }
}

/// What was written: counts for the command's summary line.
public struct RecordingSummary: Sendable, Hashable, Codable {
    public var path: String
    public var name: String
    public var beacons: Int
    public var rssiSamples: Int
    public var headingSamples: Int
    /// Steps of the phone's step detector.
    public var stepSamples: Int = 0
    public var truthSamples: Int
    /// Last sample time minus first, seconds.
    public var duration: Double
}
