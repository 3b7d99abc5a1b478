import Foundation
import Prometheus

/// What `/metrics` reports, in Prometheus's text format (swift-prometheus): connected phones and viewers, messages
/// received and rejected (by reason), and the latency of acknowledgements (receipt to commit), of locations (receipt
/// of the message that closed a window to the location sent) and of commits.
public final class LiveMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    let phones: Gauge
    let viewers: Gauge
    let messages: Counter
    let locations: Counter
    let rejected: [RejectReason: Counter]
    let ackLatency: DurationHistogram
    let locationLatency: DurationHistogram
    let commitLatency: DurationHistogram
    let commitBatch: ValueHistogram

    public init() {
        func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "indoorlab", metricName: metric, unitName: unit, helpText: help)
        }
        let latencyBuckets: [Duration] = [1, 2, 5, 10, 15, 20, 30, 40, 50, 60, 80, 100, 150, 200, 500, 1000, 5000].map { .milliseconds($0) }
        phones = registry.makeGauge(descriptor: name("connected_phones", "", "Phones connected now."))
        viewers = registry.makeGauge(descriptor: name("connected_viewers", "", "Viewers (map pages, presence subscribers) connected now."))
        messages = registry.makeCounter(descriptor: name("messages", "total", "Phone messages received, accepted or not."))
        locations = registry.makeCounter(descriptor: name("locations", "total", "Locations sent to phones."))
        var byReason: [RejectReason: Counter] = [:]
        for r in RejectReason.allCases {
            byReason[r] = registry.makeCounter(descriptor: name("rejected_messages", "total", "Messages and connections refused, by reason; nothing of them is stored."),
                                               labels: [("reason", r.rawValue)])
        }
        rejected = byReason
        ackLatency = registry.makeDurationHistogram(descriptor: name("ack_latency", "seconds", "From a message's receipt to its acknowledgement (after its commit)."),
                                                    buckets: latencyBuckets)
        locationLatency = registry.makeDurationHistogram(descriptor: name("location_latency", "seconds", "From the receipt of the message that closed a scan window to its location sent."),
                                                         buckets: latencyBuckets)
        commitLatency = registry.makeDurationHistogram(descriptor: name("commit_latency", "seconds", "One batch's transaction in a session's recording."),
                                                       buckets: latencyBuckets)
        commitBatch = registry.makeValueHistogram(descriptor: name("commit_batch", "messages", "Messages per committed batch."),
                                                  buckets: [1, 2, 5, 10, 20, 50, 100, 200])
    }

    /// Counts a refused message.
    public func reject(_ reason: RejectReason) { rejected[reason]?.increment() }

    /// The Prometheus text exposition.
    public func text() -> String { registry.emitToString() }
}
