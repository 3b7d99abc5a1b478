import Foundation
import Testing
@testable import LabCore

/// The shared maths of LabCore, each against an independent statement of its definition.
@Suite struct QuantileTests {
    @Test func linearIsTypeSevenInterpolation() {
        let s = SortedSample([4, 1, 3, 2])
        // numpy.quantile([1, 2, 3, 4], [0, .25, .5, .75, 1]) = 1, 1.75, 2.5, 3.25, 4
        for (p, want) in [(0.0, 1.0), (0.25, 1.75), (0.5, 2.5), (0.75, 3.25), (1.0, 4.0)] {
            #expect(abs(s.quantile(p) - want) < 1e-12, "p = \(p)")
        }
    }

    @Test func nearestRankIsAlwaysAnObservation() {
        let s = SortedSample([10, 20, 30, 40, 50])
        // ⌈p·n⌉-th smallest: 0.9·5 = 4.5 → 5th; 0.5·5 = 2.5 → 3rd; 0.2·5 = 1 → 1st
        #expect(s.quantile(0.9, method: .nearestRank) == 50)
        #expect(s.quantile(0.5, method: .nearestRank) == 30)
        #expect(s.quantile(0.2, method: .nearestRank) == 10)
        #expect(s.quantile(0, method: .nearestRank) == 10)
        #expect(SortedSample([1, .infinity]).quantile(0.9, method: .nearestRank) == .infinity)
    }

    @Test func emptySamplesGiveNaNAndMeansAgree() {
        #expect(SortedSample([]).quantile(0.5).isNaN)
        #expect(SortedSample([]).mean.isNaN)
        let values = (1...1000).map { Double($0) * 0.37 }
        let s = SortedSample(values.shuffled())
        #expect(abs(s.mean - values.reduce(0, +) / 1000) < 1e-9)
        #expect(abs(s.rootMeanSquare - (values.reduce(0) { $0 + $1 * $1 } / 1000).squareRoot()) < 1e-9)
    }
}

@Suite struct FisherInformationTests {
    @Test func fourBeaconsAtTheCornersGiveTheClosedForm() {
        // Phone at the centre of a square of side 2a: each beacon at distance d = a√2 along a diagonal.
        // Σ (p − c)(p − c)ᵀ / d⁴ = 4·(a²/d⁴)·I, so trace(F⁻¹) = 2 / (b · 4a²/d⁴) = d⁴ / (2 b a²).
        let a = 5.0, d2 = 2 * a * a
        let scale = FisherInformation.rssiScale(exponent: 2, sigma: 4)
        var f = FisherInformation.zero
        for (x, y) in [(-a, -a), (a, -a), (a, a), (-a, a)] { f += .rssi(dx: x, dy: y, dz: 0, readings: 1, scale: scale) }
        let want = d2 * d2 / (2 * scale * a * a)
        #expect(abs(f.traceOfInverse - want) < 1e-9 * want)
        #expect(abs(scale - pow(20 / (4 * log(10.0)), 2)) < 1e-12)
    }

