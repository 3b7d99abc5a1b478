/// Every estimator the lab knows, once.
///
/// Adding an estimator is its own file plus one line here. Option parsing (`--estimators`), the
/// tournament, replay, the plot styles and the benchmark all read this list; `EstimatorRegistryTests`
/// checks that names are unique kebab-case and every type builds on a venue.
public enum EstimatorRegistry {
    /// In the order tables list them and the leaderboard breaks ties. (Metatypes of a protocol are not `Sendable` in
    /// Swift 6.1; these constants are never written, so sharing them across tasks is safe.)
    nonisolated(unsafe) public static let all: [any PositionEstimator.Type] = [
        TrilaterationEstimator.self,
        LeastSquaresEstimator.self,
        LeastSquaresRangeEstimator.self,
        ProximityEstimator.self,
        BearingEstimator.self,
        CentroidEstimator.self,
        WeightedCentroidEstimator.self,
        FusionEstimator.self,
        FloorplanFusionEstimator.self,
        PowerCentroidEstimator.self,
        OffsetFreeEstimator.self,
        OffsetFreeFloorplanEstimator.self,
        RobustEstimator.self,
        CensoredEstimator.self,
        OffsetLearningEstimator.self,
        FingerprintEstimator.self,
        KalmanEstimator.self,
        KalmanSmootherEstimator.self,
        ParticleEstimator.self,
        ParticleSmootherEstimator.self,
    ]

    /// The best snapshot estimator (each fix from its own scan): the IndoorLocator library's one-scan fix
    /// (`locate(rssi:)`, and `Location.snapshot` in its stream), and what the planner simulates with on static
    /// points.
    nonisolated(unsafe) public static let shipped: any PositionEstimator.Type = OffsetLearningEstimator.self
    /// The tournament's winner, a tracker: what the IndoorLocator library's stream (`locations(from:)`,
    /// `currentLocation(at:)`) runs.
    nonisolated(unsafe) public static let shippedTracker: any PositionEstimator.Type = ParticleEstimator.self
}

extension EstimatorKind {
    /// The estimator the IndoorLocator library ships (``EstimatorRegistry/shipped``).
    public static var shipped: EstimatorKind { EstimatorKind(EstimatorRegistry.shipped) }
    /// The tracker the IndoorLocator library's stream runs (``EstimatorRegistry/shippedTracker``).
    public static var shippedTracker: EstimatorKind { EstimatorKind(EstimatorRegistry.shippedTracker) }
}
