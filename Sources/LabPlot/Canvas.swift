internal import CPLplot
import Foundation
import LabCore

/// A rectangle in normalised page coordinates (0…1 both ways, origin bottom left).
struct PageRect: Equatable {
    var minX: Double, maxX: Double, minY: Double, maxY: Double
    var width: Double { maxX - minX }
    var height: Double { maxY - minY }
}

/// One legend row: text with a line sample, a marker, a colour box, or nothing.
struct LegendEntry {
    var text: String
    var line: (color: PlotColor, style: LineStyle, width: Double)? = nil
    var marker: (color: PlotColor, marker: Marker, scale: Double)? = nil
    var box: PlotColor? = nil

    init(text: String, line: (color: PlotColor, style: LineStyle, width: Double)? = nil,
         marker: (color: PlotColor, marker: Marker, scale: Double)? = nil, box: PlotColor? = nil) {
        self.text = text; self.line = line; self.marker = marker; self.box = box
    }

    var hasSample: Bool { line != nil || marker != nil || box != nil }

    init(text: String, style: SeriesStyle) {
        self.text = text
        if let l = style.line { line = (style.color, l, style.lineWidth) }
        if let m = style.marker { marker = (style.color, m, style.markerScale) }
    }
}

/// A thin, typed layer over one open PLplot stream. Only ``PlotRenderer`` makes one, between
/// `plinit` and `plend`, while it holds the lock; figures draw through it and never call PLplot directly.
///
/// Colours are registered on first use in colour map 0 (index 0 is the white background, 1 the ink).
struct Canvas {
    let format: PlotFormat
    /// Default character height as a fraction of the page height.
    let charHeight: Double
    /// Page height / page width in physical units.
    let pageAspect: Double
    private var slots: [PlotColor: Int32] = [:]
    private var nextSlot: Int32 = 2
    static let colorSlots: Int32 = 128

    /// Text size factors used across figures, relative to PLplot's default character height.
    static let titleScale = 1.1
    static let legendScale = 0.85
    static let annotationScale = 0.75

    init(format: PlotFormat) {
        self.format = format
        c_pladv(0)
        var def = 0.0, ht = 0.0
        c_plgchr(&def, &ht)
        var x0 = 0.0, x1 = 0.0, y0 = 0.0, y1 = 0.0
        c_plgspa(&x0, &x1, &y0, &y1)
        charHeight = ht / max(y1 - y0, 1e-9)
        pageAspect = (y1 - y0) / max(x1 - x0, 1e-9)
    }

    /// Default character height as a fraction of the page width.
    var charHeightX: Double { charHeight * pageAspect }
    /// A rough width of one character of default size as a fraction of the page width (DejaVu Sans).
    var charWidthX: Double { charHeightX * 0.68 }

    // MARK: colours and pens

    mutating func colorIndex(_ c: PlotColor) -> Int32 {
        if c == .white { return 0 }
        if let i = slots[c] { return i }
        guard nextSlot < Canvas.colorSlots else { return 1 }
        let i = nextSlot
        nextSlot += 1
        c_plscol0a(i, Int32(c.red), Int32(c.green), Int32(c.blue), c.alpha)
        slots[c] = i
        return i
    }

    mutating func pen(_ c: PlotColor, width: Double = 1, style: LineStyle = .solid) {
        c_plcol0(colorIndex(c))
        c_plwidth(width)
        c_pllsty(style.rawValue)
    }

    func charScale(_ s: Double) { c_plschr(0, s) }

    // MARK: viewport and window

    func viewport(_ r: PageRect) { c_plvpor(r.minX, r.maxX, r.minY, r.maxY) }

    /// The largest viewport inside `r` whose physical height/width is `aspect`, centred across and at the
    /// top of `r` (spare room goes under the plot, where legends sit); returns it.
    func viewport(_ r: PageRect, aspect: Double) -> PageRect {
        var w = r.width, h = aspect * w / pageAspect
        if h > r.height { h = r.height; w = h * pageAspect / aspect }
        let v = PageRect(minX: (r.minX + r.maxX - w) / 2, maxX: (r.minX + r.maxX + w) / 2, minY: r.maxY - h, maxY: r.maxY)
        viewport(v)
        return v
    }

