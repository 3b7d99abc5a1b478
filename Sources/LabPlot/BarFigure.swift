import Foundation

/// Grouped bars: one group per category (e.g. scenario), one bar per series (e.g. estimator) in each.
public struct BarFigure: Figure, CanvasDrawable {
    public struct Series: Sendable {
        public var label: String
        /// One value per category; nil or not finite: no bar, a "×" at the axis instead.
        public var values: [Double?]
        public var color: PlotColor
        /// Name in the note listing bars cut at the top of the axis (default: `label`).
        public var shortLabel: String
        public init(label: String, values: [Double?], color: PlotColor, shortLabel: String? = nil) {
            self.label = label; self.values = values; self.color = color; self.shortLabel = shortLabel ?? label
        }
    }

    public var title: String
    public var yLabel: String
    public var categories: [String]
    public var series: [Series]
    /// Top of the y axis; taller bars are cut there and labelled with their value. nil: from the data.
    public var yMax: Double?
    /// Horizontal lines, e.g. a target accuracy.
    public var referenceLines: [LineFigure.ReferenceLine]
    /// Legend text for the cross drawn where a value is missing.
    public var missingLabel: String

    public init(title: String, yLabel: String, categories: [String], series: [Series], yMax: Double? = nil,
                referenceLines: [LineFigure.ReferenceLine] = [], missingLabel: String = "no value") {
        self.title = title; self.yLabel = yLabel; self.categories = categories; self.series = series
        self.yMax = yMax; self.referenceLines = referenceLines; self.missingLabel = missingLabel
    }

    static func value(_ v: Double?) -> Double? { v.flatMap { $0.isFinite ? $0 : nil } }

    func draw(on c: inout Canvas) {
        c.title(title)
        let anyMissing = series.contains { s in categories.indices.contains { Self.value(s.values.indices.contains($0) ? s.values[$0] : nil) == nil } }
        var entries = series.map { LegendEntry(text: $0.label, box: $0.color) }
        entries += referenceLines.filter(\.inLegend).map { LegendEntry(text: $0.label, line: ($0.color, $0.style, $0.width)) }
        if anyMissing { entries.append(LegendEntry(text: missingLabel, marker: (.grey, .cross, 0.8))) }
        var frame = PageRect(minX: 0.09, maxX: 0.965, minY: 0.14, maxY: 0.885)
        frame.maxX = 0.985 - c.legendSize(entries, columns: 1, sampleWidth: 0.03).width - 0.015
        let all = series.flatMap { $0.values.compactMap(Self.value) }
        let top = yMax ?? Axis.niceCeil((all.max() ?? 1) * 1.08)
        let nCat = max(categories.count, 1), nSer = max(series.count, 1)
        frame.minX = Axis.leftEdge(0...top, charHeightX: c.charHeightX)
        c.viewport(frame)
        c.window(0, Double(nCat), 0, top)
        c.grid(x: false, y: true)

        let groupWidth = 0.8, barWidth = groupWidth / Double(nSer)
        var cut: [String] = []
        let yPerPage = c.worldPerPage().y
        for (j, s) in series.enumerated() {
            for i in 0..<categories.count {
                let x0 = Double(i) + (1 - groupWidth) / 2 + Double(j) * barWidth
                let xm = x0 + barWidth / 2
                guard let v = Self.value(s.values.indices.contains(i) ? s.values[i] : nil) else {
                    c.markers([xm], [c.charHeight * 0.6 * yPerPage], .cross, color: s.color, scale: 0.8)
                    continue
                }
                let h = min(v, top)
                c.fillRect(x0 + barWidth * 0.06, 0, x0 + barWidth * 0.94, h, s.color)
                if v > top {
                    // Cut bar: a white break near the top; its value is listed beside the plot.
                    c.fillRect(x0 + barWidth * 0.06, top * 0.95, x0 + barWidth * 0.94, top * 0.965, .white)
                    cut.append("\(categories[i]), \(s.shortLabel): \(String(format: "%.1f", v))")
                }
            }
        }
        for r in referenceLines {
            c.pen(r.color, width: r.width, style: r.style)
            c.line([0, Double(nCat)], [r.value, r.value])
        }
        c.box(x: "bc", y: "bcnstv")
        // Category names under their group; long names are broken at a hyphen or space onto two lines.
        let groupPage = frame.width / Double(nCat)
        for (i, name) in categories.enumerated() {
            let lines = Self.wrap(name, fits: { Double($0.count) * c.charWidthX * 0.9 < groupPage * 0.85 })
            for (k, line) in lines.enumerated() {
                c.edgeText(line, side: "b", disp: 1.5 + 1.1 * Double(k), pos: (Double(i) + 0.5) / Double(nCat), just: 0.5, scale: 0.9)
            }
        }
        c.edgeText(yLabel, side: "l", disp: Axis.labelDisplacement(0...top), pos: 0.5, just: 0.5)
        c.legend(entries, placement: .outsideRight, plot: frame, sampleWidth: 0.03)
        if !cut.isEmpty {
            let x = frame.maxX + 0.015 + 0.6 * c.charHeight * Canvas.legendScale
            var y = frame.maxY - c.legendSize(entries, columns: 1, sampleWidth: 0.03).height - 1.6 * c.charHeight
            let step = 1.45 * c.charHeight * Canvas.annotationScale
            c.pageText("Cut at the axis top (\(yUnit)):", x: x, y: y, just: 0, scale: Canvas.legendScale)
            for line in cut {
                y -= step
                c.pageText(line, x: x, y: y, just: 0, scale: Canvas.annotationScale)
            }
        }
    }

    /// The unit in the y label's parentheses, e.g. "m".
    var yUnit: String {
        guard let open = yLabel.lastIndex(of: "("), let close = yLabel.lastIndex(of: ")"), open < close else { return "value" }
        return String(yLabel[yLabel.index(after: open)..<close])
    }

    /// `text` on one line if it fits, else broken at the hyphen or space nearest its middle.
    static func wrap(_ text: String, fits: (String) -> Bool) -> [String] {
        if fits(text) { return [text] }
        let chars = Array(text)
        let breaks = chars.indices.filter { chars[$0] == "-" || chars[$0] == " " }
        guard let b = breaks.min(by: { abs($0 - chars.count / 2) < abs($1 - chars.count / 2) }) else { return [text] }
        let first = String(chars[...b]).trimmingCharacters(in: .whitespaces)
        let second = String(chars[(b + 1)...]).trimmingCharacters(in: .whitespaces)
        return [first, second]
    }
}
