import Foundation
import LabCore
import LabSimulation
import Testing
@testable import LabStore
import LabScenarioIO
import LabEvaluation

@Suite struct CalibrationTests {
    @Test func noiseFreeSamplesGiveTheLawBack() throws {
        let d: [Double] = [0.5, 1, 2, 3, 5, 8, 13, 21]
        let x = d.map { 10 * log10($0) }
        let y = x.map { -61.5 - 2.7 * $0 }
        let f = try PathLossFit.fit(x: x, y: y)
        #expect(abs(f.p0 + 61.5) < 1e-9)
        #expect(abs(f.exponent - 2.7) < 1e-9)
        #expect(f.sigma < 1e-9 && f.p0Error < 1e-9 && f.exponentError < 1e-9)
        #expect(abs(f.minDistance - 0.5) < 1e-12 && abs(f.maxDistance - 21) < 1e-9)
    }

    @Test func degenerateInputIsACalibrationErrorNotACrash() {
        #expect(throws: CalibrationError("need at least 3 samples with a known distance, have 2")) { try PathLossFit.fit(x: [1, 2], y: [-60, -61]) }
        #expect(throws: CalibrationError("every sample is at the same distance: the exponent cannot be fitted")) {
            try PathLossFit.fit(x: [3, 3, 3, 3], y: [-60, -61, -62, -59])
        }
    }

    /// A recording whose RSSI rises with distance (truth and readings mismatched) gives no path-loss model: the
    /// calibration refuses it rather than print, save or apply an exponent below zero (applied, it left a
    /// recording nothing could open again).
    @Test func aFitThatIsNoPathLossModelIsRefused() throws {
        let s = try scenario("open-hall")
        var r = try simulatedRecording(scenario: s, walk: s.walks[0], seed: 11)
        r.rssi = r.rssi.map { RSSIReading(beacon: $0.beacon, t: $0.t, rssi: -160 - $0.rssi) }
        #expect {
            _ = try Calibration(r, perBeacon: true)
        } throws: { error in
            "\(error)".contains("the fit is no path-loss model") && "\(error)".contains("RSSI should fall with distance")
        }
        // Readings that do not fall with distance at all fit an exponent near 0, which the scenario's range (0.5–10)
        // refuses too: applied, it made fixes 10³⁰ m away.
        var flat = r
        flat.rssi = r.rssi.enumerated().map { i, x in RSSIReading(beacon: x.beacon, t: x.t, rssi: -70 + Double(i % 7) - 3) }
        #expect {
            _ = try Calibration(flat, perBeacon: false)
        } throws: { error in
            "\(error)".contains("the fit is no path-loss model") && "\(error)".contains("exponent: expected 0.5–10")
        }
    }

    /// Open hall: no walls, one radio model (P0 −59 dBm, n 2, σ 4 dB). The fit finds it within a few
    /// standard errors, up to the small bias of the −100 dBm sensitivity cut and whole-dBm rounding.
    @Test func aSimulatedRecordingCalibratesToItsScenario() throws {
        let s = try scenario("open-hall")
        let r = try simulatedRecording(scenario: s, walk: s.walks[0], seed: 11)
        let c = try Calibration(r, perBeacon: true)
        #expect(!c.threeDimensional)
        #expect(c.global.samples == r.rssi.count)
        #expect(abs(c.global.p0 - s.radio.p0) < max(4 * c.global.p0Error, 0.5), "P0 \(c.global.p0) ± \(c.global.p0Error)")
        #expect(abs(c.global.exponent - s.radio.exponent) < max(4 * c.global.exponentError, 0.05), "n \(c.global.exponent) ± \(c.global.exponentError)")
        #expect(abs(c.global.sigma - s.radio.sigma) < 0.3, "σ \(c.global.sigma)")
        #expect(c.beacons.count == s.beacons.count)
        for b in c.beacons {
            #expect(abs(b.p0AtGlobalExponent - s.radio.p0) < 5 * b.p0AtGlobalExponentError + 0.3, "\(b.id): \(b.p0AtGlobalExponent)")
        }
    }

    /// The residuals split by scan window: readings drawn as the law, plus one N(0, σ_m²) draw per beacon and
    /// window (what averaging does not remove), plus N(0, σ²) per reading. σ = 4 dB, σ_m = 3 dB, 10 readings per
    /// window over 600 beacon-windows: each comes back within five standard errors (about 0.1 dB each), and
    /// the radio fit carries σ within windows and the model error.
    @Test func theResidualsSplitIntoNoiseWithinWindowsAndTheModelError() throws {
        let sigma = 4.0, modelError = 3.0
        let radio = RadioModel(p0: -59, exponent: 2, sigma: 0, scanWindow: 1)
        let spots = [Point(3, 3), Point(12, 5), Point(7, 9)]
        let venue = RecordedVenue(name: "v", bounds: Rect(minX: 0, minY: 0, maxX: 15, maxY: 12), radio: radio,
                                  beacons: [RecordedBeacon(id: "A", position: Point(0, 0)), RecordedBeacon(id: "B", position: Point(15, 0)),
                                            RecordedBeacon(id: "C", position: Point(15, 12)), RecordedBeacon(id: "D", position: Point(0, 12))])
        let random = RandomSource(seed: 5)
        var rssi: [RSSIReading] = [], truth: [TruthSample] = []
        for w in 0..<150 {
            let p = spots[w % spots.count], t0 = Double(w)
            truth.append(TruthSample(t: t0 + 0.5, position: p, source: .survey))
            for (b, beacon) in venue.beacons.enumerated() {
                let mean = -59 - 20 * log10(p.distance(to: beacon.position)) + random.gaussian(sigma: modelError)
                for k in 0..<10 { rssi.append(RSSIReading(beacon: b, t: t0 + 0.05 + 0.09 * Double(k), rssi: mean + random.gaussian(sigma: sigma))) }
            }
        }
        rssi.sort { $0.t < $1.t }
        let r = Recording(info: RecordingInfo(name: "x", source: .labCSV, venue: "v"), venue: venue, rssi: rssi, truth: truth)
        let c = try Calibration(r, perBeacon: true)
        let w = try #require(c.windowSplit)
        #expect(w.groups == 600 && w.singleReadings == 0)
        #expect(abs(w.withinSigma - sigma) < 0.15, "σ within \(w.withinSigma)")
        #expect(abs(w.modelError - modelError) < 0.5, "σ_m \(w.modelError)")
        #expect(abs(c.global.sigma - (sigma * sigma + modelError * modelError).squareRoot()) < 0.3, "the whole spread \(c.global.sigma)")
        let fit = RadioFit(c, fittedOn: "x")
        #expect(fit.sigma == w.withinSigma && fit.modelError == w.modelError)
        #expect(fit.applied(to: venue).radio.modelError == w.modelError)

        // One reading per beacon and window: the split cannot be seen, and the fit keeps the whole spread as σ.
        let single = Recording(info: r.info, venue: venue, rssi: rssi.filter { ($0.t - $0.t.rounded(.down)) < 0.1 }, truth: truth)
        let c1 = try Calibration(single, perBeacon: true)
        #expect(c1.windowSplit == nil)
        #expect(RadioFit(c1, fittedOn: "x").sigma == c1.global.sigma && RadioFit(c1, fittedOn: "x").modelError == 0)
    }

    /// The fit carries the receiver's floor (the weakest reading less half a dB of rounding) to the venue it is
    /// applied to, through its file, lowered to the scored readings' own floor where that is lower; a fit file from
    /// before it leaves the venue's own sensitivity, and a simulated calibration, whose scenario states it, has none.
    @Test func theFitCarriesTheReceiversFloor() throws {
        var s = try scenario("open-hall")
        s.radio.sensitivity = -80
        s.radio.quantize = true
        let simulated = try simulatedRecording(scenario: s, walk: s.walks[0], seed: 12)
        #expect(simulated.rssi.map(\.rssi).min() == -80, "the simulator rounds, then drops what is below −80")
        #expect(try Calibration(simulated, perBeacon: true).floor == nil)
        var r = simulated
        r.info.source = .labCSV
        let c = try Calibration(r, perBeacon: true)
        #expect(c.floor == -80.5)
        let fit = RadioFit(c, fittedOn: "x", rounded: true)
        let dir = try temporaryDirectory("fit")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try fit.write(to: dir + "/fit.json")
        let read = try RadioFit.read(path: dir + "/fit.json")
        #expect(read.sensitivity == -80.5)
        var other = r.venue
        other.radio.sensitivity = -100
        #expect(read.applied(to: other).radio.sensitivity == -80.5)
        // Scored readings weaker than the fit's floor lower it: −83 → −83.5; fractional readings are not rounded.
        let weak = [RSSIReading(beacon: 0, t: 0, rssi: -70), RSSIReading(beacon: 1, t: 0, rssi: -83)]
        #expect(read.applied(to: other, readings: weak).radio.sensitivity == -83.5)
        #expect(read.applied(to: other, readings: [RSSIReading(beacon: 0, t: 0, rssi: -82.25)]).radio.sensitivity == -82.25)
        #expect(read.applied(to: other, readings: [RSSIReading(beacon: 0, t: 0, rssi: -60)]).radio.sensitivity == -80.5)
        var old = read
        old.sensitivity = nil
        try LabJSON.encoder().encode(old).write(to: URL(fileURLWithPath: dir + "/old.json"))
        #expect(try RadioFit.read(path: dir + "/old.json").applied(to: other, readings: weak).radio.sensitivity == -100)
        // A fit file naming an impossible sensitivity is refused with its field.
        try Data(#"{"p0": -59, "exponent": 2, "sigma": 4, "beaconP0": {}, "fittedOn": "x", "sensitivity": 500}"#.utf8).write(to: URL(fileURLWithPath: dir + "/bad.json"))
        let error = try #require(throws: InputError.self) { try RadioFit.read(path: dir + "/bad.json") }
        #expect(error.description.contains("sensitivity"), "\(error)")
    }

    /// The window dropout a recording's radio drew is what calibrate measures (within five binomial standard errors of
    /// the windows it counted), none when there was none; the fit carries it through its file to the venue it is applied
    /// to, and `--apply` stores it (schema v4). A fit file naming an impossible dropout is refused with its field.
    @Test func theFitMeasuresTheWindowDropout() throws {
        var s = try scenario("open-hall")
        let plain = try Calibration(try simulatedRecording(scenario: s, walk: s.walks[0], seed: 11), perBeacon: true)
        let none = try #require(plain.dropout)
        #expect(none.rate == 0 && none.pairs >= Calibration.Dropout.minimumWindows, "\(none)")
        s.radio.dropout = 0.3
        let r = try simulatedRecording(scenario: s, walk: s.walks[0], seed: 11)
        let c = try Calibration(r, perBeacon: true)
        let d = try #require(c.dropout)
        let se = (0.3 * 0.7 / Double(d.pairs)).squareRoot()
        #expect(abs(d.rate - 0.3) < 5 * se, "\(d)")
        #expect(d.missed == Int((d.rate * Double(d.pairs)).rounded()))
        let fit = RadioFit(c, fittedOn: "x", rounded: true)
        let dir = try temporaryDirectory("dropout")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try fit.write(to: dir + "/fit.json")
        let read = try RadioFit.read(path: dir + "/fit.json")
        #expect(read.dropout == fit.dropout && abs((fit.dropout ?? 0) - d.rate) < 5e-4)
        var other = r.venue
        other.radio.dropout = 0
        #expect(read.applied(to: other).radio.dropout == fit.dropout)
        try Data(#"{"p0": -59, "exponent": 2, "sigma": 4, "beaconP0": {}, "fittedOn": "x", "dropout": 1}"#.utf8).write(to: URL(fileURLWithPath: dir + "/bad.json"))
        let error = try #require(throws: InputError.self) { try RadioFit.read(path: dir + "/bad.json") }
        #expect(error.description.contains("dropout"), "\(error)")
        // Stored with --apply: the recording reads it back.
        let path = dir + "/r.sqlite"
        _ = try RecordingStore.write(r, to: path)
        try RecordingStore.updateRadio(path: path, p0: fit.p0, exponent: fit.exponent, sigma: fit.sigma, dropout: fit.dropout)
        #expect(try RecordingStore.read(path: path).venue.radio.dropout == fit.dropout)
    }

    /// A recording of the ideal model (open-hall's walk: readings independent within and across windows) has no
    /// model error to find: under 0.5 dB, and σ within windows is the scenario's.
    @Test func anIdealRecordingHasNoModelError() throws {
        let s = try scenario("open-hall")
        let c = try Calibration(try simulatedRecording(scenario: s, walk: s.walks[0], seed: 11), perBeacon: true)
        let w = try #require(c.windowSplit)
        #expect(w.modelError < 0.5, "σ_m \(w.modelError)")
        #expect(abs(w.withinSigma - s.radio.sigma) < 0.3, "σ within \(w.withinSigma)")
    }

    @Test func perBeaconP0AndThreeDimensionalDistances() throws {
        // Beacon B is 2 m above a phone at 1 m and 3 dB stronger; noise-free readings along a line.
        var radio = RadioModel(p0: -60, exponent: 2.2, sigma: 0, scanWindow: 1)
        radio.receiverHeight = 1
        let venue = RecordedVenue(name: "v", bounds: Rect(minX: 0, minY: 0, maxX: 30, maxY: 10), radio: radio,
                                  beacons: [RecordedBeacon(id: "A", position: Point(0, 5)),
                                            RecordedBeacon(id: "B", position: Point(30, 5), height: 3, p0: -57)])
        var rssi: [RSSIReading] = [], truth: [TruthSample] = []
        for k in 0..<25 {
            let t = Double(k) + 0.5
            let p = Point(1 + Double(k), 5)
            truth.append(TruthSample(t: t, position: p, z: 1, source: .survey))
            let dA = p.distance(to: Point(0, 5))
            let dB = (pow(p.distance(to: Point(30, 5)), 2) + 4).squareRoot()
            rssi.append(RSSIReading(beacon: 0, t: t - 0.2, rssi: -60 - 22 * log10(dA)))
            rssi.append(RSSIReading(beacon: 1, t: t + 0.2, rssi: -57 - 22 * log10(dB)))
        }
        let r = Recording(info: RecordingInfo(name: "x", source: .labCSV, venue: "v"), venue: venue, rssi: rssi, truth: truth)
        let c = try Calibration(r, perBeacon: true)
        #expect(c.threeDimensional)
        let a = try #require(c.beacons.first { $0.id == "A" }?.fit)
        let b = try #require(c.beacons.first { $0.id == "B" }?.fit)
        #expect(abs(a.p0 + 60) < 1e-9 && abs(a.exponent - 2.2) < 1e-9)
        #expect(abs(b.p0 + 57) < 1e-9 && abs(b.exponent - 2.2) < 1e-9)
        // The global fit sees two parallel lines 3 dB apart: it cannot fit both, and says so in σ.
        #expect(c.global.sigma > 1)
    }

    /// esoc-office's walk and static grid, recorded with the sensitivity out of the way (-200 dBm), and the same
    /// recording with every wall's loss stored as 0, as an import of obstacles would have them.
    func esocOfficeWithItsWallsLossesUnknown() throws -> (Scenario, Recording, Recording) {
        var s = try scenario("esoc-office")
        s.radio.sensitivity = -200
        let r = try simulatedRecording(scenario: s, walk: s.walks[0], seed: 5)
        var unknown = r
        for i in unknown.venue.walls.indices { unknown.venue.walls[i].loss = 0 }
        return (s, r, unknown)
    }

    /// Wall losses per material, fitted jointly with P0 and n: a recording of esoc-office's walk and static grid
    /// (walls of concrete 6.9, drywall 3.4, glass 2.0 dB) with the losses stored as 0, as an import of obstacles
    /// would have them; the fit finds each within a few standard errors. The sensitivity is lowered out of the
    /// way: readings through several walls are otherwise heard only when the noise lifts them, and the fit, which
    /// does not model censoring, would find every loss too small (by 1–1.7 dB here at −100 dBm).
    @Test func wallLossesPerMaterialAreFittedWithTheLaw() throws {
        let (s, _, unknown) = try esocOfficeWithItsWallsLossesUnknown()
        let c = try Calibration(unknown, perBeacon: false)
        let fitted = Dictionary(uniqueKeysWithValues: c.materials.map { ($0.material, $0) })
        for (m, truth) in s.materials where s.walls.contains(where: { $0.material == m }) {
            guard let f = fitted[m] else { continue }   // too rarely crossed to fit: stays at its stored loss
            #expect(abs(f.loss - truth) < max(4 * f.lossError, 0.5), "\(m): \(f.loss) ± \(f.lossError), true \(truth)")
            #expect(f.samples >= Calibration.minimumMaterialSamples)
        }
        #expect(fitted["concrete"] != nil && fitted["drywall"] != nil)
        #expect(abs(c.global.exponent - s.radio.exponent) < max(4 * c.global.exponentError, 0.1))
        // Without the materials the same samples fit a steeper law: the walls' loss hides in n.
        let plain = try PathLossFit.fit(x: c.samples.map(\.x), y: c.samples.map(\.rssi))
        #expect(plain.exponent > c.global.exponent + 0.1)
        // The fit as a file applies to another recording's walls of the same material.
        let fit = RadioFit(c, fittedOn: "x")
        let venue = fit.applied(to: unknown.venue)
        for w in venue.walls { if let m = w.material, let f = fitted[m] { #expect(abs(w.loss - max(f.loss, 0)) < 1e-9) } }
    }

    /// Each beacon's P0 is fitted with the walls its samples crossed added back, as stored or as the joint fit found
    /// them: the estimators take the walls off again. Esoc-office's beacons all send −59 dBm; through its walls a beacon
    /// whose samples cross them fitted several dB low when its P0 was the plain mean of RSSI + n·x (a UJI beacon behind
    /// the shelves 2.1 dB on average).
    @Test func eachBeaconsPowerIsFittedWithTheWallsAddedBack() throws {
        let (s, r, unknown) = try esocOfficeWithItsWallsLossesUnknown()
        for recording in [r, unknown] {   // the walls' losses stored, and fitted per material
            let c = try Calibration(recording, perBeacon: true)
            #expect(c.beacons.count >= 8)
            var worst = 0.0
            for b in c.beacons {
                let truth = s.beacons.first { $0.id == b.id }?.p0 ?? s.radio.p0
                worst = max(worst, abs(b.p0AtGlobalExponent - truth) / max(b.p0AtGlobalExponentError, 0.1))
            }
            #expect(worst < 5, "a beacon's P0 is \(worst) standard errors from the truth")
        }
    }
}
