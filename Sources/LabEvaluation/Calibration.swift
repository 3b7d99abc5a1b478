@preconcurrency internal import CGSL
import Foundation
import LabCore
import LabStore

/// GSL's default error handler aborts the process; status codes are checked instead. Evaluated once.
let gslErrorHandlerOff: Void = { _ = gsl_set_error_handler_off() }()

/// A least-squares fit of the log-distance path-loss law to RSSI samples with known distances:
///
///     RSSI = P0 − n · 10·log10(d / 1 m) + ε
///
/// by GSL's `gsl_fit_linear` of y = RSSI on x = 10·log10(d): intercept c0 = P0, slope c1 = −n.
/// Standard errors come from GSL's covariance, which scales by the residual variance
/// s² = Σ residual² / (N − 2); σ (the shadowing) is s.
public struct PathLossFit: Sendable, Hashable, Codable {
    /// RSSI at 1 m, dBm, and its standard error.
    public var p0: Double
    public var p0Error: Double
    /// Path-loss exponent n and its standard error.
    public var exponent: Double
    public var exponentError: Double
    /// Covariance of (P0, n).
    public var covariance: Double
    /// Residual standard deviation, dB.
    public var sigma: Double
    public var samples: Int
    /// Distances covered, metres.
    public var minDistance: Double
    public var maxDistance: Double

    /// Fits the samples; `x` = 10·log10(d), `y` = RSSI.
    /// - Throws: ``CalibrationError`` with fewer than 3 samples, no spread in distance, or a GSL failure.
    public static func fit(x: [Double], y: [Double]) throws -> PathLossFit {
        _ = gslErrorHandlerOff
        precondition(x.count == y.count, "x and y must have one entry per sample")
        let n = x.count
        guard n >= 3 else { throw CalibrationError("need at least 3 samples with a known distance, have \(n)") }
        let mean = x.reduce(0, +) / Double(n)
        let spread = x.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(n)
        guard spread > 1e-6 else { throw CalibrationError("every sample is at the same distance: the exponent cannot be fitted") }
        var c0 = 0.0, c1 = 0.0, cov00 = 0.0, cov01 = 0.0, cov11 = 0.0, sumsq = 0.0
        let status = x.withUnsafeBufferPointer { xp in
            y.withUnsafeBufferPointer { yp in
                gsl_fit_linear(xp.baseAddress, 1, yp.baseAddress, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq)
            }
        }
        guard status == GSL_SUCCESS, c0.isFinite, c1.isFinite else {
            throw CalibrationError("gsl_fit_linear failed (status \(status))")
        }
        let dMin = pow(10, (x.min() ?? 0) / 10), dMax = pow(10, (x.max() ?? 0) / 10)
        return PathLossFit(p0: c0, p0Error: cov00.squareRoot(), exponent: -c1, exponentError: cov11.squareRoot(),
                           covariance: -cov01, sigma: (sumsq / Double(n - 2)).squareRoot(), samples: n,
                           minDistance: dMin, maxDistance: dMax)
    }
}

/// One wall material's loss per crossing, fitted jointly with P0 and n:
///
///     RSSI = P0 − n·10·log10(d) − Σ_m L_m · k_m + ε      (k_m: walls of material m crossed)
///
/// by GSL's `gsl_multifit_linear` (design columns 1, 10·log10 d, −k_1, …), standard errors from its covariance
/// (which, like `gsl_fit_linear`'s, GSL scales by the residual variance χ²/(N − p)).
public struct MaterialLossFit: Sendable, Hashable, Codable {
    public var material: String
    /// dB per wall crossed, and its standard error.
    public var loss: Double
    public var lossError: Double
    /// Samples whose path crosses at least one wall of this material.
    public var samples: Int
}

