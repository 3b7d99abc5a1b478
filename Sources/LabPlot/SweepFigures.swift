import LabCore
import LabSweep

/// A sweep's figures: the error against each numeric axis, one line per estimator with its 95% confidence band.
public enum SweepFigures {
    /// `<name>-sweep-<axis>`: at each of the axis's values, the mean over seeds of the mean error (the other axes
    /// averaged), with the band of its 95% interval (Student's t over the seeds).
    public static func errorAgainst(_ curves: [SweepSummary.Curve], axis: String, title name: String, seeds: Int) -> LineFigure {
        let mine = curves.filter { $0.axis == axis }
        let series = mine.enumerated().map { k, c in
            var s = LineFigure.Series(label: c.estimator, x: c.x, y: c.error.map(\.mean),
                                      style: SeriesStyle(color: PlotColor.palette[k % PlotColor.palette.count], line: .solid, marker: .circle))
            s.band = (c.error.map(\.low), c.error.map(\.high))
            return s
        }
        return LineFigure(title: "\(name) — mean error vs \(axis) (mean over \(seeds) seeds, 95% interval)",
                          xLabel: axis, yLabel: "mean error (m)", series: series, legend: .outsideRight)
    }

    /// The file name of an axis's figure: `<name>-sweep-<axis>` with the path's dots as dashes.
    public static func fileName(name: String, axis: String) -> String {
        "\(name)-sweep-" + axis.replacingOccurrences(of: ".", with: "-").replacingOccurrences(of: "_", with: "-")
    }
}
