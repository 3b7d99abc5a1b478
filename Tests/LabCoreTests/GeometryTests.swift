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