extension PathLossFit {
    /// The joint fit of P0, n and one loss per material; `crossings[i][m]` counts the walls of material m
    /// sample i crosses. - Throws: ``CalibrationError`` when the design is rank-deficient or GSL fails.
    static func fit(x: [Double], y: [Double], crossings: [[Int]], materials: [String]) throws -> (PathLossFit, [MaterialLossFit]) {
        _ = gslErrorHandlerOff
        let n = x.count, m = materials.count, p = 2 + m
        guard n > p else { throw CalibrationError("need more than \(p) samples to fit P0, n and \(m) wall losses, have \(n)") }
        guard let X = gsl_matrix_alloc(n, p), let yv = gsl_vector_alloc(n), let c = gsl_vector_alloc(p),
              let cov = gsl_matrix_alloc(p, p), let work = gsl_multifit_linear_alloc(n, p) else {
            throw CalibrationError("cannot allocate GSL's workspace for \(n) samples")
        }
        defer { gsl_matrix_free(X); gsl_vector_free(yv); gsl_vector_free(c); gsl_matrix_free(cov); gsl_multifit_linear_free(work) }
        for i in 0..<n {
            gsl_matrix_set(X, i, 0, 1)
            gsl_matrix_set(X, i, 1, x[i])
            for j in 0..<m { gsl_matrix_set(X, i, 2 + j, -Double(crossings[i][j])) }
            gsl_vector_set(yv, i, y[i])
        }
        var chisq = 0.0
        let status = gsl_multifit_linear(X, yv, c, cov, &chisq, work)
        guard status == GSL_SUCCESS else { throw CalibrationError("gsl_multifit_linear failed (status \(status))") }
        let s2 = chisq / Double(n - p)
        func se(_ k: Int) -> Double { gsl_matrix_get(cov, k, k).squareRoot() }
        let values = (0..<p).map { gsl_vector_get(c, $0) }
        guard values.allSatisfy(\.isFinite) else { throw CalibrationError("the joint fit is not finite (are two materials always crossed together?)") }
        let dMin = pow(10, (x.min() ?? 0) / 10), dMax = pow(10, (x.max() ?? 0) / 10)
        let base = PathLossFit(p0: values[0], p0Error: se(0), exponent: -values[1], exponentError: se(1),
                               covariance: -gsl_matrix_get(cov, 0, 1), sigma: s2.squareRoot(), samples: n,
                               minDistance: dMin, maxDistance: dMax)
        let losses = materials.enumerated().map { j, name in
            MaterialLossFit(material: name, loss: values[2 + j], lossError: se(2 + j), samples: crossings.reduce(0) { $0 + ($1[j] > 0 ? 1 : 0) })
        }
        return (base, losses)
    }
}

/// The fit cannot be made (too few samples, no spread in distance).
public struct CalibrationError: Error, Sendable, CustomStringConvertible, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One RSSI sample with the distance to where the device truly was.
public struct CalibrationSample: Sendable, Hashable {
    public var beacon: Int
    /// Distance between beacon and device, metres (3-D when heights are known), at least 0.1 m.
    public var distance: Double
    public var rssi: Double
    /// Walls crossed on the way, per fitted material (``Calibration/materials`` order); empty without any.
    public var crossings: [Int] = []
    /// The loss of walls crossed whose loss is not fitted (no material, or one too rarely crossed), dB.
    public var fixedLoss = 0.0
    /// The scan window it was heard in (``EpochBuilder/windowIndex(_:)``).
    public var window = 0
    /// 10·log10(distance).
    public var x: Double { 10 * log10(distance) }
}

/// Fits the radio model to a recording: globally, and per beacon.
public struct Calibration: Sendable {
    public struct BeaconFit: Sendable, Hashable, Codable {
        public var id: String
        public var samples: Int
        /// P0 of this beacon with the exponent held at the global fit's: mean of RSSI + n·10·log10(d) + the loss of the
        /// walls crossed (as stored or fitted), with its standard error (σ of those values / √samples). What a scenario's
        /// per-beacon `p0` means.
        public var p0AtGlobalExponent: Double
        public var p0AtGlobalExponentError: Double
        /// The beacon's own two-parameter fit (of the readings with the walls' losses added back); nil when its samples
        /// have no spread in distance.
        public var fit: PathLossFit?
    }

