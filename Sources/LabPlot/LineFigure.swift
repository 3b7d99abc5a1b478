import Foundation
import LabCore

/// An x–y chart: lines and/or markers per series, horizontal or vertical reference lines, a legend.
/// The base of the CDF, calibration and beacon-count figures.
public struct LineFigure: Figure, CanvasDrawable {
    public struct Series: Sendable {
        public var label: String
        public var x: [Double]
        public var y: [Double]
        public var style: SeriesStyle
        /// false: drawn but not listed (e.g. the marker of a percentile on a curve listed already).
        public var inLegend: Bool
        /// A band drawn under the line, in its colour made translucent (a confidence interval): lower and upper y at
        /// each x; non-finite values leave a gap's ends out.
        public var band: (lower: [Double], upper: [Double])? = nil
        public init(label: String, x: [Double], y: [Double], style: SeriesStyle, inLegend: Bool = true) {
            self.label = label; self.x = x; self.y = y; self.style = style; self.inLegend = inLegend
        }
    }

    /// A horizontal (y = value) or vertical (x = value) line across the plot with a short label at its end.
    public struct ReferenceLine: Sendable {
        public enum Orientation: Sendable { case horizontal, vertical }
        public var orientation: Orientation
        public var value: Double
        public var label: String
        public var color: PlotColor
        public var style: LineStyle
        public var width: Double
        /// Also list the line in the legend.
        public var inLegend: Bool
        public init(_ orientation: Orientation, at value: Double, label: String, color: PlotColor = .grey,
                    style: LineStyle = .shortDash, width: Double = 1.5, inLegend: Bool = false) {
            self.orientation = orientation; self.value = value; self.label = label; self.color = color
            self.style = style; self.width = width; self.inLegend = inLegend
        }
    }

    public var title: String
    public var xLabel: String
    public var yLabel: String
    public var series: [Series]
    public var referenceLines: [ReferenceLine]
    /// nil: from the data, padded.
    public var xRange: ClosedRange<Double>?
    public var yRange: ClosedRange<Double>?
    /// x values are given as log10 and labelled as powers of ten.
    public var logX: Bool
    public var legend: LegendPlacement
    /// Legend rows without a sample, after the series (e.g. "bearing: no fixes").
    public var legendNotes: [String]

    public init(title: String, xLabel: String, yLabel: String, series: [Series], referenceLines: [ReferenceLine] = [],
                xRange: ClosedRange<Double>? = nil, yRange: ClosedRange<Double>? = nil, logX: Bool = false,
                legend: LegendPlacement = .outsideRight, legendNotes: [String] = []) {
        self.title = title; self.xLabel = xLabel; self.yLabel = yLabel; self.series = series
        self.referenceLines = referenceLines; self.xRange = xRange; self.yRange = yRange; self.logX = logX
        self.legend = legend; self.legendNotes = legendNotes
    }

    var legendEntries: [LegendEntry] {
        var entries = series.filter(\.inLegend).map { LegendEntry(text: $0.label, style: $0.style) }
        entries += referenceLines.filter(\.inLegend).map {
            LegendEntry(text: $0.label, line: ($0.color, $0.style, $0.width))
        }
        entries += legendNotes.map { LegendEntry(text: $0) }
        return entries
    }

    func draw(on c: inout Canvas) {
        c.title(title)
        let entries = legendEntries
        let xs = series.flatMap(\.x).filter(\.isFinite)
        let ys = (series.flatMap(\.y) + series.flatMap { ($0.band?.lower ?? []) + ($0.band?.upper ?? []) }).filter(\.isFinite)
        let xr = xRange ?? Axis.padded(xs + referenceLines.filter { $0.orientation == .vertical }.map(\.value))
        let yr = yRange ?? Axis.padded(ys + referenceLines.filter { $0.orientation == .horizontal }.map(\.value))
        var frame = PageRect(minX: Axis.leftEdge(yr, charHeightX: c.charHeightX), maxX: 0.965, minY: 0.115, maxY: 0.885)
        let sample = 0.045
        if legend == .outsideRight, !entries.isEmpty {
            frame.maxX = 0.985 - c.legendSize(entries, columns: 1, sampleWidth: sample).width - 0.015
        }
        c.viewport(frame)
        c.window(xr.lowerBound, xr.upperBound, yr.lowerBound, yr.upperBound)
        c.grid()

        for r in referenceLines {
            c.pen(r.color, width: r.width, style: r.style)
            switch r.orientation {
            case .horizontal:
                c.line([xr.lowerBound, xr.upperBound], [r.value, r.value])
                if !r.inLegend {
                    // At the right end, where CDF curves have long reached the top.
                    let dy = (yr.upperBound - yr.lowerBound) * 0.018
                    c.text(r.label, x: xr.upperBound - (xr.upperBound - xr.lowerBound) * 0.01, y: r.value - dy,
                           just: 1, color: r.color, scale: Canvas.annotationScale)
                }
            case .vertical:
                c.line([r.value, r.value], [yr.lowerBound, yr.upperBound])
                if !r.inLegend {
                    let dx = (xr.upperBound - xr.lowerBound) * 0.008
                    c.text(r.label, x: r.value - dx, y: yr.upperBound - (yr.upperBound - yr.lowerBound) * 0.02,
                           dx: 0, dy: 1, just: 1, color: r.color, scale: Canvas.annotationScale)
                }
            }
        }
        for s in series {
            guard let band = s.band else { continue }
            let keep = s.x.indices.filter { $0 < band.lower.count && $0 < band.upper.count && band.lower[$0].isFinite && band.upper[$0].isFinite }
            guard keep.count >= 2 else { continue }
            c.pen(s.style.color.withAlpha(0.18))
            c.fill(keep.map { s.x[$0] } + keep.reversed().map { s.x[$0] }, keep.map { band.lower[$0] } + keep.reversed().map { band.upper[$0] })
        }
        for s in series {
            if let l = s.style.line {
                c.pen(s.style.color, width: s.style.lineWidth, style: l)
                c.line(s.x, s.y)
            }
        }
        c.pen(.ink)
        for s in series {
            if let m = s.style.marker, s.style.line == nil || s.x.count <= 40 {
                c.markers(s.x, s.y, m, color: s.style.color, scale: s.style.markerScale)
            }
        }
        c.box(x: logX ? "bcnstl" : "bcnst", y: "bcnstv")
        c.axisLabels(x: xLabel, y: yLabel, yDisp: Axis.labelDisplacement(yr))
        c.legend(entries, placement: legend, plot: frame, sampleWidth: sample)
    }
}

