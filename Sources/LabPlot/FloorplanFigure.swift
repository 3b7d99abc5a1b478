import Foundation
import LabCore

/// What a floorplan figure draws of a venue: plain geometry in metres (x east, y north).
public struct Floorplan: Sendable {
    public struct Room: Sendable {
        public var name: String
        public var polygon: [Point]
        public init(name: String, polygon: [Point]) { self.name = name; self.polygon = polygon }
    }

    /// A frieze: drawn as a thick bar `width` long across its facing direction.
    public struct Frieze: Sendable {
        public var position: Point
        /// Compass heading the face looks toward, degrees; nil: drawn east–west.
        public var facing: Double?
        public var width: Double
        public init(position: Point, facing: Double?, width: Double) {
            self.position = position; self.facing = facing; self.width = width
        }
    }

    public var bounds: Rect
    public var rooms: [Room]
    public var walls: [Segment]
    public var beacons: [Point]
    public var exhibits: [Point]
    public var friezes: [Frieze]
    public var checkpoints: [Point]

    public init(bounds: Rect, rooms: [Room] = [], walls: [Segment] = [], beacons: [Point] = [], exhibits: [Point] = [],
                friezes: [Frieze] = [], checkpoints: [Point] = []) {
        self.bounds = bounds; self.rooms = rooms; self.walls = walls; self.beacons = beacons
        self.exhibits = exhibits; self.friezes = friezes; self.checkpoints = checkpoints
    }

    /// The floorplan of a scenario, all of it.
    public init(scenario s: Scenario) {
        self.init(bounds: s.bounds,
                  rooms: s.rooms.map { Room(name: $0.name, polygon: $0.polygon.vertices) },
                  walls: s.walls.map(\.segment),
                  beacons: s.beacons.map(\.position),
                  exhibits: s.exhibits.map(\.position),
                  friezes: s.friezes.map { Frieze(position: $0.position, facing: $0.facing, width: $0.width) },
                  checkpoints: s.checkpoints.map(\.position))
    }

    // Colours and markers of the venue's elements, the same in every figure.
    /// Walls are thick and grey: context, and never mistaken for the (black, thinner) true path.
    static let wallColor = PlotColor(hex: 0x8A8A8A)
    /// On a colour field walls are dark with a white halo, readable on any colour.
    static let wallOnFieldColor = PlotColor.ink
    static let roomFill = PlotColor(hex: 0xF3F1EC)
    static let roomNameColor = PlotColor(hex: 0x4D4D4D)
    static let beacon = (marker: Marker.triangle, color: PlotColor.black, scale: 0.75)
    static let exhibit = (marker: Marker.diamond, color: PlotColor(hex: 0xA6611A), scale: 0.8)
    static let checkpoint = (marker: Marker.square, color: PlotColor(hex: 0x1B7837), scale: 0.7)
    static let friezeColor = PlotColor(hex: 0x762A83)
}

/// Values over the floorplan: square cells around test points, or a regular grid drawn as filled contours.
public struct ScalarField: Sendable {
    public enum Layout: Sendable {
        /// Square cells of side `size` centred on each point; `values[i]` belongs to `centres[i]`.
        case cells(centres: [Point], size: Double)
        /// `nx` × `ny` nodes spanning the rectangle edge to edge; `values[iy * nx + ix]`.
        case grid(Rect, nx: Int, ny: Int)
    }

    public var layout: Layout
    /// NaN: no value (drawn grey, see `missingLabel`); +∞: above the colour range (top colour).
    public var values: [Double]
    /// Colour-bar title with its unit, e.g. "mean error (m)".
    public var label: String
    /// nil: from 0 (or the smallest value if negative) to the 98th percentile, rounded up; values above it
    /// take the top colour and the bar gets a cap.
    public var range: ClosedRange<Double>?
    /// Legend text for cells without a value, e.g. "no fix".
    public var missingLabel: String?
    /// Colour bands of a grid when `range` is given (an automatic range gets round band edges).
    public var levels: Int

    public init(layout: Layout, values: [Double], label: String, range: ClosedRange<Double>? = nil,
                missingLabel: String? = nil, levels: Int = 10) {
        self.layout = layout; self.values = values; self.label = label; self.range = range
        self.missingLabel = missingLabel; self.levels = levels
    }