    /// The principal axes are the eigenpairs: C·u = λ·u for the major axis u (a unit vector, pointing east, or north when it
    /// points neither way), the minor eigenvalue the trace's rest, and u on the line at ½·atan2(2xy, xx − yy), the
    /// trigonometric statement it replaced; diagonal, isotropic, negatively correlated, and variances an order apart.
    @Test func principalAxesAreTheEigenpairs() {
        var cases = [Covariance2(xx: 4, xy: 0, yy: 1), Covariance2(xx: 1, xy: 0, yy: 4), Covariance2(xx: 2, xy: 0, yy: 2),
                     Covariance2(xx: 3, xy: -1.5, yy: 1), Covariance2(xx: 1, xy: 2.9, yy: 9), Covariance2(xx: 1e-6, xy: 0, yy: 1e4),
                     Covariance2(xx: 5, xy: -4.9, yy: 5)]
        var state: UInt64 = 7
        func next() -> Double { state = state &* 6364136223846793005 &+ 1442695040888963407; return Double(state >> 11) / Double(1 << 53) }
        for _ in 0..<200 {
            let a = 10 * next(), b = 10 * next(), r = 2 * next() - 1
            cases.append(Covariance2(xx: a, xy: r * (a * b).squareRoot(), yy: b))
        }
        for c in cases {
            let (major, minor, u) = c.principalAxes
            let scale = max(c.xx, c.yy, 1e-300)
            #expect(abs(u.length - 1) < 1e-12, "\(c)")
            #expect(u.x > 0 || (u.x == 0 && u.y > 0), "\(c): \(u)")
            #expect(abs(major + minor - (c.xx + c.yy)) <= 1e-12 * scale, "\(c)")
            if c.xx == c.yy && c.xy == 0 { #expect(u == Point(1, 0)); continue }
            let cu = Point(c.xx * u.x + c.xy * u.y, c.xy * u.x + c.yy * u.y)
            #expect((cu - u * major).length <= 1e-12 * scale, "\(c): C·u \(cu), λ·u \(u * major)")
            let angle = 0.5 * atan2(2 * c.xy, c.xx - c.yy)
            #expect(abs(u.x * sin(angle) - u.y * cos(angle)) < 1e-12, "\(c): \(u) against the angle \(angle)")
        }
    }

    @Test func collinearInformationIsSingular() {
        let scale = FisherInformation.rssiScale(exponent: 2, sigma: 4)
        var f = FisherInformation.zero
        for x in [-3.0, 2, 7] { f += .rssi(dx: x, dy: 0, dz: 0, readings: 10, scale: scale) }
        #expect(f.traceOfInverse == .infinity)
        #expect(f.inverse == nil)
    }

    @Test func twoPerpendicularBearingsGiveSigmaTimesDistance() {
        // Lines of sight along x and y at distance 10 m, σθ = 0.1 rad: each pins the perpendicular axis to σθ·d = 1 m.
        let f = FisherInformation.bearing(lineOfSight: Point(1, 0), distance: 10, sigmaRadians: 0.1)
            + .bearing(lineOfSight: Point(0, 1), distance: 10, sigmaRadians: 0.1)
        let c = try! #require(f.inverse)
        #expect(abs(c.xx - 1) < 1e-12 && abs(c.yy - 1) < 1e-12 && abs(c.xy) < 1e-12)
        #expect(abs(c.drms - 2.0.squareRoot()) < 1e-12)
    }

    @Test func aBeaconsOwnSpreadCapsWhatItsReadingsAreWorth() {
        // σ = 4 dB per reading (J = 1/16), beacon spread σ_b = 2 dB: k readings give the mean with variance
        // 16/k + 4, so they are worth k' = 16 / (16/k + 4) readings, never more than 4.
        let j = 1.0 / 16
        for k in [1.0, 4, 10, 100, 1e6] {
            let kEff = NoiseInformation.effectiveReadings(k, perReading: j, spread: 2)
            #expect(abs(kEff * j - 1 / (16 / k + 4)) < 1e-12 * kEff)
            #expect(kEff < min(k, 4))
        }
        #expect(abs(NoiseInformation.effectiveReadings(1e12, perReading: j, spread: 2) - 4) < 1e-6)
        #expect(NoiseInformation.effectiveReadings(10, perReading: j, spread: 0) == 10, "no spread: the readings as they are")
        #expect(NoiseInformation.effectiveReadings(0, perReading: j, spread: 2) == 0)
    }

    @Test func withHeavyTailsTheSpreadIsOverCountedNeverUnder() {
        // One reading from the contaminated normal plus a Gaussian ΔP0 is again a contaminated normal, with
        // both parts widened by σ_b² (its information computed directly). Stam: it carries no more information
        // than effectiveReadings counts, and less when there are outliers.
        let sigma = 4.0, spreadSigma = 2.0
        for (rate, scale) in [(0.0, 0.0), (0.05, 10.0), (0.2, 6.0)] {
            let j = NoiseInformation.contaminatedNormal(sigma: sigma, outlierRate: rate, outlierScale: scale)
            let counted = NoiseInformation.effectiveReadings(1, perReading: j, spread: spreadSigma) * j
            let exact = NoiseInformation.contaminatedNormal(sigma: (sigma * sigma + spreadSigma * spreadSigma).squareRoot(),
                                                            outlierRate: rate, outlierScale: scale)
            if rate == 0 {
                #expect(abs(exact - counted) < 1e-6 * counted, "Gaussian: exact")
            } else {
                #expect(exact < counted * (1 - 1e-3), "outliers at \(rate): \(exact) against \(counted)")
            }
        }
    }

    @Test func expectedReadingsCountLossSensitivityAndCorrelation() {
        var r = RadioModel(sigma: 4, sensitivity: -100, advertisingInterval: 0.1, scanWindow: 1, packetLoss: 0.2)
        #expect(abs(r.expectedIndependentReadings(meanRSSI: -40) - 10 * 0.8) < 1e-9, "heard for sure: k·(1 − loss)")
        #expect(abs(r.expectedIndependentReadings(meanRSSI: -100) - 4) < 1e-9, "at the sensitivity: half heard")
        #expect(r.expectedIndependentReadings(meanRSSI: -140) == 0, "below half a reading: not heard")
        r.correlationDistance = 5
        #expect(abs(r.expectedIndependentReadings(meanRSSI: -40) - 1) < 1e-9, "one shadowing draw per window")
    }

    /// L·Lᵀ gives back C; a singular C still gives a factor, its l11 at the floor.
    @Test func choleskyFactorRebuildsTheCovariance() {
        let c = Covariance2(xx: 4, xy: -1.2, yy: 2.5)
        let (l00, l10, l11) = c.choleskyFactor()
        #expect(abs(l00 * l00 - c.xx) < 1e-12 && abs(l00 * l10 - c.xy) < 1e-12 && abs(l10 * l10 + l11 * l11 - c.yy) < 1e-12)
        let singular = Covariance2(xx: 1, xy: 2, yy: 4).choleskyFactor(floor: 1e-6)
        #expect(abs(singular.l11 - 1e-3) < 1e-12 && singular.l10 == 2)
        let zero = Covariance2(xx: 0, xy: 0, yy: 0).choleskyFactor()
        #expect(zero.l00 == 0 && zero.l10 == 0 && zero.l11 == 0)
    }
}

@Suite struct LabJSONTests {
    @Test func infinitiesAndNaNRoundTripAsStrings() throws {
        let text = try LabJSON.string(["a": Double.infinity, "b": -.infinity, "c": 1.5])
        #expect(text.contains("\"inf\"") && text.contains("\"-inf\""))
        let back = try LabJSON.decoder().decode([String: Double].self, from: Data(text.utf8))
        #expect(back["a"] == .infinity && back["b"] == -.infinity && back["c"] == 1.5)
        #expect(try LabJSON.string([Double.nan]).contains("\"nan\""))
    }