    public var global: PathLossFit
    /// Beacons with at least ``minimumBeaconSamples`` samples, in the recording's beacon order.
    public var beacons: [BeaconFit]
    /// Beacons left out for having too few samples.
    public var skippedBeacons: [String]
    public var samples: [CalibrationSample]
    /// Whether distances are 3-D (beacon heights and device height known).
    public var threeDimensional: Bool
    /// Wall losses fitted jointly with the global P0 and n, one per material crossed by at least
    /// ``minimumMaterialSamples`` samples' paths (empty when the recording has no walls with a material).
    public var materials: [MaterialLossFit] = []
    /// How the residuals split between what a scan window's averaging removes and what it does not; nil when no
    /// window holds two readings of one beacon (then the split cannot be seen, and σ is all there is).
    public var windowSplit: WindowSplit?
    /// The receiver's floor as the recording shows it, dBm (``RadioFit/floor(of:)``, over all its readings); nil for
    /// a simulated recording, whose scenario states the sensitivity exactly, and without readings.
    public var floor: Double?
    /// The receiver's window dropout (``RadioModel/dropout``) as the recording shows it; nil when too few windows had a
    /// beacon the fitted law puts clearly above the floor (``Dropout/minimumWindows``).
    public var dropout: Dropout?

    /// How often a scan window reported nothing of a beacon that the fitted law puts at least ``margin`` σ above the
    /// receiver's floor (the recording's ``floor``, or its stated sensitivity) at the truth: each beacon's P0 where
    /// fitted, the walls' losses as fitted, σ the whole residual spread of one reading. So far above the floor the
    /// noise alone misses a window once in 740 (Φ(−3)), so what is missed there went unreported however strong: the
    /// dropout. Every (window with truth, beacon) pair of the venue counts, heard or not.
    public struct Dropout: Sendable, Hashable, Codable {
        /// The share of those pairs that reported nothing.
        public var rate: Double
        /// The (window, beacon) pairs counted, and how many of them reported nothing.
        public var pairs: Int
        public var missed: Int
        /// How far above the floor, in σ, a beacon's mean must lie to count.
        public static let margin = 3.0
        /// The fewest pairs a rate is given from.
        public static let minimumWindows = 30
    }

    /// The residuals around the fitted model (each beacon's P0 where it has one, the global P0 otherwise; walls
    /// as fitted), grouped by beacon and scan window (the recording's, as replay cuts them), over the groups of
    /// two readings or more. With s_w² the pooled variance of the readings around their group's mean, and m_g the
    /// mean residual of group g with n_g readings, E[m_g²] = σ_m² + s_w²/n_g, so
    ///
    ///     σ_m² = max(0, mean over groups of (m_g² − s_w²/n_g))
    ///
    /// is the model error (``RadioModel/modelError``) and s_w the σ that averaging within a window shrinks:
    /// together they make the variance estimators give a beacon's window mean, s_w²/k + σ_m².
    public struct WindowSplit: Sendable, Hashable, Codable {
        /// s_w: one reading's σ around its window's mean, dB.
        public var withinSigma: Double
        /// σ_m, dB.
        public var modelError: Double
        /// (beacon, window) groups with two readings or more (the split's evidence), and the single readings left out:
        /// mostly far beacons that cleared the sensitivity only when the noise lifted them, whose mean reads high.
        public var groups: Int
        public var singleReadings: Int

