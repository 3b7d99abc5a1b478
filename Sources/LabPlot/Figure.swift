import LabCore

/// A figure the lab can draw: plain data (series, grids, polygons) and labels, nothing PLplot-specific.
/// Draw one with ``PlotRenderer/render(_:to:formats:)``.
///
/// The figure types of this module conform; other modules build figures, they do not add kinds of drawing.
public protocol Figure: Sendable {
    /// The title on top of the figure: it names the scenario and the seeds.
    var title: String { get }
}

/// What the renderer needs from a figure. Internal so that no PLplot type reaches the public API.
protocol CanvasDrawable {
    func draw(on canvas: inout Canvas)
}

/// The standard figures of the lab, by their command-line name (`indoorlab plot KIND`).
public enum FigureKind: String, CaseIterable, Sendable, Codable {
    /// Error CDF of each estimator on one scenario.
    case cdf
    /// The floorplan with the true path and estimators' paths.
    case map
    /// One estimator's mean error over the floorplan's test grid.
    case heatmap
    /// sqrt(CRLB) over the floorplan for the scenario's beacons.
    case crlb
    /// P75 per estimator per scenario, grouped bars.
    case leaderboard
    /// RSSI against log distance with the fitted path-loss line (``CalibrationFigure``, drawn by `calibrate --plot`,
    /// not from tournament results).
    case calibration
    /// Accuracy against the number of beacons with the target line (``PlanningFigures``, drawn by `plan --plots`, not
    /// from tournament results).
    case beaconCount = "beacon-count"
    /// Error over time along one walk per estimator, with the posterior bound.
    case errorTime = "error-time"
    /// One estimator's track on the floorplan, coloured by time, with its stated uncertainty every few seconds.
    case track

    /// True for the kinds drawn once per scenario (file `<scenario>-<kind>`); the leaderboard spans scenarios.
    public var isPerScenario: Bool { self != .leaderboard }

    /// The output path without extension: `<directory>/<scenario>-<kind>`, or `<directory>/<kind>` for
    /// figures that span scenarios.
    public func basePath(directory: String, scenario: String?) -> String {
        let dir = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        if let scenario, isPerScenario { return "\(dir)/\(scenario)-\(rawValue)" }
        return "\(dir)/\(rawValue)"
    }
}

/// Output formats: PNG through PLplot's cairo driver, SVG through its svg driver (text stays text).
public enum PlotFormat: String, CaseIterable, Sendable {
    case png, svg

    /// The file extension.
    public var fileExtension: String { rawValue }

    /// The PLplot device that writes this format.
    var device: String {
        switch self {
        case .png: return "pngcairo"
        case .svg: return "svg"
        }
    }
}

/// An sRGB colour with opacity.
public struct PlotColor: Hashable, Sendable {
    public var red: UInt8, green: UInt8, blue: UInt8
    /// 1 = opaque.
    public var alpha: Double

    public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8, alpha: Double = 1) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }

    /// From `0xRRGGBB`.
    public init(hex: UInt32, alpha: Double = 1) {
        self.init(UInt8((hex >> 16) & 0xFF), UInt8((hex >> 8) & 0xFF), UInt8(hex & 0xFF), alpha: alpha)
    }

    public func withAlpha(_ a: Double) -> PlotColor { PlotColor(red, green, blue, alpha: a) }

    public static let white = PlotColor(hex: 0xFFFFFF)
    public static let black = PlotColor(hex: 0x000000)
    /// Axes, labels and text.
    public static let ink = PlotColor(hex: 0x1A1A1A)
    public static let grey = PlotColor(hex: 0x7F7F7F)
    public static let lightGrey = PlotColor(hex: 0xD9D9D9)

    /// Ten series colours that stay apart for colour-blind readers and on white: the Okabe–Ito set
    /// without its yellow (too pale on white), then a dark grey, a brown, and Paul Tol's indigo and olive.
    public static let palette: [PlotColor] = [
        PlotColor(hex: 0x0072B2), // blue
        PlotColor(hex: 0xD55E00), // vermillion
        PlotColor(hex: 0x009E73), // bluish green
        PlotColor(hex: 0xCC79A7), // reddish purple
        PlotColor(hex: 0xE69F00), // orange
        PlotColor(hex: 0x56B4E9), // sky blue
        PlotColor(hex: 0x595959), // dark grey
        PlotColor(hex: 0x8C510A), // brown
        PlotColor(hex: 0x332288), // indigo
        PlotColor(hex: 0x999933), // olive
    ]
}

