import Foundation
import Testing
import IndoorLocator  // and, for init(scenarioAt:), its scenario product: what an app sees
import IndoorLocatorScenarios

let uuid = UUID(uuidString: "B9407F30-F5F8-466E-AFF9-25556B57FE6D")!
let placements = [(0.0, 0.0), (20.0, 0.0), (20.0, 15.0), (0.0, 15.0), (10.0, 7.0)].enumerated().map { i, p in
    BeaconPlacement(identity: BeaconIdentity(uuid: uuid, major: 7, minor: UInt16(i)), position: Position(x: p.0, y: p.1))
}
let model = PathLossModel(measuredPower: -59, exponent: 2.2, shadowingSigma: 4, scanWindow: 1)

func exactScan(at p: Position, time: Double = 0) -> [RSSISample] {
    placements.map { b in
        RSSISample(beacon: b.identity, rssi: model.measuredPower - 10 * model.exponent * log10(p.distance(to: b.position)), timestamp: time)
    }
}

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite struct IndoorLocatorAPITests {
    @Test func oneScanGivesTheExactPositionWithoutNoise() throws {
        for known in [false, true] {
            let locator = try IndoorLocator(beacons: placements, pathLoss: model, area: (width: 20, depth: 15))
            if known { locator.assumeDeviceOffset(DeviceOffset(decibels: 0, sigma: 0)) }
            for p in [Position(x: 3, y: 4), Position(x: 17.5, y: 2), Position(x: 9, y: 12.25)] {
                if !known { locator.forgetDevice() }
                let l = try #require(locator.locate(exactScan(at: p)).location)
                #expect(l.position.distance(to: p) < 1e-6)
                #expect(l.beaconsUsed.count == 5)
                #expect(abs(try #require(l.deviceOffset).decibels) < 1e-6)
                // At the exact solution the covariance is the inverse Fisher information: the radius is √CRLB,
                // with the offset a nuisance parameter (Schur complement) unless it is known.
                let b = 10 * model.exponent / log(10) / model.shadowingSigma, s2 = 1 / (model.shadowingSigma * model.shadowingSigma)
                var f11 = 0.0, f12 = 0.0, f22 = 0.0, f1d = 0.0, f2d = 0.0, fdd = 0.0
                for c in placements.map(\.position) {
                    let dx = p.x - c.x, dy = p.y - c.y, d2 = dx * dx + dy * dy
                    // ∂RSSI/∂x = −10n/ln10 · dx/d², ∂RSSI/∂δ = 1, each over σ.
                    let gx = -b * dx / d2, gy = -b * dy / d2, gd = s2.squareRoot()
                    f11 += gx * gx; f12 += gx * gy; f22 += gy * gy; f1d += gx * gd; f2d += gy * gd; fdd += gd * gd
                }
                if !known { f11 -= f1d * f1d / fdd; f12 -= f1d * f2d / fdd; f22 -= f2d * f2d / fdd }
                let crlb = ((f11 + f22) / (f11 * f22 - f12 * f12)).squareRoot()
                #expect(abs(try #require(l.uncertainty) - crlb) < 1e-4 * crlb, "known offset: \(known)")
            }
        }
    }

    @Test func wallsAreModelled() throws {
        // A concrete wall across the middle: readings through it are 6.9 dB weaker.
        let wall = WallSegment(from: Position(x: 0, y: 8), to: Position(x: 20, y: 8), loss: 6.9)
        let locator = try IndoorLocator(beacons: placements, pathLoss: model, walls: [wall], area: (width: 20, depth: 15))
        #expect(locator.walls == [wall])
        for p in [Position(x: 4, y: 3), Position(x: 15, y: 12), Position(x: 9, y: 5.5)] {
            let scan = exactScan(at: p).map { s -> RSSISample in
                let b = placements.first { $0.identity == s.beacon }!.position
                let crosses = (b.y - 8) * (p.y - 8) < 0
                return RSSISample(beacon: s.beacon, rssi: s.rssi - (crosses ? 6.9 : 0))
            }
            let l = try #require(locator.locate(scan).location)
            #expect(l.position.distance(to: p) < 1e-6, "at \(p): \(l.position)")
        }
        #expect(throws: LocatorError.self) {
            try IndoorLocator(beacons: placements, walls: [WallSegment(from: Position(x: 0, y: 0), to: Position(x: 1, y: 1), loss: -3)])
        }
    }

    @Test func unknownBeaconsAreIgnoredAndNaNIsRejected() throws {
        let locator = try IndoorLocator(beacons: placements, pathLoss: model)
        var scan = exactScan(at: Position(x: 5, y: 5))
        scan.append(RSSISample(beacon: BeaconIdentity(uuid: UUID(), major: 1, minor: 1), rssi: -40))
        #expect(try #require(locator.locate(scan).location).position.distance(to: Position(x: 5, y: 5)) < 1e-6)
        scan[0].rssi = .nan
        guard case .unavailable(let reason) = locator.locate(scan) else { Issue.record("NaN accepted"); return }
        #expect(reason.contains("not a finite number"))
    }

    @Test func tooFewBeaconsSaysWhy() throws {
        let locator = try IndoorLocator(beacons: placements, pathLoss: model)
        #expect(locator.locate(Array(exactScan(at: Position(x: 5, y: 5)).prefix(2))) == .unavailable(reason: "too few beacons: heard 2, need 3"))
        #expect(locator.locate([]) == .unavailable(reason: "too few beacons: heard 0, need 3"))
    }

    @Test func streamUsesTheLastScanWindow() throws {
        let locator = try IndoorLocator(beacons: placements, pathLoss: model)
        for s in exactScan(at: Position(x: 2, y: 2), time: 1.0) { locator.add(s) }
        for s in exactScan(at: Position(x: 15, y: 10), time: 5.0) { locator.add(s) }
        let now = try #require(locator.currentLocation(at: 5.2).location)
        #expect(now.position.distance(to: Position(x: 15, y: 10)) < 1e-6)
        // Nothing heard in the window ending at 3 s.
        #expect(locator.currentLocation(at: 3).location == nil)
        locator.reset()
        #expect(locator.currentLocation(at: 5.2).location == nil)
    }

    @Test func headingsNameTheFriezeInView() throws {
        let friezes = [Frieze(name: "Newton", position: Position(x: 10, y: 40), facing: 180),
                       Frieze(name: "Darwin", position: Position(x: 40, y: 7), facing: 270)]
        let locator = try IndoorLocator(beacons: placements, pathLoss: model, friezes: friezes, area: (50, 50))
        let p = Position(x: 8, y: 6)
        func bearing(to f: Frieze) -> Double {
            (atan2(f.position.x - p.x, f.position.y - p.y) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
        }
        let headings = [CompassHeading(degrees: bearing(to: friezes[0]), accuracy: 5),
                        CompassHeading(degrees: bearing(to: friezes[1]), accuracy: 5)]
        let l = try #require(locator.locate(exactScan(at: p), headings: headings).location)
        #expect(l.position.distance(to: p) < 1e-6)
        #expect(l.friezeInView == "Darwin")
        #expect(locator.frieze(inViewFrom: p, heading: bearing(to: friezes[0])) == "Newton")
        let bad = locator.locate(exactScan(at: p), headings: [CompassHeading(degrees: 10, frieze: "Galileo")])
        #expect(bad == .unavailable(reason: "invalid input: no frieze named 'Galileo'"))
    }

    @Test func badConfigurationsAreRefused() {
        #expect(throws: LocatorError.self) { try IndoorLocator(beacons: Array(placements.prefix(2))) }
        #expect(throws: LocatorError.self) { try IndoorLocator(beacons: placements + [placements[0]]) }
        #expect(throws: LocatorError.self) { try IndoorLocator(beacons: placements, pathLoss: PathLossModel(exponent: 0)) }
        #expect(throws: LocatorError.self) { try IndoorLocator(scenarioAt: "/nonexistent.yaml") }
        // open-hall's beacons carry no iBeacon identity.
        #expect(throws: LocatorError.self) { try IndoorLocator(scenarioAt: packageRoot.appendingPathComponent("Scenarios/open-hall.yaml").path) }
    }

    @Test func loadsAScenario() throws {
        let l = try IndoorLocator(scenarioAt: packageRoot.appendingPathComponent("Scenarios/museum-gallery.yaml").path)
        #expect(l.beacons.count == 12)
        #expect(l.pathLoss.exponent > 1)
    }

    @Test func concurrentCallersAreSafe() async throws {
        let locator = try IndoorLocator(beacons: placements, pathLoss: model)
        let errors = await withTaskGroup(of: Double.self) { group in
            for k in 0..<8 {
                group.addTask {
                    var worst = 0.0
                    for j in 0..<200 {
                        let p = Position(x: 1.5 + Double((k * 7 + j) % 17), y: 1.5 + Double(j % 12))
                        worst = max(worst, locator.locate(exactScan(at: p)).location.map { $0.position.distance(to: p) } ?? .infinity)
                    }
                    return worst
                }
            }
            return await group.reduce(0) { max($0, $1) }
        }
        #expect(errors < 1e-6)
    }

    @Test func theExampleProgramRuns() throws {
        let exe = packageRoot.appendingPathComponent(".build/debug/LocatorExample")
        try #require(FileManager.default.isExecutableFile(atPath: exe.path), "build it with swift build first")
        let p = Process()
        p.executableURL = exe
        p.arguments = [packageRoot.appendingPathComponent("Scenarios/killian-court.yaml").path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        p.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == 0)
        #expect(text.contains("one scan:   located at (6.00 m, 4.00 m)"))
        #expect(text.contains("one beacon: no fix: too few beacons"))
        #expect(text.contains("scenario:   12 beacons, friezes:") && text.contains("Aristotle"))
        #expect(text.contains("frieze in view from (50.00 m, 40.00 m)"))
    }
}

