/// Every estimator the lab knows, once.
///
/// Adding an estimator is its own file plus one line here. Option parsing (`--estimators`), the
/// tournament, replay, the plot styles and the benchmark all read this list; `EstimatorRegistryTests`
/// checks that names are unique kebab-case and every type builds on a venue.
public enum EstimatorRegistry {
    /// In the order tables list them and the leaderboard breaks ties.
    public static let all: [any PositionEstimator.Type] = [
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
    ]

    /// The tournament's winner, which the IndoorLocator library ships and the planner simulates with.
    public static let shipped: any PositionEstimator.Type = OffsetLearningEstimator.self
}

extension EstimatorKind {
    /// The estimator the IndoorLocator library ships (``EstimatorRegistry/shipped``).
    public static var shipped: EstimatorKind { EstimatorKind(EstimatorRegistry.shipped) }
}
