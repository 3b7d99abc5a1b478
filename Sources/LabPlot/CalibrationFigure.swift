import Foundation
import LabCore
import LabEvaluation

/// The calibration scatter: RSSI against distance (log scale) with the fitted path-loss line.
public enum CalibrationFigure {
    /// Samples drawn at most (evenly thinned in recording order), so the SVG stays small.
    public static let maximumPoints = 6000

    public static func make(_ c: Calibration, recordingName: String) -> LineFigure {
        let step = max(1, c.samples.count / maximumPoints)
        let points = stride(from: 0, to: c.samples.count, by: step).map { (x: log10(c.samples[$0].distance), y: c.samples[$0].rssi) }
        let g = c.global
        let scatter = ScatterFitFigure(
            title: "\(recordingName): RSSI against distance",
            xLabel: c.threeDimensional ? "distance beacon–device, 3-D (m, log scale)" : "distance beacon–device (m, log scale)",
            yLabel: "RSSI (dBm)", points: points,
            pointsLabel: "\(c.samples.count) samples" + (step > 1 ? " (every \(step)th shown)" : ""),
            fit: (slope: -10 * g.exponent, intercept: g.p0),
            fitLabel: String(format: "P0 %.1f ± %.1f dBm, n %.2f ± %.2f, σ %.1f dB", g.p0, g.p0Error, g.exponent, g.exponentError, g.sigma))
        var figure = scatter.lineFigure
        figure.logX = true
        // From a whole decade to just past the data (at least one more decade, so two distances are labelled).
        let xs = points.map(\.x)
        if let lo = xs.min(), let hi = xs.max() { figure.xRange = lo.rounded(.down)...max(hi + 0.05, lo.rounded(.down) + 1) }
        return figure
    }
}