    /// The colour range, whether some values lie above it, and the band edges of a grid.
    var colorRange: (range: ClosedRange<Double>, above: Bool, levels: [Double]) {
        let finite = values.filter(\.isFinite).sorted()
        let r: ClosedRange<Double>
        var edges: [Double]
        if let range {
            r = range
            let n = max(levels, 2)
            edges = (0...n).map { range.lowerBound + (range.upperBound - range.lowerBound) * Double($0) / Double(n) }
        } else if finite.isEmpty {
            // Nothing to scale (every value missing or above any range): a nominal bar, not drawn.
            r = 0...1
            edges = [0, 0.5, 1]
        } else {
            let lo = min(0, finite.first ?? 0)
            let p98 = SortedSample(alreadySorted: finite).quantile(0.98)
            // The finest round step that needs at most 12 bands.
            var step = Axis.niceStep(max(p98 - lo, 1e-9) / 12)
            if ((p98 - lo) / step).rounded(.up) > 12 { step = Axis.niceStep(step * 1.01) }
            var hi = lo + (max(p98 - lo, step) / step).rounded(.up) * step
            if !(hi > lo) { hi = lo + 1 }
            // At least two bands: PLplot colours band i of n at i / (n − 1), NaN for one band.
            if ((hi - lo) / step).rounded() < 2 { hi = lo + 2 * step }
            r = lo...hi
            let n = Int(((hi - lo) / step).rounded())
            edges = (0...n).map { lo + Double($0) * step }
        }
        let above = values.contains { !$0.isNaN && $0 > r.upperBound }
        return (r, above, edges)
    }

    var hasMissing: Bool { values.contains(where: \.isNaN) }
    /// Whether any value has a colour (else no colour bar is drawn).
    var hasColors: Bool { values.contains { !$0.isNaN } }
    static let missingColor = PlotColor(hex: 0xBDBDBD)
}

/// The floorplan — walls, rooms with names, beacons, exhibits, friezes, QR checkpoints — with paths
/// (the truth, estimators' fixes) and optionally a scalar field under it with a colour bar.
/// x and y use the same scale.
public struct FloorplanFigure: Figure, CanvasDrawable {
    /// A path across the floorplan: a line, markers, or both.
    public struct Path: Sendable {
        public var label: String
        public var points: [Point]
        public var style: SeriesStyle
        /// Paths are drawn by increasing layer (the highest on top); the legend keeps the array's order.
        public var layer: Int
        /// false: drawn but not listed (one of many circles listed once).
        public var inLegend: Bool
        public init(label: String, points: [Point], style: SeriesStyle, layer: Int = 0, inLegend: Bool = true) {
            self.label = label; self.points = points; self.style = style; self.layer = layer; self.inLegend = inLegend
        }
    }

    public var title: String
    public var floorplan: Floorplan
    /// Listed in the legend in this order; drawn by ``Path/layer``.
    public var paths: [Path]
    public var field: ScalarField?
    public var showRoomNames: Bool

    public init(title: String, floorplan: Floorplan, paths: [Path] = [], field: ScalarField? = nil, showRoomNames: Bool = true) {
        self.title = title; self.floorplan = floorplan; self.paths = paths; self.field = field; self.showRoomNames = showRoomNames
    }

    var legendEntries: [LegendEntry] {
        let f = floorplan
        var e = paths.filter(\.inLegend).map { LegendEntry(text: $0.label, style: $0.style) }
        if !f.beacons.isEmpty {
            e.append(LegendEntry(text: "beacon", marker: (Floorplan.beacon.color, Floorplan.beacon.marker, Floorplan.beacon.scale)))
        }
        if !f.exhibits.isEmpty {
            e.append(LegendEntry(text: "exhibit", marker: (Floorplan.exhibit.color, Floorplan.exhibit.marker, Floorplan.exhibit.scale)))
        }
        if !f.friezes.isEmpty { e.append(LegendEntry(text: "frieze", line: (Floorplan.friezeColor, .solid, 5))) }
        if !f.checkpoints.isEmpty {
            e.append(LegendEntry(text: "QR checkpoint",
                                 marker: (Floorplan.checkpoint.color, Floorplan.checkpoint.marker, Floorplan.checkpoint.scale)))
        }
        if let field, field.hasMissing, let m = field.missingLabel { e.append(LegendEntry(text: m, box: ScalarField.missingColor)) }
        return e
    }