        /// The split of `residuals`, one per sample with its beacon and scan window.
        static func measure(residuals: [Double], beacons: [Int], windows: [Int]) -> WindowSplit? {
            struct Key: Hashable { var beacon: Int; var window: Int }
            var groups: [Key: (n: Int, sum: Double, sumSquares: Double)] = [:]
            for i in residuals.indices {
                let key = Key(beacon: beacons[i], window: windows[i])
                var g = groups[key] ?? (0, 0, 0)
                g.n += 1; g.sum += residuals[i]; g.sumSquares += residuals[i] * residuals[i]
                groups[key] = g
            }
            // Summed in the keys' order, not the dictionary's (which changes from run to run): the fit, and every
            // estimator given it, must repeat to the last bit.
            let pooled = groups.sorted { ($0.key.beacon, $0.key.window) < ($1.key.beacon, $1.key.window) }.map(\.value).filter { $0.n >= 2 }
            guard !pooled.isEmpty else { return nil }
            let within = pooled.reduce(0.0) { $0 + max($1.sumSquares - $1.sum * $1.sum / Double($1.n), 0) }
            let s2 = within / Double(pooled.reduce(0) { $0 + $1.n - 1 })
            let excess = pooled.reduce(0.0) { acc, g in
                let m = g.sum / Double(g.n)
                return acc + m * m - s2 / Double(g.n)
            }
            return WindowSplit(withinSigma: s2.squareRoot(), modelError: max(excess / Double(pooled.count), 0).squareRoot(),
                               groups: pooled.count, singleReadings: groups.count - pooled.count)
        }
    }

    public static let minimumBeaconSamples = 10
    /// A material's loss is fitted when at least this many samples' paths cross one of its walls.
    public static let minimumMaterialSamples = 30
    /// Distances below this are clamped: log10 of zero is not a number, and the law does not hold that close.
    public static let minimumDistance = 0.1

    /// The samples of `r` whose time has a ground-truth position (``EpochBuilder/TruthLookup``).
    /// Distances are 3-D with the beacon's height and the device's height (the truth's z, else the receiver
    /// height of the radio model); beacons without a height are taken to be at the device's height.
    public static func samples(_ r: Recording) -> (samples: [CalibrationSample], threeDimensional: Bool) {
        let venue = r.venue
        let materials = Calibration.materials(r)
        let builder = EpochBuilder(venue: venue.venue)
        let lookup = EpochBuilder.TruthLookup(r, builder: builder)
        var out: [CalibrationSample] = []
        out.reserveCapacity(r.rssi.count)
        var threeD = false
        for s in r.rssi {
            guard let truth = lookup.at(s.t) else { continue }
            let b = venue.beacons[s.beacon]
            if b.height != nil { threeD = true }
            let d = distance(venue, beacon: s.beacon, to: truth.position, z: truth.z)
            var sample = CalibrationSample(beacon: s.beacon, distance: d, rssi: s.rssi)
            sample.window = builder.windowIndex(s.t)
            if !venue.walls.isEmpty {
                sample.crossings = [Int](repeating: 0, count: materials.count)
                for w in venue.walls where w.segment.intersects(b.position, truth.position) {
                    if let m = w.material, let j = materials.firstIndex(of: m) { sample.crossings[j] += 1 } else { sample.fixedLoss += w.loss }
                }
            }
            out.append(sample)
        }
        return (out, threeD)
    }

    /// The distance from beacon `i` to a device at `p`, metres: 3-D with the beacon's height and the device's (`z`, else
    /// the radio model's receiver height; a beacon without a height is at the device's), at least ``minimumDistance``.
    static func distance(_ venue: RecordedVenue, beacon i: Int, to p: Point, z: Double?) -> Double {
        let b = venue.beacons[i]
        let dx = p.x - b.position.x, dy = p.y - b.position.y
        let dz = b.height.map { $0 - (z ?? venue.radio.receiverHeight) } ?? 0
        return max((dx * dx + dy * dy + dz * dz).squareRoot(), minimumDistance)
    }

    /// The materials of `r`'s walls, sorted.
    static func materials(_ r: Recording) -> [String] { Array(Set(r.venue.walls.compactMap(\.material))).sorted() }

