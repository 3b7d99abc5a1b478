import Testing
@testable import LabCore
import LabScenarioIO

@Suite struct GeometryTests {
    @Test func bearingsAreCompassDegrees() {
        let o = Point(0, 0)
        #expect(Bearing.degrees(from: o, to: Point(0, 1)) == 0)
        #expect(abs(Bearing.degrees(from: o, to: Point(1, 0)) - 90) < 1e-12)
        #expect(abs(Bearing.degrees(from: o, to: Point(0, -1)) - 180) < 1e-12)
        #expect(abs(Bearing.degrees(from: o, to: Point(-1, 0)) - 270) < 1e-12)
        #expect(Bearing.normalise(-10) == 350)
        #expect(Bearing.normalise(720) == 0)
        #expect(Bearing.difference(10, 350) == 20)
        #expect(Bearing.difference(350, 10) == -20)
        let u = Bearing.unitVector(90)
        #expect(abs(u.x - 1) < 1e-12 && abs(u.y) < 1e-12)
    }

    @Test func segmentsCrossOnlyWhenTheyDo() {
        let wall = Segment(Point(5, 0), Point(5, 10))
        #expect(wall.intersects(Point(0, 5), Point(10, 5)))
        #expect(!wall.intersects(Point(0, 5), Point(4.9, 5)))
        #expect(!wall.intersects(Point(0, 11), Point(10, 11)))
        // Running along the wall does not pass through it.
        #expect(!wall.intersects(Point(5, 1), Point(5, 9)))
    }

    @Test func pointsOutsideARectangleComeBackInside() {
        let corridor = Rect(minX: 0, minY: 0, maxX: 30, maxY: 2)
        // Mirrored across the side it lies beyond; inside, unchanged; beyond twice the width, clamped.
        #expect(corridor.reflect(Point(12, 2.5)) == Point(12, 1.5))
        #expect(corridor.reflect(Point(-1, -0.5)) == Point(1, 0.5))
        #expect(corridor.reflect(Point(5, 1)) == Point(5, 1))
        #expect(corridor.reflect(Point(5, 7)) == Point(5, 0))
    }

    @Test func polygonContainmentAndArea() {
        let square = Polygon([Point(0, 0), Point(4, 0), Point(4, 4), Point(0, 4)])
        #expect(square.area == 16)
        #expect(square.contains(Point(2, 2)))
        #expect(!square.contains(Point(5, 2)))
        #expect(square.centroid == Point(2, 2))
        let l = Polygon([Point(0, 0), Point(4, 0), Point(4, 1), Point(1, 1), Point(1, 4), Point(0, 4)])
        #expect(l.contains(Point(0.5, 3)))
        #expect(!l.contains(Point(3, 3)))
        #expect(!l.isSelfIntersecting)
    }

    @Test func rotationAboutACentre() {
        let p = Point(2, 1).rotated(by: .pi / 2, about: Point(1, 1))
        #expect(abs(p.x - 1) < 1e-12 && abs(p.y - 2) < 1e-12)
    }

    @Test func landmarkVisibility() {
        let frieze = Landmark(name: "N", kind: .frieze, position: Point(5, 10), facing: 180)
        #expect(frieze.isVisible(from: Point(5, 2)))
        #expect(!frieze.isVisible(from: Point(5, 12)))
    }

    @Test func observationAveragesPerBeaconAndDropsNaN() {
        let readings = [RSSIReading(beacon: 0, t: 0, rssi: -60), RSSIReading(beacon: 1, t: 0, rssi: -70),
                        RSSIReading(beacon: 0, t: 0.1, rssi: -62), RSSIReading(beacon: 1, t: 0.1, rssi: .nan)]
        let o = Observation(readings: readings, beaconCount: 2)
        #expect(o.beacons == [BeaconObservation(beacon: 0, rssi: -61, count: 2), BeaconObservation(beacon: 1, rssi: -70, count: 1)])
        #expect(o.problem(beaconCount: 2) == nil)
        let dup = Observation(beacons: [BeaconObservation(beacon: 0, rssi: -60), BeaconObservation(beacon: 0, rssi: -61)])
        #expect(dup.problem(beaconCount: 2)?.contains("twice") == true)
    }

    /// Beacons strongest first, equal readings by index, however they come (the order already right is kept as given).
    @Test func observationPutsTheStrongestFirst() {
        let b = [BeaconObservation(beacon: 3, rssi: -70), BeaconObservation(beacon: 1, rssi: -60), BeaconObservation(beacon: 2, rssi: -70),
                 BeaconObservation(beacon: 0, rssi: -80)]
        let ordered = [b[1], b[2], b[0], b[3]]
        #expect(Observation(beacons: b).beacons == ordered)
        #expect(Observation(beacons: ordered).beacons == ordered)
        #expect(Observation(beacons: [b[1], b[0], b[2], b[3]]).beacons == ordered)   // a tie out of order
        #expect(Observation(beacons: []).beacons.isEmpty && Observation(beacons: [b[0]]).beacons == [b[0]])
    }
}

@Suite struct FormatTests {
    @Test func runawayValuesPrintInScientificNotation() {
        #expect(Format.fixed(1e300, 1) == "1.000e+300")
        #expect(Format.fixed(-2.5e12, 2) == "-2.500e+12")
        #expect(Format.fixed(12.345, 2) == "12.35")
        #expect(Format.number(2147483648) == "2147483648")
        #expect(Format.number(1e-300) == "1e-300")
        #expect(Format.number(0.02) == "0.02")
        #expect(abbreviated(String(repeating: "x", count: 100), limit: 10) == "xxxxxxxxxx… (100 bytes)")
    }
}

