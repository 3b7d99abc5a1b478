import Foundation
import LabCore
import LabEvaluation

/// The learning curve of the phone's offset: what the shipped estimator has learned after each scan, one thin
/// line per seed, their median, the truth and a ±2 dB band.
public enum OffsetLearningFigure {
    /// The band drawn around the truth, dB.
    public static let band = 2.0
    /// The scan count the target is stated at.
    public static let targetScans = 30

    public static func make(_ c: OffsetLearningCurve) -> LineFigure {
        let scans = c.runs.map(\.learned.count).max() ?? 0
        let x = (1...max(scans, 1)).map(Double.init)
        var series: [LineFigure.Series] = c.runs.enumerated().map { k, r in
            LineFigure.Series(label: "one walk per seed (\(c.runs.count))", x: Array(x.prefix(r.learned.count)), y: r.learned,
                              style: SeriesStyle(color: .grey, lineWidth: 1), inLegend: k == 0)
        }
        let median = (0..<scans).map { i in
            let v = c.runs.compactMap { i < $0.learned.count && $0.learned[i].isFinite ? $0.learned[i] : nil }
            return v.isEmpty ? Double.nan : SortedSample(v).quantile(0.5)
        }
        series.append(.init(label: "median over the seeds", x: x, y: median, style: SeriesStyle(color: PlotColor.palette[0], lineWidth: 3)))
        // The target's scan count, or the last scan when the walks were shorter (the line says which).
        let at = max(min(targetScans, scans), 1)
        let within = c.fractionWithin(band, afterScans: at)
        let all = c.runs.flatMap(\.learned).filter(\.isFinite) + [c.offset + 2 * band, c.offset - 2 * band]
        return LineFigure(
            title: "\(c.scenario): learning an unknown \(Format.fixed(c.offset, 0)) dB phone offset",
            xLabel: "scans since the phone started (walk '\(c.walk)'\(c.allImpairments ? ", every field impairment" : ", offset only"))", yLabel: "learned offset (dB)",
            series: series,
            referenceLines: [
                .init(.horizontal, at: c.offset, label: "true offset \(Format.fixed(c.offset, 1)) dB", color: .ink, style: .solid, width: 2, inLegend: true),
                .init(.horizontal, at: c.offset + band, label: "± \(Format.fixed(band, 0)) dB", color: PlotColor.palette[1], style: .shortDash, width: 1.5, inLegend: true),
                .init(.horizontal, at: c.offset - band, label: "", color: PlotColor.palette[1], style: .shortDash, width: 1.5, inLegend: false),
                .init(.vertical, at: Double(at), label: "\(counted(at, "scan")): \(Format.fixed(within * 100, 0))% of walks within ± \(Format.fixed(band, 0)) dB",
                      color: .grey, style: .longDash, width: 1.5, inLegend: true),
            ],
            xRange: 0...Double(max(scans, 1)), yRange: (all.min()! - 4)...(all.max()! + 1),
            legend: .insideBottomRight)
    }
}