    func draw(on c: inout Canvas) {
        c.title(title)
        let b = floorplan.bounds
        let margin = max(b.width, b.height) * 0.015
        let world = (minX: b.minX - margin, maxX: b.maxX + margin, minY: b.minY - margin, maxY: b.maxY + margin)
        let aspect = (world.maxY - world.minY) / (world.maxX - world.minX)
        let entries = legendEntries
        let colorBarReserve = field == nil ? 0.0 : 0.115
        let sample = 0.04

        // Legend to the right or below, whichever leaves the larger map.
        let left = Axis.leftEdge(world.minY...world.maxY, charHeightX: c.charHeightX)
        var region = PageRect(minX: left, maxX: 0.975 - colorBarReserve, minY: 0.1, maxY: 0.885)
        let right = c.legendSize(entries, columns: 1, sampleWidth: sample)
        var columns = min(entries.count, 4)
        while columns > 1, c.legendSize(entries, columns: columns, sampleWidth: sample).width > 0.97 { columns -= 1 }
        let below = c.legendSize(entries, columns: columns, sampleWidth: sample)
        func mapArea(_ r: PageRect) -> Double {
            let w = r.width, h = r.height * c.pageAspect
            let s = min(w, h / aspect)
            return s * s * aspect
        }
        var rRight = region; rRight.maxX -= right.width + 0.02
        var rBelow = region; rBelow.minY = 0.01 + below.height + Canvas.belowAxisLabel * c.charHeight
        let legendRight = entries.isEmpty ? false : mapArea(rRight) >= mapArea(rBelow)
        if !entries.isEmpty { region = legendRight ? rRight : rBelow }

        var vp = c.viewport(region, aspect: aspect)
        // Centre the block of map, axis labels and legend vertically in the room left under the title.
        let under = (legendRight || entries.isEmpty ? 0 : below.height) + Canvas.belowAxisLabel * c.charHeight
        let spare = vp.minY - under - 0.01
        if spare > 0.01 {
            vp.minY -= spare / 2; vp.maxY -= spare / 2
            c.viewport(vp)
        }
        c.window(world.minX, world.maxX, world.minY, world.maxY)

        drawField(on: &c)
        drawVenue(on: &c)
        for p in paths.enumerated().sorted(by: { ($0.element.layer, $0.offset) < ($1.element.layer, $1.offset) }).map(\.element) {
            if let l = p.style.line {
                c.pen(p.style.color, width: p.style.lineWidth, style: l)
                c.line(p.points)
            }
            if let m = p.style.marker {
                c.markers(p.points.map(\.x), p.points.map(\.y), m, color: p.style.color, scale: p.style.markerScale)
            }
        }
        c.pen(.ink)
        c.box(x: "bcnst", y: "bcnstv")
        c.axisLabels(x: "x (m)", y: "y (m)", yDisp: Axis.labelDisplacement(world.minY...world.maxY))

        if let field, field.hasColors {
            let (range, above, edges) = field.colorRange
            c.useSequentialColorMap()
            let levels: [Double]?
            if case .grid = field.layout { levels = edges } else { levels = nil }
            c.colorBar(label: field.label, range: range, levels: levels, capHigh: above)
        }
        if legendRight {
            c.legend(entries, placement: .outsideRight, plot: vp, sampleWidth: sample,
                     rightGap: 0.015 + (field == nil ? 0 : colorBarReserve))
        } else {
            c.legend(entries, placement: .below, plot: vp, columns: columns, sampleWidth: sample)
        }
    }

    private func drawField(on c: inout Canvas) {
        c.pen(Floorplan.roomFill)
        for r in floorplan.rooms { c.fill(r.polygon.map(\.x), r.polygon.map(\.y)) }
        guard let field else { return }
        let (range, _, levels) = field.colorRange
        c.useSequentialColorMap()
        let span = max(range.upperBound - range.lowerBound, 1e-12)
        switch field.layout {
        case .cells(let centres, let size):
            let h = size / 2
            for (p, v) in zip(centres, field.values) {
                let xs = [p.x - h, p.x + h, p.x + h, p.x - h], ys = [p.y - h, p.y - h, p.y + h, p.y + h]
                if v.isNaN {
                    c.pen(ScalarField.missingColor)
                    c.fill(xs, ys)
                } else {
                    c.fill(xs, ys, colorMapFraction: (v - range.lowerBound) / span)
                }
            }
        case .grid(let rect, let nx, let ny):
            guard nx >= 2, ny >= 2, field.values.count == nx * ny else { return }
            // A missing node's cell is grey (the shading below leaves it unfilled).
            let dx = rect.width / Double(nx - 1), dy = rect.height / Double(ny - 1)
            c.pen(ScalarField.missingColor)
            for iy in 0..<ny {
                for ix in 0..<nx where field.values[iy * nx + ix].isNaN {
                    let x = rect.minX + Double(ix) * dx, y = rect.minY + Double(iy) * dy
                    let x0 = max(rect.minX, x - dx / 2), x1 = min(rect.maxX, x + dx / 2)
                    let y0 = max(rect.minY, y - dy / 2), y1 = min(rect.maxY, y + dy / 2)
                    c.fill([x0, x1, x1, x0], [y0, y0, y1, y1])
                }
            }
            let top = range.upperBound - span * 1e-6
            var matrix = [[Double]](repeating: [Double](repeating: 0, count: ny), count: nx)
            for iy in 0..<ny {
                for ix in 0..<nx {
                    let v = field.values[iy * nx + ix]
                    matrix[ix][iy] = v.isNaN ? range.lowerBound - span : min(max(v, range.lowerBound), top)
                }
            }
            c.shades(matrix, xmin: rect.minX, xmax: rect.maxX, ymin: rect.minY, ymax: rect.maxY, levels: levels)
        }
    }

