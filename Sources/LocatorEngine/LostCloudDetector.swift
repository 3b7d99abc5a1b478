/// Finds a particle cloud in the wrong place: the filter consistency test of Bar-Shalom, Li & Kirubarajan (2001,
/// §5.4) on each scan's normalised innovation squared, accumulated by Page's cumulative sum (CUSUM).
///
/// Each scan adds its innovation (each heard beacon's mean residual against the cloud, squared, over its predicted
/// variance — the reading's own plus the spread of the particles' means, times the correlated shadowing's allowance —
/// capped at ``innovationCap``) less one per heard beacon, and the sum never falls below 0. One per beacon is what a
/// consistent filter's terms average; the particle filter's measure about half that on walks it tracks (its
/// likelihood's model error is generous), so the sum stays near 0 there. A cloud in the wrong place makes it climb;
/// past the threshold the cloud counts as lost (``isLost``) until ``reset()``.
struct LostCloudDetector {
    /// The cumulative evidence at which the cloud counts as lost.
    let threshold: Double
    /// The evidence so far, ≥ 0.
    private(set) var evidence = 0.0
    /// The evidence passed the threshold since the last ``reset()`` or ``acknowledge()``.
    private(set) var isLost = false

    /// Each heard beacon's innovation term is capped here (3σ squared), so that one multipath outlier does not count
    /// as a lost cloud.
    static let innovationCap = 9.0

    init(threshold: Double) { self.threshold = threshold }

    /// Adds one scan's normalised innovation squared over `beacons` heard beacons.
    mutating func note(innovation: Double, beacons: Int) {
        evidence = max(0, evidence + innovation - Double(beacons))
        if evidence > threshold { isLost = true }
    }

    /// The finding has been acted on (or cannot be this scan): the evidence stays, and the next scan may find it
    /// lost again.
    mutating func acknowledge() { isLost = false }

    /// The cloud was drawn again: the sum starts afresh.
    mutating func reset() { evidence = 0; isLost = false }
}
