import Foundation
import Testing
import IndoorLocator

/// The one-scan fix from fewer than three beacons (or beacons in a line): an answer wherever the readings and the venue
/// determine one position, a refusal naming the ambiguity otherwise. The cases are a range solver's classics: a range of
/// zero, two circles that touch, two anchors on the venue's edge, two anchors in its middle, coincident anchors.
@Suite struct FewBeaconsTests {
    /// The usual venue, 20 m × 15 m: beacons at the corners and one at (10, 7).
    let locator = { try! IndoorLocator(beacons: placements, pathLoss: model, area: (width: 20, depth: 15)) }

    func ranges(to beacons: [Int], from p: Position, sigma: Double = 0.1) -> [RangeSample] {
        beacons.map { RangeSample(beacon: placements[$0].identity, distance: p.distance(to: placements[$0].position), sigma: sigma, technology: .uwb) }
    }

    func ambiguity(_ outcome: LocationOutcome) -> String? {
        if case .unavailable(.ambiguous(let why), _) = outcome { return why }
        return nil
    }

    @Test func aRangeOfZeroIsAtItsAnchor() throws {
        let l = try #require(locator().locate(rssi: [], ranges: ranges(to: [4], from: placements[4].position)).location)
        #expect(l.position.distance(to: placements[4].position) < 1e-9)
        let ellipse = try #require(l.uncertainty)
        #expect(ellipse.semiMajor < 1, "0 m ± 0.1 m: the 95% disc is 0.2 m, \(ellipse.semiMajor)")
    }

    /// One beacon 3 m away: anywhere on that circle; the refusal says so.
    @Test func oneBeaconFarFromThePhoneIsRefused() throws {
        let why = try #require(ambiguity(locator().locate(rssi: [], ranges: ranges(to: [4], from: Position(x: 13, y: 7)))))
        #expect(why.contains("one beacon heard") && why.contains("3.0 m") && why.contains("circle"), "\(why)")
    }

    /// Two anchors on the venue's south edge: of the circles' crossings, one is outside the venue.
    @Test func aCrossingOutsideTheVenueLeavesTheOther() throws {
        let p = Position(x: 12, y: 4)
        let l = try #require(locator().locate(rssi: [], ranges: ranges(to: [0, 1], from: p)).location)
        #expect(l.position.distance(to: p) < 1e-3, "\(l.position)")
        #expect(try #require(l.uncertainty).contains(p, center: l.position))
    }

    /// Two anchors inside the venue, both crossings inside it and 6.4 m apart: refused, both named.
    @Test func twoCrossingsInsideTheVenueAreAmbiguous() throws {
        let why = try #require(ambiguity(locator().locate(rssi: [], ranges: ranges(to: [0, 4], from: Position(x: 3, y: 6)))))
        #expect(why.contains("two beacons heard") && why.contains("(3.0, 6.0)") && why.contains("(6.7, 0.8)") && why.contains("6.4 m"), "\(why)")
    }

    /// Two circles that touch (5 m and 7.21 m, their anchors 12.21 m apart) meet at one point.
    @Test func circlesThatTouchMeetAtOnePoint() throws {
        let a = placements[0].position, b = placements[4].position
        let d = a.distance(to: b)
        let touch = Position(x: a.x + (b.x - a.x) * 5 / d, y: a.y + (b.y - a.y) * 5 / d)
        let rs = [RangeSample(beacon: placements[0].identity, distance: 5, sigma: 0.1, technology: .uwb),
                  RangeSample(beacon: placements[4].identity, distance: d - 5, sigma: 0.1, technology: .uwb)]
        let l = try #require(locator().locate(rssi: [], ranges: rs).location)
        #expect(l.position.distance(to: touch) < 0.3, "\(l.position) against \(touch)")
        #expect(try #require(l.uncertainty).contains(touch, center: l.position))
    }

    /// Two beacons at one spot are one anchor: a circle, unless the phone is under them.
    @Test func coincidentAnchorsAreOneAnchor() throws {
        let twin = BeaconPlacement(identity: BeaconIdentity(uuid: uuid, major: 8, minor: 1), position: placements[4].position)
        let venue = try IndoorLocator(beacons: placements + [twin], pathLoss: model, area: (width: 20, depth: 15))
        let far = Position(x: 10, y: 11)
        let both = ranges(to: [4], from: far) + [RangeSample(beacon: twin.identity, distance: 4, sigma: 0.1, technology: .uwb)]
        let why = try #require(ambiguity(venue.locate(rssi: [], ranges: both)))
        #expect(why.contains("2 beacons heard, all at one spot"), "\(why)")
        let under = [RangeSample(beacon: placements[4].identity, distance: 0.05, sigma: 0.1, technology: .uwb),
                     RangeSample(beacon: twin.identity, distance: 0.1, sigma: 0.1, technology: .uwb)]
        let l = try #require(venue.locate(rssi: [], ranges: under).location)
        #expect(l.position.distance(to: placements[4].position) < 1e-9)
    }

    /// RSSI (σ 1 dB) from two beacons of a phone whose offset is known, the other crossing behind a 15 dB wall: its readings
    /// would be 15 dB weaker there, and no point on the near side of the wall comes close, so the crossing on the beacons'
    /// side is the answer.
    @Test func aCrossingBehindAWallLeavesTheOther() throws {
        // A third beacon, not heard: a locator needs three.
        let pair = [Position(x: 4, y: 2), Position(x: 4, y: 8), Position(x: 9, y: 9)].enumerated().map { i, p in
            BeaconPlacement(identity: BeaconIdentity(uuid: uuid, major: 9, minor: UInt16(i)), position: p)
        }
        let wall = WallSegment(from: Position(x: 4.5, y: 0), to: Position(x: 4.5, y: 10), loss: 15)
        let sharp = PathLossModel(measuredPower: -59, exponent: 2.2, shadowingSigma: 1, scanWindow: 1)
        let venue = try IndoorLocator(beacons: pair, pathLoss: sharp, walls: [wall], area: (width: 10, depth: 10))
        try venue.assumeDeviceOffset(DeviceOffset(decibels: 0, sigma: 0.5))
        let p = Position(x: 1, y: 5)
        let scan = pair.prefix(2).map { RSSISample(beacon: $0.identity, rssi: sharp.measuredPower - 10 * sharp.exponent * log10(p.distance(to: $0.position))) }
        let l = try #require(venue.locate(scan).location)
        #expect(l.position.distance(to: p) < 0.05, "\(l.position)")
        #expect(try #require(l.uncertainty).contains(p, center: l.position))
        // Without the wall both crossings, (1, 5) and (7, 5), fit: refused.
        let open = try IndoorLocator(beacons: pair, pathLoss: sharp, area: (width: 10, depth: 10))
        try open.assumeDeviceOffset(DeviceOffset(decibels: 0, sigma: 0.5))
        #expect(ambiguity(open.locate(scan)) != nil)
    }
}
