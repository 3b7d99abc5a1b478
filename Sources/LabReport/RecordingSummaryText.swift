import LabCore
import LabStore

/// What `record` and `import` print of a recording written.
public enum RecordingSummaryText {
    public static func line(_ s: RecordingSummary) -> String {
        "\(s.path): recording '\(s.name)': \(counted(s.beacons, "beacon")), \(counted(s.rssiSamples, "RSSI sample")), \(counted(s.headingSamples, "heading")), "
            + (s.stepSamples > 0 ? "\(counted(s.stepSamples, "step")), " : "") + "\(counted(s.truthSamples, "truth sample")), \(Format.fixed(s.duration, 1)) s"
    }
}
