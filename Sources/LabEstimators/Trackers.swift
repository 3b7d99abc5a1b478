import LabCore
import LocatorEngine

/// ``KalmanTracker``: an iterated extended Kalman filter over each scan's RSSI, constant velocity, the phone's
/// offset as a state; each fix uses the scans so far.
public final class KalmanEstimator: PositionEstimator {
    public static let name = "ekf"
    public static let summary = "tracker: iterated extended Kalman filter on the RSSI readings, constant velocity, the phone's offset as a state"
    public static let inputs = EstimatorInputs(uses: [.rssi, .headings, .walls, .motion], minimumBeacons: 3, minimumHeadings: 2)
    let tracker: KalmanTracker
    public init(venue: Venue) { tracker = KalmanTracker(venue: venue, solver: GSLLevenbergMarquardt()) }
    public func locate(_ observation: Observation) -> EstimateOutcome { tracker.step(observation) }
    public func startDevice() { tracker.startDevice() }
    public func startTrack() { tracker.startTrack() }
}

/// ``KalmanEstimator``'s filter followed by a Rauch–Tung–Striebel smoother over the whole walk (offline replay:
/// each fix uses the scans before and after it). Scan by scan (``locate(_:)``) it is the filter.
public final class KalmanSmootherEstimator: PositionEstimator {
    public static let name = "ekf-smoother"
    public static let summary = "tracker for offline replay: the ekf filter, then a Rauch-Tung-Striebel smoother over the whole walk"
    public static let inputs = EstimatorInputs(uses: [.rssi, .headings, .walls, .motion], minimumBeacons: 3, minimumHeadings: 2, offline: true)
    let tracker: KalmanTracker
    public init(venue: Venue) { tracker = KalmanTracker(venue: venue, solver: GSLLevenbergMarquardt()) }
    public func locate(_ observation: Observation) -> EstimateOutcome { tracker.step(observation) }
    public func startDevice() { tracker.startDevice() }
    public func startTrack() { tracker.startTrack() }
    public func locate(track observations: [Observation]) -> [EstimateOutcome] { tracker.smoothTrack(observations) }
}

extension EstimatorKind {
    public static let ekf = EstimatorKind(KalmanEstimator.self)
    public static let ekfSmoother = EstimatorKind(KalmanSmootherEstimator.self)
}

/// ``ParticleTracker``: particles on the floorplan (walls block them, doors let them through) weighed by each
/// scan's likelihood with the walls' losses, the phone's offset in every particle; 1,000 particles, systematic
/// resampling regularised by a Gaussian kernel, seeded from the venue's seed; moved by the phone's steps when it has a
/// step detector.
public final class ParticleEstimator: PositionEstimator {
    public static let name = "particle-filter"
    public static let summary = "tracker: 1,000 particles on the floorplan (no wall crossings), the field's likelihood (wall losses, sensitivity, heard and missed beacons, learned beacon errors), the phone's offset per particle, headings toward friezes, a new track from its first scan's posterior, each particle walking or standing (the readings tell which), moved by the phone's steps when it reports them, regularised after each resampling"
    public static let inputs = EstimatorInputs(uses: [.rssi, .walls, .motion, .steps], minimumBeacons: 3, draws: true)
    let tracker: ParticleTracker
    public init(venue: Venue) { tracker = ParticleTracker(venue: venue, solver: GSLLevenbergMarquardt()) }
    public func locate(_ observation: Observation) -> EstimateOutcome { tracker.step(observation) }
    public func startDevice() { tracker.startDevice() }
    public func startTrack() { tracker.startTrack() }
}

/// ``ParticleEstimator``'s filter followed by a fixed-lag smoother over its particles' genealogy (offline replay:
/// each fix uses the scans up to ``lag`` after it). Scan by scan (``locate(_:)``) it is the filter.
public final class ParticleSmootherEstimator: PositionEstimator {
    public static let name = "particle-smoother"
    public static let summary = "tracker for offline replay: the particle filter, then a fixed-lag smoother over the particles' lineages (10 scans)"
    public static let inputs = EstimatorInputs(uses: [.rssi, .walls, .motion, .steps], minimumBeacons: 3, offline: true, draws: true)
    /// How many later scans each fix waits for.
    public static let lag = 10
    let tracker: ParticleTracker
    public init(venue: Venue) { tracker = ParticleTracker(venue: venue, solver: GSLLevenbergMarquardt()) }
    public func locate(_ observation: Observation) -> EstimateOutcome { tracker.step(observation) }
    public func startDevice() { tracker.startDevice() }
    public func startTrack() { tracker.startTrack() }
    public func locate(track observations: [Observation]) -> [EstimateOutcome] { tracker.smoothTrack(observations, lag: Self.lag) }
}

extension EstimatorKind {
    public static let particleFilter = EstimatorKind(ParticleEstimator.self)
    public static let particleSmoother = EstimatorKind(ParticleSmootherEstimator.self)
}