    func currentViewport() -> PageRect {
        var a = 0.0, b = 0.0, c = 0.0, d = 0.0
        c_plgvpd(&a, &b, &c, &d)
        return PageRect(minX: a, maxX: b, minY: c, maxY: d)
    }

    func window(_ xmin: Double, _ xmax: Double, _ ymin: Double, _ ymax: Double) { c_plwind(xmin, xmax, ymin, ymax) }

    func currentWindow() -> (xmin: Double, xmax: Double, ymin: Double, ymax: Double) {
        var a = 0.0, b = 0.0, c = 0.0, d = 0.0
        c_plgvpw(&a, &b, &c, &d)
        return (a, b, c, d)
    }

    /// Metres (world units) per page-width fraction and per page-height fraction in the current viewport.
    func worldPerPage() -> (x: Double, y: Double) {
        let v = currentViewport(), w = currentWindow()
        return ((w.xmax - w.xmin) / max(v.width, 1e-9), (w.ymax - w.ymin) / max(v.height, 1e-9))
    }

    // MARK: drawing

    func line(_ xs: [Double], _ ys: [Double]) {
        let n = min(xs.count, ys.count)
        guard n >= 2 else { return }
        c_plline(Int32(n), xs, ys)
    }

    func line(_ points: [Point]) { line(points.map(\.x), points.map(\.y)) }

    func fill(_ xs: [Double], _ ys: [Double]) {
        let n = min(xs.count, ys.count)
        guard n >= 3 else { return }
        c_plfill(Int32(n), xs, ys)
    }

