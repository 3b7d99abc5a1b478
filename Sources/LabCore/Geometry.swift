import Foundation

/// A point or vector on the floorplan, in metres: x east, y north, origin at the south-west corner.
public struct Point: Hashable, Sendable, Codable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    @inlinable public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    @inlinable public init(x: Double, y: Double) { self.x = x; self.y = y }

    public static let zero = Point(0, 0)

    @inlinable public static func + (a: Point, b: Point) -> Point { Point(a.x + b.x, a.y + b.y) }
    @inlinable public static func - (a: Point, b: Point) -> Point { Point(a.x - b.x, a.y - b.y) }
    @inlinable public static func * (a: Point, s: Double) -> Point { Point(a.x * s, a.y * s) }
    @inlinable public static func * (s: Double, a: Point) -> Point { Point(a.x * s, a.y * s) }
    @inlinable public static func / (a: Point, s: Double) -> Point { Point(a.x / s, a.y / s) }

    @inlinable public var length: Double { (x * x + y * y).squareRoot() }
    @inlinable public var lengthSquared: Double { x * x + y * y }
    @inlinable public func distance(to other: Point) -> Double { (self - other).length }
    @inlinable public func dot(_ o: Point) -> Double { x * o.x + y * o.y }
    /// z component of the 2-D cross product.
    @inlinable public func cross(_ o: Point) -> Double { x * o.y - y * o.x }
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite }

    /// This point rotated counter-clockwise (in the x-east/y-north plane) by `radians` about `center`.
    public func rotated(by radians: Double, about center: Point = .zero) -> Point {
        let c = cos(radians), s = sin(radians), d = self - center
        return Point(center.x + c * d.x - s * d.y, center.y + s * d.x + c * d.y)
    }

    public var description: String { "(\(Format.metres(x)), \(Format.metres(y)))" }
}

/// Compass bearings: degrees clockwise from north, in [0, 360).
public enum Bearing {
    /// Bearing from `a` to `b`: atan2(bx − ax, by − ay), in degrees, normalised to [0, 360).
    @inlinable public static func degrees(from a: Point, to b: Point) -> Double {
        normalise(atan2(b.x - a.x, b.y - a.y) * 180 / .pi)
    }
    @inlinable public static func normalise(_ degrees: Double) -> Double {
        var d = degrees.truncatingRemainder(dividingBy: 360)
        if d < 0 { d += 360 }
        return d >= 360 ? 0 : d
    }
    /// Signed smallest difference a − b in degrees, in (−180, 180].
    @inlinable public static func difference(_ a: Double, _ b: Double) -> Double {
        var d = (a - b).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
        return d
    }
    /// Unit vector pointing along a compass heading (x east, y north).
    @inlinable public static func unitVector(_ degrees: Double) -> Point {
        let r = degrees * .pi / 180
        return Point(sin(r), cos(r))
    }
}

/// A straight segment between two points.
public struct Segment: Hashable, Sendable, Codable {
    public var a: Point
    public var b: Point
    public init(_ a: Point, _ b: Point) { self.a = a; self.b = b }

    public var length: Double { a.distance(to: b) }

    /// True when this segment and `p`–`q` cross at a single interior point (touching ends counts).
    /// Collinear overlaps do not count: a line of sight running along a wall does not pass through it.
    @inlinable public func intersects(_ p: Point, _ q: Point) -> Bool {
        let r = q - p, s = b - a
        let denom = r.cross(s)
        if denom == 0 { return false }
        let ap = a - p
        let t = ap.cross(s) / denom
        let u = ap.cross(r) / denom
        return t >= 0 && t <= 1 && u >= 0 && u <= 1
    }

    /// Distance from `p` to the closest point of the segment.
    public func distance(to p: Point) -> Double {
        let d = b - a
        let l2 = d.lengthSquared
        if l2 == 0 { return p.distance(to: a) }
        let t = max(0, min(1, (p - a).dot(d) / l2))
        return p.distance(to: a + d * t)
    }
}

/// A simple polygon (vertices in order, closed implicitly).
public struct Polygon: Hashable, Sendable, Codable {
    public var vertices: [Point]
    public init(_ vertices: [Point]) { self.vertices = vertices }

    /// Signed area (positive when counter-clockwise).
    public var signedArea: Double {
        guard vertices.count >= 3 else { return 0 }
        var s = 0.0
        for i in vertices.indices {
            let p = vertices[i], q = vertices[(i + 1) % vertices.count]
            s += p.cross(q)
        }
        return s / 2
    }
    public var area: Double { abs(signedArea) }