    /// Fits the whole recording and, when `perBeacon`, each beacon with enough samples.
    public init(_ r: Recording, perBeacon: Bool = true) throws {
        let (samples, threeD) = Calibration.samples(r)
        self.samples = samples
        threeDimensional = threeD
        floor = r.info.source == .simulated ? nil : RadioFit.floor(of: r.rssi)
        guard !samples.isEmpty else {
            throw CalibrationError("no RSSI sample has a ground-truth position (truth and readings must share scan windows)")
        }
        // Materials crossed often enough get a loss in the joint fit; the others keep their stored loss.
        let all = Calibration.materials(r)
        let fitted = all.indices.filter { j in samples.reduce(0) { $0 + (($1.crossings.isEmpty ? 0 : $1.crossings[j]) > 0 ? 1 : 0) } >= Calibration.minimumMaterialSamples }
        let storedLoss = Dictionary(r.venue.walls.compactMap { w in w.material.map { ($0, w.loss) } }, uniquingKeysWith: { a, _ in a })
        // Materials too rarely crossed keep their stored loss: a known term, moved to the left-hand side.
        let kept = all.indices.filter { !fitted.contains($0) }.map { ($0, storedLoss[all[$0]] ?? 0) }
        // The loss of the walls `s` crosses whose materials (indices into `all`) have the given losses.
        func loss(_ s: CalibrationSample, _ losses: [(Int, Double)]) -> Double {
            losses.reduce(0.0) { acc, m in acc + Double(s.crossings.isEmpty ? 0 : s.crossings[m.0]) * m.1 }
        }
        let y = samples.map { s in s.rssi + s.fixedLoss + loss(s, kept) }
        if fitted.isEmpty {
            global = try PathLossFit.fit(x: samples.map(\.x), y: y)
        } else {
            (global, materials) = try PathLossFit.fit(x: samples.map(\.x), y: y, crossings: samples.map { s in fitted.map { s.crossings[$0] } },
                                                      materials: fitted.map { all[$0] })
        }
        // A fit that is no path-loss model must not be printed as one, stored or applied: the recording's truth or its
        // beacons' positions are wrong (a recording that stored it could not be opened again).
        // The ranges a scenario's radio block takes (RadioModel's plausible ranges) hold it.
        if let problem = Format.outside(RadioModel.plausibleExponent, global.exponent).map({ "exponent: " + $0 })
            ?? Format.outside(RadioModel.plausibleP0, global.p0, unit: "dBm").map({ "P0: " + $0 })
            ?? Format.outside(RadioModel.plausibleSigma, global.sigma, unit: "dB").map({ "σ: " + $0 }) {
            throw CalibrationError("the fit is no path-loss model (P0 \(Format.fixed(global.p0, 2)) dBm, n \(Format.fixed(global.exponent, 3)), "
                                   + "σ \(Format.fixed(global.sigma, 2)) dB; \(problem); RSSI should fall with distance): check the recording's truth positions and beacon positions")
        }
        beacons = []
        skippedBeacons = []
        // Each sample's reading with every wall it crossed added back (stored losses and those just fitted): what the
        // beacon sent at the sample's distance. A beacon's P0 is fitted on these, so the estimators, which take the
        // walls off again, do not take them off twice (else a beacon behind walls fits low: docs/real-data.md, "The
        // walls added back").
        let fittedLoss = zip(fitted, materials.map(\.loss)).map { ($0, $1) }
        let unwalled = samples.indices.map { y[$0] + loss(samples[$0], fittedLoss) }
        if perBeacon {
            var groups = [[Int]](repeating: [], count: r.venue.beacons.count)
            for (k, s) in samples.enumerated() { groups[s.beacon].append(k) }
            for (i, g) in groups.enumerated() {
                let id = r.venue.beacons[i].id
                guard g.count >= Calibration.minimumBeaconSamples else { skippedBeacons.append(id); continue }
                let n = global.exponent
                let values = g.map { unwalled[$0] + n * samples[$0].x }
                let mean = values.reduce(0, +) / Double(values.count)
                let sd = (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(max(values.count - 1, 1))).squareRoot()
                if let problem = Format.outside(RadioModel.plausibleP0, mean, unit: "dBm") {
                    throw CalibrationError("beacon \(id)'s P0 fits as no receiver reads (\(problem)): check its position and the recording's truth")
                }
                beacons.append(BeaconFit(id: id, samples: g.count, p0AtGlobalExponent: mean,
                                         p0AtGlobalExponentError: sd / Double(values.count).squareRoot(),
                                         fit: try? PathLossFit.fit(x: g.map { samples[$0].x }, y: g.map { unwalled[$0] })))
            }
        }
        // Residuals around the model as it would be stored: per-beacon P0 where fitted, walls as fitted.
        let p0 = Dictionary(uniqueKeysWithValues: beacons.map { ($0.id, $0.p0AtGlobalExponent) })
        let ids = r.venue.beacons.map(\.id)
        let residuals = samples.indices.map { i in unwalled[i] - (p0[ids[samples[i].beacon]] ?? global.p0) + global.exponent * samples[i].x }
        windowSplit = WindowSplit.measure(residuals: residuals, beacons: samples.map(\.beacon), windows: samples.map(\.window))
        dropout = Calibration.dropout(r, p0: ids.map { p0[$0] ?? global.p0 }, exponent: global.exponent, sigma: global.sigma,
                                      floor: floor ?? r.venue.radio.sensitivity,
                                      losses: Dictionary(uniqueKeysWithValues: materials.map { ($0.material, $0.loss) }))
    }