    mutating func fillRect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ c: PlotColor) {
        pen(c)
        fill([x0, x1, x1, x0], [y0, y0, y1, y1])
    }

    /// Markers centred on each point.
    mutating func markers(_ xs: [Double], _ ys: [Double], _ m: Marker, color: PlotColor, scale: Double) {
        let n = min(xs.count, ys.count)
        guard n >= 1 else { return }
        pen(color)
        charScale(scale)
        c_plstring(Int32(n), xs, ys, m.glyph)
        charScale(1)
    }

    /// Text at world (x, y) along direction (dx, dy); `just` 0 = left, 0.5 = centre, 1 = right of the point.
    mutating func text(_ s: String, x: Double, y: Double, dx: Double = 1, dy: Double = 0, just: Double = 0.5,
                       color: PlotColor = .ink, scale: Double = 1) {
        pen(color)
        charScale(scale)
        c_plptex(x, y, dx, dy, just, Canvas.escape(s))
        charScale(1)
    }

    /// Text relative to the viewport edge: side "t", "b", "l", "r" ("lv"/"rv" for upright text on the sides);
    /// `disp` in character heights outwards, `pos` 0…1 along the edge.
    mutating func edgeText(_ s: String, side: String, disp: Double, pos: Double, just: Double,
                           color: PlotColor = .ink, scale: Double = 1) {
        pen(color)
        charScale(scale)
        c_plmtex(side, disp, pos, just, Canvas.escape(s))
        charScale(1)
    }

    /// Text placed in page coordinates (the viewport is left at the whole page afterwards; set it again).
    mutating func pageText(_ s: String, x: Double, y: Double, just: Double = 0.5, color: PlotColor = .ink, scale: Double = 1) {
        viewport(PageRect(minX: 0, maxX: 1, minY: 0, maxY: 1))
        window(0, 1, 0, 1)
        text(s, x: x, y: y, just: just, color: color, scale: scale)
    }

    /// The figure title, centred at the top of the page. A title too wide for the page is broken before
    /// its last parenthesis (or colon) onto a second, smaller line.
    mutating func title(_ s: String) {
        let y = 1 - 1.9 * charHeight
        if textWidth(s, scale: Canvas.titleScale) <= 0.9 {
            pageText(s, x: 0.5, y: y, scale: Canvas.titleScale)
            return
        }
        var first = s, second = ""
        if let r = s.range(of: " (", options: .backwards) ?? s.range(of: ": ", options: .backwards) {
            first = String(s[..<r.lowerBound])
            second = String(s[r.lowerBound...]).trimmingCharacters(in: .whitespaces)
            if second.hasPrefix(":") { second = String(second.dropFirst()).trimmingCharacters(in: .whitespaces) }
        }
        let scale1 = min(Canvas.titleScale, 0.9 / max(textWidth(first, scale: 1), 1e-9))
        pageText(first, x: 0.5, y: y + 0.25 * charHeight, scale: scale1)
        if !second.isEmpty {
            let scale2 = min(0.85, 0.9 / max(textWidth(second, scale: 1), 1e-9))
            pageText(second, x: 0.5, y: y - 1.05 * charHeight, scale: scale2)
        }
    }

    /// Estimated width of `s` at `scale`, as a fraction of the page width.
    func textWidth(_ s: String, scale: Double) -> Double { Double(s.count) * charWidthX * scale }

    /// Axes with numeric labels (`xopt`/`yopt` in PLplot's plbox letters).
    mutating func box(x xopt: String = "bcnst", y yopt: String = "bcnstv", color: PlotColor = .ink, width: Double = 1) {
        pen(color, width: width)
        c_plbox(xopt, 0, 0, yopt, 0, 0)
    }

    /// Light grid lines at the major ticks, under everything drawn afterwards.
    mutating func grid(x: Bool = true, y: Bool = true) {
        pen(PlotColor(hex: 0xE3E3E3), width: 1)
        c_plbox(x ? "g" : "", 0, 0, y ? "g" : "", 0, 0)
    }

    /// Axis labels outside the viewport. `yDisp` grows with the width of the y tick labels.
    mutating func axisLabels(x: String, y: String, yDisp: Double = 4.2) {
        edgeText(x, side: "b", disp: 2.9, pos: 0.5, just: 0.5)
        edgeText(y, side: "l", disp: yDisp, pos: 0.5, just: 0.5)
    }

    // MARK: legend

    /// The layout of a legend in page fractions: column widths, row height, padding.
    struct LegendLayout {
        var columnWidths: [Double]
        var rowHeight: Double
        var rows: Int
        var sampleWidth: Double
        var gap: Double
        var columnGap: Double
        var pad: Double
        var width: Double { columnWidths.reduce(0, +) + columnGap * Double(max(columnWidths.count - 1, 0)) + 2 * pad }
        var height: Double { Double(rows) * rowHeight + 2 * pad }
    }

    /// Lays a legend out: entries fill rows left to right; each column is as wide as its longest text.
    /// PLplot's own pllegend sizes text with Hershey metrics in SVG and font metrics in PNG, so the two
    /// files would differ; this layout is the same in both.
    func legendLayout(_ entries: [LegendEntry], columns: Int, sampleWidth: Double) -> LegendLayout {
        let ncol = max(1, min(columns, entries.count))
        let rows = Int((Double(entries.count) / Double(ncol)).rounded(.up))
        let gap = 0.8 * charWidthX * Canvas.legendScale
        var widths = [Double](repeating: 0, count: ncol)
        let indent = entries.contains { $0.hasSample }
        for (i, e) in entries.enumerated() {
            let samples = indent ? sampleWidth + gap : 0
            widths[i % ncol] = max(widths[i % ncol], samples + textWidth(e.text, scale: Canvas.legendScale) * 1.04)
        }
        return LegendLayout(columnWidths: widths, rowHeight: 1.75 * charHeight * Canvas.legendScale, rows: rows,
                            sampleWidth: sampleWidth, gap: gap, columnGap: 3 * charWidthX * Canvas.legendScale,
                            pad: 0.6 * charHeight * Canvas.legendScale)
    }

    /// Size of a legend in page fractions.
    func legendSize(_ entries: [LegendEntry], columns: Int, sampleWidth: Double) -> (width: Double, height: Double) {
        let l = legendLayout(entries, columns: columns, sampleWidth: sampleWidth)
        return (l.width, l.height)
    }

    /// Where a legend sits inside the area it is given.
    enum LegendAnchor { case topLeft, top, topRight, bottomLeft, bottomRight }

    /// Draws a legend inside `area` (page fractions), at `anchor`, inset by `inset` (page fractions).
    /// Outside legends get an area beside or under the plot box, so they never cover data; inside ones
    /// get a white background and a frame. Leaves the viewport at the whole page: set it again afterwards.
    mutating func legend(_ entries: [LegendEntry], in area: PageRect, anchor: LegendAnchor, columns: Int = 1,
                         sampleWidth: Double = 0.045, inset: Double = 0, boxed: Bool = false) {
        guard !entries.isEmpty else { return }
        let l = legendLayout(entries, columns: columns, sampleWidth: sampleWidth)
        let x0: Double, y1: Double
        switch anchor {
        case .topLeft, .bottomLeft: x0 = area.minX + inset
        case .top: x0 = (area.minX + area.maxX - l.width) / 2
        case .topRight, .bottomRight: x0 = area.maxX - inset - l.width
        }
        switch anchor {
        case .topLeft, .top, .topRight: y1 = area.maxY - inset
        case .bottomLeft, .bottomRight: y1 = area.minY + inset + l.height
        }
        viewport(PageRect(minX: 0, maxX: 1, minY: 0, maxY: 1))
        window(0, 1, 0, 1)
        if boxed {
            fillRect(x0, y1 - l.height, x0 + l.width, y1, .white)
            pen(PlotColor(hex: 0x999999), width: 1)
            line([x0, x0 + l.width, x0 + l.width, x0, x0], [y1 - l.height, y1 - l.height, y1, y1, y1 - l.height])
        }
        let ncol = l.columnWidths.count
        for (i, e) in entries.enumerated() {
            let col = i % ncol, row = i / ncol
            var x = x0 + l.pad + l.columnWidths[..<col].reduce(0, +) + Double(col) * l.columnGap
            let y = y1 - l.pad - (Double(row) + 0.5) * l.rowHeight
            let indent = entries.contains { $0.hasSample }
            if indent {
                if let b = e.box {
                    let h = l.rowHeight * 0.34, w = min(l.sampleWidth * 0.5, h * 3 / pageAspect)
                    let cx = x + l.sampleWidth / 2
                    fillRect(cx - w / 2, y - h, cx + w / 2, y + h, b)
                }
                if let ln = e.line {
                    pen(ln.color, width: ln.width, style: ln.style)
                    line([x, x + l.sampleWidth], [y, y])
                }
                if let m = e.marker {
                    markers([x + l.sampleWidth / 2], [y], m.marker, color: m.color, scale: m.scale)
                }
                x += l.sampleWidth + l.gap
            }
            text(e.text, x: x, y: y, just: 0, color: .ink, scale: Canvas.legendScale)
        }
        c_pllsty(1)
        c_plwidth(1)
    }

    /// Draws a legend at `placement` relative to the plot box `plot` (page fractions). `rightGap` keeps an
    /// outside-right legend clear of a colour bar.
    mutating func legend(_ entries: [LegendEntry], placement: LegendPlacement, plot: PageRect, columns: Int = 1,
                         sampleWidth: Double = 0.045, rightGap: Double = 0.015) {
        let inside = 0.012
        switch placement {
        case .none: return
        case .insideTopLeft: legend(entries, in: plot, anchor: .topLeft, sampleWidth: sampleWidth, inset: inside, boxed: true)
        case .insideTopRight: legend(entries, in: plot, anchor: .topRight, sampleWidth: sampleWidth, inset: inside, boxed: true)
        case .insideBottomLeft: legend(entries, in: plot, anchor: .bottomLeft, sampleWidth: sampleWidth, inset: inside, boxed: true)
        case .insideBottomRight: legend(entries, in: plot, anchor: .bottomRight, sampleWidth: sampleWidth, inset: inside, boxed: true)
        case .outsideRight:
            legend(entries, in: PageRect(minX: plot.maxX + rightGap, maxX: 0.995, minY: 0.005, maxY: plot.maxY),
                   anchor: .topLeft, sampleWidth: sampleWidth)
        case .below:
            legend(entries, in: PageRect(minX: 0.005, maxX: 0.995, minY: 0.005, maxY: plot.minY - Canvas.belowAxisLabel * charHeight),
                   anchor: .top, columns: columns, sampleWidth: sampleWidth)
        }
        viewport(plot)
    }

    /// Character heights under the plot box taken by tick labels and the x-axis label.
    static let belowAxisLabel = 3.9

    // MARK: colour map 1 and colour bars

    /// Sets colour map 1 to a sequential map (viridis: dark purple = low, yellow = high; perceptually
    /// uniform and readable by colour-blind readers).
    func useSequentialColorMap() {
        let stops: [(Double, UInt32)] = [
            (0.0, 0x440154), (0.125, 0x482878), (0.25, 0x3E4989), (0.375, 0x31688E), (0.5, 0x26828E),
            (0.625, 0x1F9E89), (0.75, 0x35B779), (0.875, 0x6ECE58), (1.0, 0xFDE725),
        ]
        c_plscmap1n(256)
        var pos = stops.map(\.0)
        var r = stops.map { Double(($0.1 >> 16) & 0xFF) / 255 }
        var g = stops.map { Double(($0.1 >> 8) & 0xFF) / 255 }
        var b = stops.map { Double($0.1 & 0xFF) / 255 }
        c_plscmap1l(1, Int32(stops.count), &pos, &r, &g, &b, nil)
    }

    /// Fills a polygon with colour map 1 at `fraction` (0…1).
    func fill(_ xs: [Double], _ ys: [Double], colorMapFraction f: Double) {
        c_plcol1(max(0, min(1, f)))
        fill(xs, ys)
    }

    /// Filled contours of a regular grid (`values[ix][iy]` at x = xmin + ix·(xmax−xmin)/(nx−1)),
    /// one colour-map-1 colour per band between consecutive `levels`. Values below the first level are
    /// left unfilled.
    func shades(_ values: [[Double]], xmin: Double, xmax: Double, ymin: Double, ymax: Double, levels: [Double]) {
        let nx = values.count, ny = values.first?.count ?? 0
        guard nx >= 2, ny >= 2, levels.count >= 2 else { return }
        let columns: [UnsafeMutablePointer<Double>] = values.map { col in
            let p = UnsafeMutablePointer<Double>.allocate(capacity: ny)
            p.initialize(from: col, count: ny)
            return p
        }
        defer { columns.forEach { $0.deallocate() } }
        var rows: [UnsafePointer<Double>?] = columns.map { UnsafePointer($0) }
        var lv = levels
        rows.withUnsafeMutableBufferPointer { rp in
            c_plshades(rp.baseAddress, Int32(nx), Int32(ny), nil, xmin, xmax, ymin, ymax, &lv, Int32(lv.count),
                       0, 0, 0, { n, x, y in c_plfill(n, x, y) }, 1, nil, nil)
        }
    }

    /// A vertical colour bar right of the current viewport.
    /// - Parameters:
    ///   - levels: band edges for a shaded bar (one band per pair), or nil for a continuous gradient over `range`.
    ///   - capHigh: draw a triangle on top: values above the range are shown in the top colour.
    mutating func colorBar(label: String, range: ClosedRange<Double>, levels: [Double]?, capHigh: Bool,
                           offset: Double = 0.02, barWidth: Double = 0.025) {
        let vp = currentViewport()
        var opt = Int32(PL_COLORBAR_LABEL_RIGHT)
        if capHigh { opt |= Int32(PL_COLORBAR_CAP_HIGH) }
        var values: [Double]
        var axis: String
        if let levels {
            opt |= Int32(PL_COLORBAR_SHADE | PL_COLORBAR_SHADE_LABEL)
            values = levels
            axis = "bcmtv"
        } else {
            opt |= Int32(PL_COLORBAR_GRADIENT)
            values = [range.lowerBound, range.upperBound]
            axis = "bcmstv"
        }
        var labelOpts = [Int32(PL_COLORBAR_LABEL_RIGHT)]
        var ticks = [0.0]
        var subTicks: [Int32] = [0]
        var nValues = [Int32(values.count)]
        let position = Int32(PL_POSITION_OUTSIDE | PL_POSITION_RIGHT)
        var w = 0.0, h = 0.0
        pen(.ink)
        charScale(0.85)
        values.withUnsafeBufferPointer { vb in
            var rows: [UnsafePointer<Double>?] = [vb.baseAddress]
            withCStrings([Canvas.escape(label)]) { lab in
                withCStrings([axis]) { ax in
                    c_plcolorbar(&w, &h, opt, position, offset / max(vp.width, 1e-9), 0,
                                 barWidth / max(vp.width, 1e-9), 0.86, 0, 1, 1, 0, 1, 0, 0,
                                 1, &labelOpts, lab, 1, ax, &ticks, &subTicks, &nValues, &rows)
                }
            }
        }
        charScale(1)
    }

    // MARK: text helpers

    /// PLplot reads `#` as its escape character; a literal one is written `##`.
    static func escape(_ s: String) -> String { s.replacingOccurrences(of: "#", with: "##") }
}

/// Calls `body` with stable C strings for the duration of the call.
func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return body(copies.map { UnsafePointer($0) })
}