    public var centroid: Point {
        let a = signedArea
        guard abs(a) > 1e-12 else {
            return vertices.reduce(.zero, +) / Double(max(vertices.count, 1))
        }
        var cx = 0.0, cy = 0.0
        for i in vertices.indices {
            let p = vertices[i], q = vertices[(i + 1) % vertices.count]
            let c = p.cross(q)
            cx += (p.x + q.x) * c
            cy += (p.y + q.y) * c
        }
        return Point(cx / (6 * a), cy / (6 * a))
    }

    /// Even-odd rule point-in-polygon test.
    public func contains(_ p: Point) -> Bool {
        var inside = false
        var j = vertices.count - 1
        for i in vertices.indices {
            let a = vertices[i], b = vertices[j]
            if (a.y > p.y) != (b.y > p.y) {
                let xCross = (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x
                if p.x < xCross { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// True when two non-adjacent edges cross (a "bow-tie").
    public var isSelfIntersecting: Bool {
        let n = vertices.count
        guard n > 3 else { return false }
        for i in 0..<n {
            let e1 = Segment(vertices[i], vertices[(i + 1) % n])
            for j in stride(from: i + 2, to: n, by: 1) where !(i == 0 && j == n - 1) {
                if e1.intersects(vertices[j], vertices[(j + 1) % n]) { return true }
            }
        }
        return false
    }

    public var boundingBox: Rect {
        let xs = vertices.map(\.x), ys = vertices.map(\.y)
        return Rect(minX: xs.min() ?? 0, minY: ys.min() ?? 0, maxX: xs.max() ?? 0, maxY: ys.max() ?? 0)
    }
}

/// An axis-aligned rectangle.
public struct Rect: Hashable, Sendable, Codable {
    public var minX: Double, minY: Double, maxX: Double, maxY: Double
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
    }
    public var width: Double { maxX - minX }
    public var height: Double { maxY - minY }
    public var area: Double { width * height }
    public func contains(_ p: Point, tolerance: Double = 1e-9) -> Bool {
        p.x >= minX - tolerance && p.x <= maxX + tolerance && p.y >= minY - tolerance && p.y <= maxY + tolerance
    }
    /// The closest point of the rectangle to `p`.
    public func clamp(_ p: Point) -> Point {
        Point(min(max(p.x, minX), maxX), min(max(p.y, minY), maxY))
    }
    /// `p` mirrored into the rectangle across each side it lies beyond (then clamped, for a point more than the
    /// rectangle's width or height beyond it).
    public func reflect(_ p: Point) -> Point {
        @inline(__always) func mirrored(_ v: Double, _ lo: Double, _ hi: Double) -> Double {
            v < lo ? 2 * lo - v : v > hi ? 2 * hi - v : v
        }
        return clamp(Point(mirrored(p.x, minX, maxX), mirrored(p.y, minY, maxY)))
    }
}

/// Number formatting shared by tables, CSV and messages.
public enum Format {
    public static func metres(_ v: Double) -> String { fixed(v, 2) }
    /// `v` with `digits` decimals; beyond ±1e9 in scientific notation, so a runaway value (1e300 s) prints
    /// as `1.000e+300`, not 300 digits.
    public static func fixed(_ v: Double, _ digits: Int) -> String {
        if !v.isFinite { return v.isNaN ? "nan" : (v > 0 ? "inf" : "-inf") }
        if abs(v) >= 1e9 { return String(format: "%.3e", v) }
        return String(format: "%.\(digits)f", v)
    }
    /// A quantity in a message: whole numbers as such (below 1e15), others with up to 6 significant digits.
    public static func number(_ v: Double) -> String {
        if !v.isFinite { return v.isNaN ? "nan" : (v > 0 ? "inf" : "-inf") }
        if v == v.rounded() && abs(v) < 1e15 { return String(Int(v)) }
        return String(format: "%.6g", v)
    }
    /// "expected 0.5–10 dB, found 12" when `v` lies outside `range` (NaN included), nil inside: the one wording of a
    /// range check, for scenarios, recordings, fit files and options alike. `unit` follows the range (none when empty).
    public static func outside(_ range: ClosedRange<Double>, _ v: Double, unit: String = "") -> String? {
        range.contains(v) ? nil : "expected \(number(range.lowerBound))–\(number(range.upperBound))\(unit.isEmpty ? "" : " " + unit), found \(number(v))"
    }
}