    /// ``Dropout``: over `r`'s windows with truth and every beacon of its venue, the law with these parameters (each
    /// beacon's `p0`; each wall's loss from `losses` by material, else its stored loss).
    static func dropout(_ r: Recording, p0: [Double], exponent: Double, sigma: Double, floor: Double,
                        losses: [String: Double]) -> Dropout? {
        let venue = r.venue
        let epochs = EpochBuilder(venue: venue.venue).epochs(r).epochs
        let lookup = EpochBuilder.TruthLookup(r, builder: EpochBuilder(venue: venue.venue))
        let threshold = floor + Dropout.margin * sigma
        var pairs = 0, missed = 0
        var heard = [Bool](repeating: false, count: venue.beacons.count)
        for e in epochs {
            for i in heard.indices { heard[i] = false }
            for reading in e.readings { heard[reading.beacon] = true }
            let z = lookup.at(e.t)?.z
            for (i, b) in venue.beacons.enumerated() {
                let d = distance(venue, beacon: i, to: e.truth, z: z)
                var mean = p0[i] - 10 * exponent * log10(d)
                for w in venue.walls where w.segment.intersects(b.position, e.truth) { mean -= w.material.flatMap { losses[$0] } ?? w.loss }
                guard mean >= threshold else { continue }
                pairs += 1
                if !heard[i] { missed += 1 }
            }
        }
        guard pairs >= Dropout.minimumWindows else { return nil }
        return Dropout(rate: Double(missed) / Double(pairs), pairs: pairs, missed: missed)
    }
}

extension RadioFit {
    /// The model a calibration fitted: its global P0, n, σ and model error, and each fitted beacon's P0 at the
    /// global n.
    /// `rounded`: to 0.01 dB and 0.001 in n, as files and stored recordings keep them.
    public init(_ c: Calibration, fittedOn: String, rounded: Bool = false) {
        func r(_ v: Double, _ digits: Double = 2) -> Double {
            guard rounded else { return v }
            let f = pow(10, digits)
            return (v * f).rounded() / f
        }
        // With the window split seen, σ is what averaging shrinks and the rest the model error; without it, σ is
        // the whole residual spread.
        self.init(p0: r(c.global.p0), exponent: r(c.global.exponent, 3), sigma: r(c.windowSplit?.withinSigma ?? c.global.sigma),
                  beaconP0: Dictionary(uniqueKeysWithValues: c.beacons.map { ($0.id, r($0.p0AtGlobalExponent)) }), fittedOn: fittedOn)
        modelError = r(c.windowSplit?.modelError ?? 0)
        sensitivity = c.floor.map { r($0) }
        dropout = c.dropout.map { r($0.rate, 3) }
        // A loss below 0 dB is noise around none: stored as 0.
        if !c.materials.isEmpty { materialLoss = Dictionary(uniqueKeysWithValues: c.materials.map { ($0.material, r(max($0.loss, 0))) }) }
    }
}