/// The error CDF of several estimators: the fraction of fixes with a horizontal error at or below x.
/// Each curve is marked where it crosses 0.75 (the P75 the leaderboard ranks by).
public struct CDFFigure: Figure, CanvasDrawable {
    public struct Series: Sendable {
        public var label: String
        /// Horizontal errors of the epochs with a fix, metres.
        public var errors: [Double]
        /// Epochs attempted (fixes + no-fix); shown as availability in the legend when some had no fix.
        public var attempts: Int
        public var style: SeriesStyle
        public init(label: String, errors: [Double], attempts: Int? = nil, style: SeriesStyle) {
            self.label = label; self.errors = errors; self.attempts = attempts ?? errors.count; self.style = style
        }
    }

    public var title: String
    public var series: [Series]
    public var markP75: Bool
    public var xLabel: String
    public var yLabel: String
    /// Right end of the x axis, metres; nil: the largest P98 of the series, rounded up.
    public var xMax: Double?

    public init(title: String, series: [Series], markP75: Bool = true, xLabel: String = "horizontal error (m)",
                yLabel: String = "fraction of fixes with error ≤ x", xMax: Double? = nil) {
        self.title = title; self.series = series; self.markP75 = markP75; self.xLabel = xLabel; self.yLabel = yLabel
        self.xMax = xMax
    }

    /// The CDF as a line figure: a step curve per series (thinned to ≤ 600 vertices), P75 markers, the 0.75 line.
    public var lineFigure: LineFigure {
        var lines: [(p75: Double, series: LineFigure.Series)] = []
        var markers: [LineFigure.Series] = []
        var notes: [String] = []
        var p98: [Double] = []
        for s in series {
            let e = s.errors.filter(\.isFinite).sorted()
            guard !e.isEmpty else {
                notes.append("\(s.label): no fixes")
                continue
            }
            let n = e.count
            var x: [Double] = [0], y: [Double] = [0]
            let step = max(1, n / 300)
            var i = 0
            while i < n {
                x.append(e[i]); y.append(Double(i) / Double(n))
                x.append(e[i]); y.append(Double(i + 1) / Double(n))
                i += step
            }
            if x.last != e[n - 1] || y.last != 1 { x.append(e[n - 1]); y.append(1) }
            let sample = SortedSample(alreadySorted: e)
            let p75 = sample.quantile(0.75)
            p98.append(sample.quantile(0.98))
            var label = s.label
            if markP75 { label += "  P75 \(String(format: "%.2f", p75)) m" }
            if s.attempts > n { label += " (\(Self.fixShare(n, of: s.attempts))% fixes)" }
            var style = s.style
            style.marker = markP75 ? (style.marker ?? .circle) : nil
            style.markerScale = 0.8
            lines.append((p75, .init(label: label, x: x, y: y, style: SeriesStyle(color: style.color, line: style.line ?? .solid,
                                                                                     lineWidth: style.lineWidth, marker: style.marker,
                                                                                     markerScale: style.markerScale))))
            if markP75 {
                markers.append(.init(label: "", x: [p75], y: [0.75],
                                     style: SeriesStyle(color: style.color, line: nil, marker: style.marker, markerScale: 0.8),
                                     inLegend: false))
            }
        }
        let right = xMax ?? Axis.niceCeil(p98.max() ?? 1)
        var refs: [LineFigure.ReferenceLine] = []
        if markP75 { refs.append(.init(.horizontal, at: 0.75, label: "P75")) }
        // Legend in P75 order, best first: it reads as a ranking. (Stable: ties keep the given order.)
        let ranked = lines.enumerated().sorted { ($0.element.p75, $0.offset) < ($1.element.p75, $1.offset) }.map(\.element.series)
        return LineFigure(title: title, xLabel: xLabel, yLabel: yLabel, series: ranked + markers, referenceLines: refs,
                          xRange: 0...right, yRange: 0...1.0, legend: .outsideRight, legendNotes: notes)
    }