/// PLplot's eight built-in line styles.
public enum LineStyle: Int32, Sendable, CaseIterable {
    case solid = 1, shortDash = 2, longDash = 3, longDashShortGap = 4
    case dashDot = 5, dashDotDot = 6, dashDashDot = 7, dashDashDotDot = 8
}

/// Point markers, drawn as glyphs so they stay crisp in PNG and are text in SVG.
public enum Marker: String, Sendable, CaseIterable {
    case circle = "●", square = "■", triangle = "▲", diamond = "◆", downTriangle = "▼"
    case cross = "✕", plus = "+", star = "★", openCircle = "○", openSquare = "□"

    /// The glyph PLplot draws.
    public var glyph: String { rawValue }
}

/// How one series looks: colour, an optional line, an optional marker.
public struct SeriesStyle: Hashable, Sendable {
    public var color: PlotColor
    /// nil: no line (markers only).
    public var line: LineStyle?
    /// Line width in PLplot units (1 ≈ a hairline at 1000 px).
    public var lineWidth: Double
    /// nil: no markers.
    public var marker: Marker?
    /// Marker size relative to the default character height.
    public var markerScale: Double

    public init(color: PlotColor, line: LineStyle? = .solid, lineWidth: Double = 2, marker: Marker? = nil, markerScale: Double = 0.7) {
        self.color = color; self.line = line; self.lineWidth = lineWidth; self.marker = marker; self.markerScale = markerScale
    }

    /// The i-th style of a fixed cycle: palette colour i, then line styles and markers that change
    /// together so series stay apart in grey print too.
    public static func cycle(_ i: Int) -> SeriesStyle {
        let n = PlotColor.palette.count
        let k = ((i % n) + n) % n
        // Past the palette, each round shifts the line and the marker, so no two styles repeat.
        let round = max(i, 0) / n
        let lines: [LineStyle] = [.solid, .longDash, .solid, .shortDash, .longDashShortGap, .solid, .dashDot, .longDash, .dashDotDot, .shortDash]
        let markers: [Marker] = [.circle, .square, .triangle, .diamond, .downTriangle, .openCircle, .openSquare, .star, .plus, .cross]
        return SeriesStyle(color: PlotColor.palette[k], line: lines[(k + 3 * round) % lines.count], marker: markers[(k + 7 * round) % markers.count])
    }
}

/// Where a legend goes. Outside placements never cover data.
public enum LegendPlacement: Sendable, Hashable {
    case insideTopLeft, insideTopRight, insideBottomLeft, insideBottomRight
    /// To the right of the plot box, one column.
    case outsideRight
    /// Under the plot box (below the axis label), in rows.
    case below
    /// No legend.
    case none
}

/// Titles and labels name seeds the same way everywhere: "seed 3", "seeds 1–10", "seeds 1, 4, 9".
public enum SeedText {
    public static func describe(_ seeds: [UInt64]) -> String {
        let s = Array(Set(seeds)).sorted()
        guard let first = s.first, let last = s.last else { return "no seeds" }
        if s.count == 1 { return "seed \(first)" }
        if last - first + 1 == UInt64(s.count) { return "seeds \(first)–\(last)" }
        if s.count <= 5 { return "seeds " + s.map(String.init).joined(separator: ", ") }
        return "\(s.count) seeds"
    }
}