    private func drawVenue(on c: inout Canvas) {
        let f = floorplan
        let onField = field != nil
        // Walls: on a coloured field, a white halo under each wall keeps it visible on any colour.
        if onField {
            c.pen(.white, width: 5.5)
            for w in f.walls { c.line([w.a.x, w.b.x], [w.a.y, w.b.y]) }
        }
        c.pen(onField ? Floorplan.wallOnFieldColor : Floorplan.wallColor, width: onField ? 2.5 : 5)
        for w in f.walls { c.line([w.a.x, w.b.x], [w.a.y, w.b.y]) }

        if showRoomNames { drawRoomNames(on: &c, boxed: onField) }

        for fr in f.friezes {
            let across = Bearing.unitVector((fr.facing ?? 0) + 90) * (fr.width / 2)
            let a = fr.position - across, b = fr.position + across
            if onField {
                c.pen(.white, width: 9)
                c.line([a.x, b.x], [a.y, b.y])
            }
            c.pen(Floorplan.friezeColor, width: 5)
            c.line([a.x, b.x], [a.y, b.y])
        }
        func symbols(_ pts: [Point], _ s: (marker: Marker, color: PlotColor, scale: Double)) {
            guard !pts.isEmpty else { return }
            if onField { c.markers(pts.map(\.x), pts.map(\.y), s.marker, color: .white, scale: s.scale * 1.45) }
            c.markers(pts.map(\.x), pts.map(\.y), s.marker, color: s.color, scale: s.scale)
        }
        symbols(f.checkpoints, Floorplan.checkpoint)
        symbols(f.exhibits, Floorplan.exhibit)
        symbols(f.beacons, Floorplan.beacon)
    }

    /// Points a room name should not cover: the venue's markers and frieze bars, and lines without markers
    /// (the true path), sampled densely.
    private var labelObstacles: [Point] {
        let f = floorplan
        let step = max(f.bounds.width, f.bounds.height) / 200
        // Only the part inside the floorplan can cover a name (a 100 km ellipse would be sampled into millions).
        func sample(_ a: Point, _ b: Point) -> [Point] {
            guard let (a, b) = FloorplanFigure.clipped(a, b, to: f.bounds) else { return [] }
            let n = max(1, Int((a.distance(to: b) / step).rounded(.up)))
            return (0...n).map { a + (b - a) * (Double($0) / Double(n)) }
        }
        var pts = f.beacons + f.exhibits + f.checkpoints
        for fr in f.friezes {
            let across = Bearing.unitVector((fr.facing ?? 0) + 90) * (fr.width / 2)
            pts += sample(fr.position - across, fr.position + across)
        }
        for p in paths where p.style.marker == nil {
            for (a, b) in zip(p.points, p.points.dropFirst()) { pts += sample(a, b) }
        }
        return pts
    }

    /// The part of segment a–b inside `r` (Liang–Barsky), or nil when none is (or a point is not finite).
    static func clipped(_ a: Point, _ b: Point, to r: Rect) -> (Point, Point)? {
        guard a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite else { return nil }
        let d = b - a
        var t0 = 0.0, t1 = 1.0
        for (p, q) in [(-d.x, a.x - r.minX), (d.x, r.maxX - a.x), (-d.y, a.y - r.minY), (d.y, r.maxY - a.y)] {
            if p == 0 {
                if q < 0 { return nil }
            } else {
                let t = q / p
                if p < 0 { t0 = max(t0, t) } else { t1 = min(t1, t) }
                if t0 > t1 { return nil }
            }
        }
        return (a + d * t0, a + d * t1)
    }