@Suite struct DeviceOffsetAPITests {
    /// A phone reading 15 dB stronger than the calibration phone, σ 4 dB noise (seeded), at scattered spots.
    @Test func theLocatorLearnsAPhoneItWasNotToldAbout() throws {
        let locator = try IndoorLocator(beacons: placements, pathLoss: model, area: (width: 20, depth: 15))
        #expect(locator.deviceOffset == nil)
        var state: UInt64 = 12345
        func uniform() -> Double { state = state &* 6364136223846793005 &+ 1442695040888963407; return Double(state >> 11) / Double(1 << 53) }
        func gaussian() -> Double { (-2 * log(max(uniform(), 1e-300))).squareRoot() * cos(2 * .pi * uniform()) }
        for k in 0..<30 {
            let p = Position(x: 1 + 18 * uniform(), y: 1 + 13 * uniform())
            let scan = exactScan(at: p, time: Double(k)).map { RSSISample(beacon: $0.beacon, rssi: $0.rssi + 15 + 4 * gaussian(), timestamp: $0.timestamp) }
            _ = locator.locate(scan)
        }
        let learned = try #require(locator.deviceOffset)
        #expect(abs(learned.decibels - 15) <= 2, "learned \(learned)")
        #expect(learned.sigma < 2)
        locator.forgetDevice()
        #expect(locator.deviceOffset == nil)
        locator.assumeDeviceOffset(DeviceOffset(decibels: -8, sigma: 1))
        #expect(locator.deviceOffset == DeviceOffset(decibels: -8, sigma: 1))
    }
}
