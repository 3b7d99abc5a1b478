import LabCore
import LocatorEngine

/// ``OffsetFreeFit`` in free space: (x, y, δ), no walls.
public final class OffsetFreeEstimator: PositionEstimator {
    public static let name = "offset-free"
    public static let summary = "maximum likelihood of position and phone offset together (GSL, 3 unknowns), free space"
    public static let inputs = EstimatorInputs(uses: [.rssi, .headings], minimumBeacons: 3, minimumHeadings: 2)
    let fit: OffsetFreeFit
    public init(venue: Venue) { fit = OffsetFreeFit(venue: venue, options: .init(walls: false, robust: false, censored: false), solver: GSLLevenbergMarquardt()) }
    public func locate(_ observation: Observation) -> EstimateOutcome { fit.locate(observation) }
}

/// ``OffsetFreeFit`` with the venue's walls in the model (multi-start).
public final class OffsetFreeFloorplanEstimator: PositionEstimator {
    public static let name = "offset-free-floorplan"
    public static let summary = "offset-free maximum likelihood whose model includes the walls crossed (multi-start)"
    public static let inputs = EstimatorInputs(uses: [.rssi, .headings, .walls], minimumBeacons: 3, minimumHeadings: 2)
    let fit: OffsetFreeFit
    public init(venue: Venue) { fit = OffsetFreeFit(venue: venue, options: .init(walls: true, robust: false, censored: false), solver: GSLLevenbergMarquardt()) }
    public func locate(_ observation: Observation) -> EstimateOutcome { fit.locate(observation) }
}

/// ``OffsetFreeFloorplanEstimator`` with Huber's loss (k = 1.345) by iteratively reweighted least squares:
/// multipath outliers and body shadowing lose their pull.
public final class RobustEstimator: PositionEstimator {
    public static let name = "robust"
    public static let summary = "offset-free floorplan fit with a Huber loss (iteratively reweighted), for outliers"
    public static let inputs = EstimatorInputs(uses: [.rssi, .headings, .walls], minimumBeacons: 3, minimumHeadings: 2)
    let fit: OffsetFreeFit
    public init(venue: Venue) { fit = OffsetFreeFit(venue: venue, options: .init(walls: true, robust: true, censored: false), solver: GSLLevenbergMarquardt()) }
    public func locate(_ observation: Observation) -> EstimateOutcome { fit.locate(observation) }
}

/// ``OffsetFreeFloorplanEstimator`` that also counts the beacons it did not hear: each is a reading below the
/// sensitivity in every advertisement of the window (a censored likelihood), which says "not near that one".
public final class CensoredEstimator: PositionEstimator {
    public static let name = "censored"
    public static let summary = "offset-free floorplan fit where unheard beacons count as readings below the sensitivity"
    public static let inputs = EstimatorInputs(uses: [.rssi, .headings, .walls], minimumBeacons: 3, minimumHeadings: 2)
    let fit: OffsetFreeFit
    public init(venue: Venue) { fit = OffsetFreeFit(venue: venue, options: .init(walls: true, robust: false, censored: true), solver: GSLLevenbergMarquardt()) }
    public func locate(_ observation: Observation) -> EstimateOutcome { fit.locate(observation) }
}

/// ``OffsetFreeFloorplanEstimator`` that **learns the phone**, with the heard means truncated at the sensitivity: each
/// scan's fit starts from the offset learned so far as a prior, N(mean, variance + drift), and the scan's own evidence
/// on the offset updates a one-state Kalman filter of it, Huber-gated against scans whose fix went wrong. The readings
/// themselves are not reweighted (that is ``RobustEstimator``).
/// The offset's σ falls as about 1/√(scans), so after a few dozen scans the fit is nearly the known-offset
/// one; the tournament tells it when a new phone starts (``PositionEstimator/startDevice()``).
public final class OffsetLearningEstimator: PositionEstimator {
    public static let name = "offset-learning"
    public static let summary = "offset-free floorplan fit that learns the phone's offset over the scans (a Kalman filter of the offset, its updates Huber-gated)"
    public static let inputs = EstimatorInputs(uses: [.rssi, .headings, .walls], minimumBeacons: 3, minimumHeadings: 2)
    let fit: OffsetFreeFit
    public init(venue: Venue) { fit = OffsetFreeFit(venue: venue, options: .learning, solver: GSLLevenbergMarquardt()) }
    init(fit: OffsetFreeFit) { self.fit = fit }
    /// The fit exactly as the IndoorLocator library runs it (its pure-Swift solver), for positions only: no stated
    /// region is computed (the outcome's covariance is the linearised one). What the planner confirms layouts with:
    /// the position a phone running the library would get, at a sixth of the GSL path's cost.
    public static func asShipped(venue: Venue) -> OffsetLearningEstimator {
        var options = OffsetFreeFit.Options.learning
        options.statesRegion = false
        return OffsetLearningEstimator(fit: OffsetFreeFit(venue: venue, options: options, solver: LevenbergMarquardt(finishesWithNewton: true)))
    }
    public func locate(_ observation: Observation) -> EstimateOutcome { fit.locate(observation) }
    public func startDevice() { fit.startDevice() }
    /// The same phone moved arbitrarily: where the walker faced is forgotten, the offset is kept.
    public func startTrack() { fit.startTrack() }
    /// A new phone whose offset the app knows: δ ~ N(mean, sigma²) to start from.
    public func startDevice(knownOffset mean: Double, sigma: Double) { fit.startDevice(offset: (mean, sigma)) }
    /// The offset learned so far: mean and σ, dB.
    public var learnedOffset: (mean: Double, sigma: Double)? { fit.learned.map { ($0.mean, $0.variance.squareRoot()) } }
}

extension EstimatorKind {
    public static let offsetLearning = EstimatorKind(OffsetLearningEstimator.self)
    public static let offsetFree = EstimatorKind(OffsetFreeEstimator.self)
    public static let offsetFreeFloorplan = EstimatorKind(OffsetFreeFloorplanEstimator.self)
    public static let robust = EstimatorKind(RobustEstimator.self)
    public static let censored = EstimatorKind(CensoredEstimator.self)
}