    func draw(on c: inout Canvas) { lineFigure.draw(on: &c) }

    /// The share of attempts that gave a fix, in percent, as the legend prints it: whole percent, but never
    /// rounded to 100 or to 0 when that is not exactly so (99.7% prints "99.7", 0.4% prints "<1").
    static func fixShare(_ fixes: Int, of attempts: Int) -> String {
        guard fixes > 0, attempts > 0 else { return "0" }
        guard fixes < attempts else { return "100" }
        let share = 100 * Double(fixes) / Double(attempts)
        if share.rounded() >= 100 { return String(format: "%.1f", min((share * 10).rounded(.down) / 10, 99.9)) }
        if share.rounded() < 1 { return "<1" }
        return "\(Int(share.rounded()))"
    }
}

/// Points with a fitted line, e.g. RSSI against log10(distance) with the path-loss fit (the calibration figure).
public struct ScatterFitFigure: Figure, CanvasDrawable {
    public var title: String
    public var xLabel: String
    public var yLabel: String
    public var points: [(x: Double, y: Double)]
    public var pointsLabel: String
    /// y = intercept + slope·x over the x range of the points; nil: no line.
    public var fit: (slope: Double, intercept: Double)?
    public var fitLabel: String

    public init(title: String, xLabel: String, yLabel: String, points: [(x: Double, y: Double)], pointsLabel: String,
                fit: (slope: Double, intercept: Double)?, fitLabel: String) {
        self.title = title; self.xLabel = xLabel; self.yLabel = yLabel; self.points = points
        self.pointsLabel = pointsLabel; self.fit = fit; self.fitLabel = fitLabel
    }

    public var lineFigure: LineFigure {
        var series = [LineFigure.Series(label: pointsLabel, x: points.map(\.x), y: points.map(\.y),
                                        style: SeriesStyle(color: PlotColor.palette[0].withAlpha(0.55), line: nil,
                                                           marker: .circle, markerScale: 0.5))]
        let xs = points.map(\.x).filter(\.isFinite)
        if let fit, let lo = xs.min(), let hi = xs.max() {
            series.append(.init(label: fitLabel, x: [lo, hi], y: [fit.intercept + fit.slope * lo, fit.intercept + fit.slope * hi],
                                style: SeriesStyle(color: PlotColor.palette[1], line: .solid, lineWidth: 2.5)))
        }
        return LineFigure(title: title, xLabel: xLabel, yLabel: yLabel, series: series, legend: .insideTopRight)
    }

    func draw(on c: inout Canvas) { lineFigure.draw(on: &c) }
}

/// Axis ranges and tick-label room.
enum Axis {
    /// Data range padded by 4% on each side; a degenerate range becomes ±1 around its value.
    static func padded(_ v: [Double]) -> ClosedRange<Double> {
        guard let lo = v.min(), let hi = v.max() else { return 0...1 }
        if hi - lo < 1e-12 { return (lo - 1)...(hi + 1) }
        let pad = (hi - lo) * 0.04
        return (lo - pad)...(hi + pad)
    }

    /// The smallest of 1, 2, 2.5, 5 × 10^k at or above `v`.
    static func niceCeil(_ v: Double) -> Double {
        guard v.isFinite, v > 0 else { return 1 }
        let e = pow(10, floor(log10(v)))
        for m in [1.0, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10] where m * e >= v * (1 - 1e-9) { return m * e }
        return 10 * e
    }

    /// Character heights from the y axis to its label: room for the widest tick label (about 0.7 character
    /// heights per character at the default size, plus the tick-label gap).
    static func labelDisplacement(_ r: ClosedRange<Double>) -> Double {
        let m = max(abs(r.lowerBound), abs(r.upperBound))
        let digits = m >= 100 ? 3.0 : (m >= 10 ? 2.0 : 1.0)
        let span = r.upperBound - r.lowerBound
        let decimals = span <= 2.5 ? 2.0 : 0.0
        let sign = r.lowerBound < 0 ? 1.0 : 0.0
        return 1.6 + 0.72 * (digits + decimals + sign)
    }

    /// Left edge of the plot box (page fraction) that leaves room for the y tick labels and axis label.
    static func leftEdge(_ r: ClosedRange<Double>, charHeightX: Double) -> Double {
        (labelDisplacement(r) + 1.8) * charHeightX
    }

    /// A round step at or above `v`: 1, 2 or 5 × 10^k (no 2.5: PLplot labels colour-bar bands with as many
    /// decimals as the step's leading digit needs, and 0.25 would print as 0.3).
    static func niceStep(_ v: Double) -> Double {
        guard v.isFinite, v > 0 else { return 1 }
        let e = pow(10, floor(log10(v)))
        for m in [1.0, 2, 5, 10] where m * e >= v * (1 - 1e-9) { return m * e }
        return 10 * e
    }
}
