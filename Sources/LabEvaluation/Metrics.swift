import LabCore
import LabResults

extension ErrorStatistics {
    /// Statistics of horizontal errors (metres) of the epochs with a fix, out of `attempts` epochs.
    /// Percentiles are ``QuantileMethod/linear`` quantiles (interpolated between order statistics).
    public init(errors: [Double], attempts: Int) {
        let availability = attempts > 0 ? Double(errors.count) / Double(attempts) : 0
        guard !errors.isEmpty else {
            self.init(count: attempts, fixes: 0, availability: availability, mean: .nan, median: .nan, p75: .nan, p90: .nan,
                      p95: .nan, rmse: .nan, max: .nan)
            return
        }
        let sample = SortedSample(errors)
        self.init(count: attempts, fixes: errors.count, availability: availability, mean: sample.mean,
                  median: sample.quantile(0.5), p75: sample.quantile(0.75), p90: sample.quantile(0.9),
                  p95: sample.quantile(0.95), rmse: sample.rootMeanSquare, max: sample.values.last!)
    }
}