    /// A key twice in one object is found with its object's path (the decoder would keep one silently); the same key
    /// in different objects, keys inside strings and escaped quotes are not duplicates.
    @Test func aKeyTwiceInOneObjectIsFound() throws {
        func dup(_ text: String) -> String? { LabJSON.duplicateKey(in: Data(text.utf8)).map { "\($0.path)|\($0.key)" } }
        #expect(dup(#"{"a": 1, "b": 2}"#) == nil)
        #expect(dup(#"{"a": 1, "a": 2}"#) == "|a")
        #expect(dup(#"{"baselines": {"centroid": {"mean": {"value": 1}, "mean": {"value": 2}}}}"#) == "baselines.centroid|mean")
        #expect(dup(#"{"x": {"a": 1}, "y": {"a": 1}, "a": "a"}"#) == nil)
        #expect(dup(#"{"s": "\"a\": 1, \"a\": 2", "t": ["a", "a"]}"#) == nil)
        #expect(dup(#"{"list": [{"k": 1}, {"k": 2, "k": 3}]}"#) == "list[]|k")
        #expect(dup(#"{"we\"ird": 1, "we\"ird": 2}"#) == #"|we\"ird"#)
        let e = try #require(throws: InputError.self) {
            try LabJSON.decode([String: Int].self, from: Data(#"{"seeds": 1, "seeds": 2}"#.utf8), file: "f.json", as: "a test")
        }
        #expect(e.location.field == "seeds" && e.message.contains("appears twice"), "\(e)")
    }
}