@Suite struct PathTests {
    /// Foundation's `deletingLastPathComponent` trapped on "q" (`plot cdf --out-dir q` crashed); `parentPath` is
    /// `dirname` without the ".".
    @Test func parentPathTakesAPathApartLikeDirname() {
        #expect(parentPath("q") == "")
        #expect(parentPath("plots") == "")
        #expect(parentPath("a/q") == "a")
        #expect(parentPath("a/q/") == "a")
        #expect(parentPath("a//q") == "a")
        #expect(parentPath("/q") == "/")
        #expect(parentPath("/") == "/")
        #expect(parentPath("./q") == ".")
        #expect(parentPath("/tmp/x/y.png") == "/tmp/x")
    }
}

/// The walls' fans (``WallIndex/loss(fromOrigin:to:)``) give the plain query's loss bit for bit: over the walled bundled
/// scenarios from every beacon, and over 70 random walls (two words of walls per sector) with losses that do not add
/// exactly, from origins on a wall, at a wall's end and an ulp off it (where the test's rounding finds crossings in any
/// direction), in line with a wall and anywhere, to random points, to the walls' ends, to points on walls, along the axes
/// (the pseudo-angle's quadrant edges) and to the origin itself.
@Suite struct WallFanTests {
    /// A seeded generator (xorshift64*), so the test repeats.
    struct Draws {
        var state: UInt64
        mutating func next() -> Double {
            state ^= state >> 12; state ^= state << 25; state ^= state >> 27
            return Double((state &* 2685821657736338717) >> 11) / Double(1 << 53)
        }
        mutating func point(in r: Rect) -> Point { Point(r.minX + next() * r.width, r.minY + next() * r.height) }
    }

    func expectSameLoss(_ index: WallIndex, from origins: [Point], to targets: [Point], _ what: String) {
        var mismatches = 0, crossed = 0
        for (k, p) in origins.enumerated() {
            #expect(index.origin(of: p) != nil)
            for q in targets {
                let plain = index.loss(from: p, to: q), fan = index.loss(fromOrigin: k, to: q)
                if plain.bitPattern != fan.bitPattern { mismatches += 1 }
                if plain > 0 { crossed += 1 }
            }
        }
        #expect(mismatches == 0, "\(what): \(mismatches) queries differ")
        #expect(crossed > origins.count, "\(what): the queries cross walls (\(crossed))")
    }

    @Test func aFanGivesThePlainQuerysLossBitForBit() throws {
        var draws = Draws(state: 0x9E37_79B9_7F4A_7C15)
        for name in ["esoc-office", "museum-gallery", "smart-home"] {
            let s = try BundledScenarios.load(name)
            let venue = Venue(s)
            let targets = (0..<400).map { _ in draws.point(in: s.bounds) } + s.walls.flatMap { [$0.segment.a, $0.segment.b] }
            expectSameLoss(venue.walls, from: venue.beaconPositions, to: targets, name)
        }
        let box = Rect(minX: 0, minY: 0, maxX: 50, maxY: 40)
        let walls = (0..<70).map { i in
            Wall(segment: Segment(draws.point(in: box), draws.point(in: box)), loss: 0.1 + 7.3 * draws.next() + Double(i % 3) / 7)
        }
        let w0 = walls[0].segment, w1 = walls[1].segment
        let onWall = w0.a + (w0.b - w0.a) * 0.375
        let inLine = w1.b + (w1.b - w1.a) * 0.5
        // Beside a wall's end by an ulp: a slanted wall's, and an axis-parallel one's (a review's counterexamples).
        let nearEnds = [Point(w0.b.x, w0.b.y.nextUp), Point(w1.a.x.nextDown, w1.a.y.nextUp), Point(18.4.nextDown, 6.9.nextDown)]
        let axisWall = Wall(segment: Segment(Point(18.4, 42.7), Point(18.4, 6.9)), loss: 4.1)
        let slanted = Wall(segment: Segment(Point(0, 0), Point(10, 5)), loss: 3.3)
        let origins = [onWall, w0.a, inLine, Point(25, 20), Point(0, 0), Point(10, 5.0.nextUp)] + nearEnds + (0..<20).map { _ in draws.point(in: box) }
        let index = WallIndex(walls + [axisWall, slanted], origins: origins)
        var targets = (0..<300).map { _ in draws.point(in: box) } + walls.flatMap { [$0.segment.a, $0.segment.b] }
        targets += walls.prefix(10).map { $0.segment.a + ($0.segment.b - $0.segment.a) * 0.5 } + [Point(12, -5)]
        targets += (0..<200).map { _ in Point(-20 + 90 * draws.next(), -20 + 80 * draws.next()) }   // beyond the walls' box too
        targets += [Point(.nan, 3), Point(.infinity, .infinity), Point(-.infinity, 2)]   // no sector: the plain query, no trap
        for p in origins { targets += [p, Point(p.x + 7, p.y), Point(p.x, p.y + 7), Point(p.x - 7, p.y), Point(p.x, p.y - 7)] }
        expectSameLoss(index, from: origins, to: targets, "random walls")
    }
}