    /// Each room's name inside the room, at the candidate spot (top, bottom, corners, centre) that covers
    /// the fewest markers and path points; broken onto two lines or shrunk to fit the room's width.
    private func drawRoomNames(on c: inout Canvas, boxed: Bool) {
        let perPage = c.worldPerPage()
        let obstacles = labelObstacles
        for r in floorplan.rooms where !r.name.isEmpty {
            let poly = Polygon(r.polygon)
            let box = poly.boundingBox
            // Room names are mostly letters, a little wider than the digits the estimate is tuned on.
            func width(_ s: String, _ k: Double) -> Double { Double(s.count) * c.charWidthX * 1.1 * k * perPage.x }
            // Layouts: one line, then two; each shrunk (down to 0.5) until it fits the room's width.
            var layouts: [(lines: [String], scale: Double)] = []
            for lines in [[r.name], BarFigure.wrap(r.name) { _ in false }] where layouts.isEmpty || lines.count > 1 {
                var scale = 0.72
                while scale > 0.5, lines.contains(where: { width($0, scale) > box.width * 0.92 }) { scale -= 0.04 }
                layouts.append((lines, scale))
            }
            var best: (score: Double, centre: Point, lines: [String], scale: Double)?
            for (li, layout) in layouts.enumerated() {
                let lineHeight = c.charHeight * layout.scale * 1.35 * perPage.y
                let w = (layout.lines.map { width($0, layout.scale) }.max() ?? 0) * 1.08
                let h = lineHeight * Double(layout.lines.count)
                let padX = min(perPage.x * 0.012, max(0, (box.width - w) / 2))
                let padY = min(perPage.y * 0.012, max(0, (box.height - h) / 2))
                let top = box.maxY - padY - h / 2, bottom = box.minY + padY + h / 2, midY = (box.minY + box.maxY) / 2
                let left = box.minX + padX + w / 2, right = box.maxX - padX - w / 2, midX = (box.minX + box.maxX) / 2
                var candidates = [Point(midX, top), Point(left, top), Point(right, top), Point(midX, bottom), Point(left, bottom),
                                  Point(right, bottom), Point(midX, midY), Point(left, midY), Point(right, midY)]
                // Then a grid over the room, for L-shaped rooms and crowded corners.
                for fy in stride(from: 0.0, through: 1.0, by: 0.125) {
                    for fx in stride(from: 0.0, through: 1.0, by: 0.125) {
                        candidates.append(Point(left + (right - left) * fx, top - (top - bottom) * fy))
                    }
                }
                func covered(_ p: Point) -> Int {
                    let hw = w / 2 + perPage.x * 0.014, hh = h / 2 + perPage.y * 0.014
                    return obstacles.reduce(0) { $0 + (abs($1.x - p.x) <= hw && abs($1.y - p.y) <= hh ? 1 : 0) }
                }
                // A name that spills out of its room scores as badly as one covering a marker.
                func outside(_ p: Point) -> Int {
                    let corners = [Point(p.x - w / 2, p.y - h / 2), Point(p.x + w / 2, p.y - h / 2), Point(p.x + w / 2, p.y + h / 2),
                                   Point(p.x - w / 2, p.y + h / 2), Point(p.x, p.y + h / 2), Point(p.x, p.y - h / 2)]
                    return corners.filter { !poly.contains($0) }.count
                }
                for (k, p) in candidates.enumerated() where poly.contains(p) {
                    let score = Double(covered(p) + outside(p)) * 10 + Double(li) * 0.5 + Double(k) * 0.001
                    if best == nil || score < best!.score { best = (score, p, layout.lines, layout.scale) }
                }
            }
            guard let best else { continue }
            let lines = best.lines, scale = best.scale
            let lineHeight = c.charHeight * scale * 1.35 * perPage.y
            let h = lineHeight * Double(lines.count)
            var y = best.centre.y + h / 2 - lineHeight / 2
            for line in lines {
                if boxed {
                    let lw = width(line, scale) * 1.08
                    c.fillRect(best.centre.x - lw / 2, y - lineHeight * 0.47, best.centre.x + lw / 2, y + lineHeight * 0.47, PlotColor.white.withAlpha(0.8))
                }
                c.text(line, x: best.centre.x, y: y, just: 0.5, color: Floorplan.roomNameColor, scale: scale)
                y -= lineHeight
            }
        }
    }
}
