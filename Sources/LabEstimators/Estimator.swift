import LabCore
// The estimate types (Fix, EstimateOutcome, NoFixReason, BeaconSet) live with the fitting maths the shipped
// library shares; every user of the estimators sees them.
@_exported import LocatorEngine

/// One way of turning an epoch's observation into a position.
///
/// Each estimator type describes itself — its command-line name, a one-line summary and the inputs it
/// uses — and is built from a ``Venue``, the way an ArgumentParser command carries its own name and help.
/// ``EstimatorRegistry/all`` lists every type once; option parsing, the tournament, plot styles and the
/// benchmark all read that list.
///
/// Estimators may keep workspaces between calls, so an instance is used by one task at a time; make one
/// per task (``EstimatorKind/make(venue:)``).
public protocol PositionEstimator: AnyObject {
    /// The command-line name, e.g. `least-squares`: unique, kebab-case.
    static var name: String { get }
    /// One line on what the estimator does, for `--help` and README.
    static var summary: String { get }
    /// What it uses of an observation and the venue.
    static var inputs: EstimatorInputs { get }
    /// A new estimator for `venue`.
    init(venue: Venue)
    func locate(_ observation: Observation) -> EstimateOutcome
    /// A new phone starts (a new walk or survey pass, another recording): estimators that learn about the
    /// phone over the scans forget it. The default does nothing.
    func startDevice()
    /// The same phone, moved arbitrarily since its last scan (the next static test point): trackers drop their
    /// track and keep what they learned about the phone. The default does nothing.
    func startTrack()
    /// Every scan of one phone's walk, in order, at once (offline replay, where the future is known): smoothers
    /// use the later scans too. The default locates them one by one.
    func locate(track observations: [Observation]) -> [EstimateOutcome]
}

extension PositionEstimator {
    public func startDevice() {}
    public func startTrack() {}
    public func locate(track observations: [Observation]) -> [EstimateOutcome] { observations.map { locate($0) } }

    /// This estimator's entry in the registry.
    public var kind: EstimatorKind { EstimatorKind(Self.self) }
}

/// What an estimator uses, and the least it needs for a fix.
public struct EstimatorInputs: Sendable, Hashable {
    /// Kinds of input.
    public struct Sources: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Mean RSSI per heard beacon.
        public static let rssi = Sources(rawValue: 1)
        /// Compass headings toward friezes (identified or to be matched).
        public static let headings = Sources(rawValue: 2)
        /// The venue's walls and their losses.
        public static let walls = Sources(rawValue: 4)
        /// A survey of the venue (``Venue/survey``).
        public static let survey = Sources(rawValue: 8)
        /// The scans' order and times along a walk: trackers, which carry the walker from scan to scan.
        public static let motion = Sources(rawValue: 16)
        /// The phone's step detector (pedestrian dead reckoning): steps with their lengths and headings.
        public static let steps = Sources(rawValue: 32)
    }

    /// What it reads.
    public var uses: Sources
    /// The fewest heard beacons that give a fix from RSSI alone; 0 when RSSI alone never does.
    public var minimumBeacons: Int
    /// The fewest headings that give a fix from headings alone; nil when headings alone never do.
    public var minimumHeadings: Int?
    /// True when a fix uses scans after its own (a smoother): it suits offline replay, and no live app can run
    /// it, so it cannot win the tournament (``EstimatorRegistry/shipped`` ships the winner to apps).
    public var offline: Bool
    /// True when its fixes depend on the venue's seed (``Venue/seed``): it draws random numbers (the particle filters).
    /// The others give the same fixes whatever the seed, so a real recording needs scoring with them only once.
    public var draws: Bool

    public init(uses: Sources, minimumBeacons: Int, minimumHeadings: Int? = nil, offline: Bool = false, draws: Bool = false) {
        self.uses = uses; self.minimumBeacons = minimumBeacons; self.minimumHeadings = minimumHeadings; self.offline = offline
        self.draws = draws
    }

    /// "rssi, headings, walls" (for help text and tables).
    public var names: [String] {
        [(Sources.rssi, "rssi"), (.headings, "headings"), (.walls, "walls"), (.survey, "survey"), (.motion, "motion"), (.steps, "steps")].filter { uses.contains($0.0) }.map(\.1)
    }
}

/// An estimator in the registry, by its command-line name: what results, options and baselines refer to.
///
/// Ordered by position in ``EstimatorRegistry/all`` (the leaderboard's tie-break and the plot styles' order).
public struct EstimatorKind: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Position in ``EstimatorRegistry/all``.
    public let index: Int

    /// The kind of a registered estimator type. A type missing from the registry is a programmer error.
    public init(_ type: any PositionEstimator.Type) {
        guard let i = EstimatorRegistry.all.firstIndex(where: { $0 == type }) else {
            preconditionFailure("\(type) is not listed in EstimatorRegistry.all")
        }
        index = i
    }

    /// The registered estimator of that name, or nil.
    public init?(rawValue name: String) {
        guard let i = EstimatorRegistry.all.firstIndex(where: { $0.name == name }) else { return nil }
        index = i
    }

    /// Every registered estimator, in registry order.
    public static var allCases: [EstimatorKind] { EstimatorRegistry.all.indices.map { EstimatorKind(index: $0) } }

    private init(index: Int) { self.index = index }

    public var type: any PositionEstimator.Type { EstimatorRegistry.all[index] }
    /// The command-line name.
    public var rawValue: String { type.name }
    public var summary: String { type.summary }
    public var inputs: EstimatorInputs { type.inputs }
    public var description: String { rawValue }

    /// A new estimator of this kind for `venue`.
    public func make(venue: Venue) -> any PositionEstimator { type.init(venue: venue) }

    public static func < (a: EstimatorKind, b: EstimatorKind) -> Bool { a.index < b.index }

    public init(from decoder: Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let k = EstimatorKind(rawValue: name) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "unknown estimator '\(name)'; known: \(EstimatorKind.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        self = k
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    /// "a, b, c": every registered name, for messages.
    public static var knownNames: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
