@preconcurrency internal import CGSL
import Foundation
import LabCore
import LabStore

/// A venue's radio map (``RadioMap``) fitted from a survey: epochs with ground truth, on a venue whose radio model
/// was calibrated on them (docs/real-data.md, "The radio map").
///
/// 1. **Residuals.** Each heard beacon's window mean minus the fitted law at the truth (its P0, n, the walls), averaged
///    per spot (truth snapped to ``spotSize``), with the number of windows behind each average. The phone's offset
///    sits in the beacons' fitted P0, so the residuals average to about 0 per beacon and carry no phone in them.
/// 2. **A Gaussian process per beacon** over the spots: f ~ GP(0, σ_f²·exp(−|x − x'|² / 2ℓ²)), each spot's average
///    seen with noise σ_n² / windows. Each beacon's ℓ, σ_f and σ_n are chosen by its marginal likelihood (GSL's
///    Nelder–Mead simplex on their logit-scaled logarithms within ``lengthRange``, ``signalRange`` and ``noiseRange``,
///    the covariance factored by GSL's Cholesky). Shared ones, chosen by the likelihood summed over the beacons, did
///    worse on the odd reference points of UJI (docs/real-data.md, "The radio map").
/// 3. **The map**: each beacon's posterior mean and variance of f at the grid's nodes. Far from every spot the mean
///    goes to 0 (the law) and the variance to σ_f².
public struct RadioMapFit: Sendable {
    public var map: RadioMap
    /// One beacon's Gaussian process: its length scale ℓ (m), σ_f (how far its readings depart from the law, place to
    /// place, dB), σ_n (a spot's single window's spread about its place's mean, dB) and the log marginal likelihood there.
    public struct Hyperparameters: Sendable, Hashable {
        public var lengthScale: Double, signalSigma: Double, noiseSigma: Double, logLikelihood: Double
    }
    /// Per mapped beacon (the venue's index).
    public var beacons: [Int: Hyperparameters]
    /// Spots surveyed.
    public var spots: Int
    /// The survey itself, spot by spot: what the map was fitted on.
    public var survey: [SurveyedSpot]
    public var beaconsMapped: Int { beacons.count }

    /// Truth positions within this many metres share a spot, m.
    public static let spotSize = 1.0
    /// A beacon heard at fewer spots gets no map.
    public static let minimumSpots = 3
    /// The map's grid spacing, m (coarser for venues whose grid would pass ``maximumNodes``).
    public static let cellSize = 1.0
    public static let maximumNodes = 40_000
    /// A beacon heard at more spots is fitted on this many, the most-heard (its covariance is factored once per step).
    public static let maximumSpotsPerBeacon = 400
    /// The hyperparameters' search box: ℓ, σ_f and σ_n.
    static let lengthRange = 0.5...30.0, signalRange = 0.1...15.0, noiseRange = 0.3...20.0

    /// One beacon's survey: spot positions, the residual average at each, and the windows behind it.
    struct BeaconData { var x: [Point] = [], y: [Double] = [], windows: [Double] = [] }

    public init(epochs: [Epoch], venue: Venue) throws {
        _ = gslErrorHandlerOff
        let (data, table) = RadioMapFit.residuals(epochs: epochs, venue: venue)
        survey = table
        let fitted = data.enumerated().filter { $0.element.x.count >= RadioMapFit.minimumSpots }
        guard !fitted.isEmpty else {
            throw CalibrationError("no beacon was heard at \(RadioMapFit.minimumSpots) or more surveyed spots: too little survey for a radio map")
        }
        spots = table.count

        let b = venue.bounds
        let cell = max(RadioMapFit.cellSize, (b.width * b.height / Double(RadioMapFit.maximumNodes)).squareRoot())
        let nx = Int((b.width / cell).rounded(.up)) + 1, ny = Int((b.height / cell).rounded(.up)) + 1
        var mean = [[Float]](repeating: [], count: venue.beaconCount), variance = mean
        // Each beacon on its own core: its likelihood's minimiser, then its map.
        let slots = ResultSlots<(Hyperparameters, [Float], [Float])>(count: fitted.count)
        DispatchQueue.concurrentPerform(iterations: fitted.count) { k in
            slots.fill(k) {
                let d = fitted[k].element
                let (theta, ll) = try RadioMapFit.hyperparameters([d])
                let (m, v) = try RadioMapFit.posterior(d, theta: theta, origin: Point(b.minX, b.minY), cell: cell, nx: nx, ny: ny)
                return [(Hyperparameters(lengthScale: theta.0, signalSigma: theta.1, noiseSigma: theta.2, logLikelihood: ll), m, v)]
            }
        }
        var beacons: [Int: Hyperparameters] = [:]
        for (k, value) in try slots.values().map({ $0[0] }).enumerated() {
            let beacon = fitted[k].offset
            beacons[beacon] = value.0; mean[beacon] = value.1; variance[beacon] = value.2
        }
        self.beacons = beacons
        map = RadioMap(origin: Point(b.minX, b.minY), cellSize: cell, nx: nx, ny: ny, mean: mean, variance: variance)
    }

    /// Each beacon's residual averages per spot (step 1), and the spots as a table (``SurveyedSpot``).
    static func residuals(epochs: [Epoch], venue: Venue) -> (beacons: [BeaconData], spots: [SurveyedSpot]) {
        struct Sum { var total = 0.0, windows = 0 }
        var perSpot: [[Int64: Sum]] = Array(repeating: [:], count: venue.beaconCount)
        var spotPosition: [Int64: (x: Double, y: Double, n: Double)] = [:]
        func key(_ p: Point) -> Int64 { Int64((p.x / spotSize).rounded()) &* 1_000_003 &+ Int64((p.y / spotSize).rounded()) }
        // Every window at a spot, heard or not: the share of them that heard a beacon.
        var windowsAt: [Int64: Int] = [:]
        for e in epochs { windowsAt[key(e.truth), default: 0] += 1 }
        for e in epochs where !e.readings.isEmpty {
            let key = key(e.truth)
            var s = spotPosition[key] ?? (0, 0, 0)
            s.x += e.truth.x; s.y += e.truth.y; s.n += 1
            spotPosition[key] = s
            var sums: [Int: (Double, Int)] = [:]
            for r in e.readings where r.beacon >= 0 && r.beacon < venue.beaconCount && r.rssi.isFinite {
                sums[r.beacon, default: (0, 0)].0 += r.rssi; sums[r.beacon, default: (0, 0)].1 += 1
            }
            for (beacon, (total, count)) in sums {
                perSpot[beacon][key, default: Sum()].total += total / Double(count) - venue.lawMean(beacon: beacon, at: e.truth)
                perSpot[beacon][key, default: Sum()].windows += 1
            }
        }
        let table = spotPosition.keys.sorted().map { k -> SurveyedSpot in
            let p = spotPosition[k]!
            var heard: [Int: SurveyedSpot.Beacon] = [:]
            for b in perSpot.indices { if let s = perSpot[b][k] { heard[b] = .init(residual: s.total / Double(s.windows), windows: s.windows) } }
            return SurveyedSpot(position: Point(p.x / p.n, p.y / p.n), windows: windowsAt[k] ?? 0, beacons: heard)
        }
        return (perSpot.map { spots in
            var d = BeaconData()
            // The most-heard spots first (then by place, so the order is the same every run), at most the cap.
            let kept = spots.sorted { ($0.value.windows, $1.key) > ($1.value.windows, $0.key) }.prefix(maximumSpotsPerBeacon)
            for (key, s) in kept.sorted(by: { $0.key < $1.key }) {
                let p = spotPosition[key]!
                d.x.append(Point(p.x / p.n, p.y / p.n)); d.y.append(s.total / Double(s.windows)); d.windows.append(Double(s.windows))
            }
            return d
        }, table)
    }

    /// The (ℓ, σ_f, σ_n) that maximise the log marginal likelihood summed over `beacons`, and that maximum (step 2).
    static func hyperparameters(_ beacons: [BeaconData]) throws -> ((Double, Double, Double), Double) {
        final class Context { let beacons: [BeaconData]; init(_ b: [BeaconData]) { beacons = b } }
        let context = Context(beacons)
        let f: @convention(c) (UnsafePointer<gsl_vector>?, UnsafeMutableRawPointer?) -> Double = { v, params in
            let c = Unmanaged<Context>.fromOpaque(params!).takeUnretainedValue()
            let theta = RadioMapFit.theta(gsl_vector_get(v, 0), gsl_vector_get(v, 1), gsl_vector_get(v, 2))
            var total = 0.0
            for b in c.beacons {
                guard let ll = RadioMapFit.logMarginal(b, theta: theta) else { return .greatestFiniteMagnitude }
                total += ll
            }
            return -total
        }
        // The callback reads the context through an unretained pointer: it must live until the minimiser is done.
        return try withExtendedLifetime(context) { try minimise(f, context: Unmanaged.passUnretained(context).toOpaque()) }
    }

    /// Nelder–Mead on `f` (the negated summed log marginal likelihood of `context`'s beacons) from ℓ 3 m, σ_f 3 dB, σ_n 4 dB.
    private static func minimise(_ f: @escaping @convention(c) (UnsafePointer<gsl_vector>?, UnsafeMutableRawPointer?) -> Double,
                                 context: UnsafeMutableRawPointer) throws -> ((Double, Double, Double), Double) {
        // GSL keeps the function's address for every iteration: it lives on the heap until the minimiser is freed.
        let function = UnsafeMutablePointer<gsl_multimin_function>.allocate(capacity: 1)
        function.initialize(to: gsl_multimin_function(f: f, n: 3, params: context))
        defer { function.deallocate() }
        guard let s = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, 3),
              let x = gsl_vector_alloc(3), let step = gsl_vector_alloc(3) else { throw CalibrationError("cannot allocate the radio map's minimiser") }
        defer { gsl_multimin_fminimizer_free(s); gsl_vector_free(x); gsl_vector_free(step) }
        // From ℓ 3 m, σ_f 3 dB, σ_n 4 dB (in the logit of each range), steps of about a factor of 2.
        for (k, start) in [3.0, 3.0, 4.0].enumerated() {
            gsl_vector_set(x, k, RadioMapFit.unbounded(start, in: [lengthRange, signalRange, noiseRange][k]))
            gsl_vector_set(step, k, 1)
        }
        guard gsl_multimin_fminimizer_set(s, function, x, step) == GSL_SUCCESS else { throw CalibrationError("the radio map's likelihood cannot be evaluated at its start") }
        var iterations = 0
        while iterations < 300 {
            iterations += 1
            guard gsl_multimin_fminimizer_iterate(s) == GSL_SUCCESS else { break }
            if gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), 1e-3) == GSL_SUCCESS { break }
        }
        let best = gsl_multimin_fminimizer_x(s)
        let theta = RadioMapFit.theta(gsl_vector_get(best, 0), gsl_vector_get(best, 1), gsl_vector_get(best, 2))
        let value = gsl_multimin_fminimizer_minimum(s)
        guard value.isFinite, value < .greatestFiniteMagnitude else { throw CalibrationError("the radio map's likelihood has no finite maximum") }
        return (theta, -value)
    }

    /// A logit-scaled coordinate of the search back in its range.
    static func bounded(_ u: Double, in r: ClosedRange<Double>) -> Double {
        let lo = log(r.lowerBound), hi = log(r.upperBound)
        return exp(lo + (hi - lo) / (1 + exp(-u)))
    }
    static func unbounded(_ value: Double, in r: ClosedRange<Double>) -> Double {
        let lo = log(r.lowerBound), hi = log(r.upperBound), t = (log(value) - lo) / (hi - lo)
        return log(t / (1 - t))
    }
    static func theta(_ a: Double, _ b: Double, _ c: Double) -> (Double, Double, Double) {
        (bounded(a, in: lengthRange), bounded(b, in: signalRange), bounded(c, in: noiseRange))
    }

    /// The beacon's covariance over its spots, factored in place (lower triangle, GSL's Cholesky); nil when it is not
    /// positive definite.
    static func factored(_ d: BeaconData, theta: (Double, Double, Double)) -> OpaquePointer? {
        let m = d.x.count
        let (l, sf, sn) = theta
        guard let k = gsl_matrix_alloc(m, m) else { return nil }
        let inv2l2 = 1 / (2 * l * l), sf2 = sf * sf
        for i in 0..<m {
            for j in 0...i {
                let dx = d.x[i].x - d.x[j].x, dy = d.x[i].y - d.x[j].y
                var v = sf2 * exp(-(dx * dx + dy * dy) * inv2l2)
                if i == j { v += sn * sn / d.windows[i] + 1e-9 }
                gsl_matrix_set(k, i, j, v); gsl_matrix_set(k, j, i, v)
            }
        }
        guard gsl_linalg_cholesky_decomp1(k) == GSL_SUCCESS else { gsl_matrix_free(k); return nil }
        return OpaquePointer(k)
    }

    /// log p(y | θ) of one beacon's spots.
    static func logMarginal(_ d: BeaconData, theta: (Double, Double, Double)) -> Double? {
        guard let opaque = factored(d, theta: theta) else { return nil }
        let k = UnsafeMutablePointer<gsl_matrix>(opaque)
        defer { gsl_matrix_free(k) }
        let m = d.x.count
        guard let y = gsl_vector_alloc(m), let alpha = gsl_vector_alloc(m) else { return nil }
        defer { gsl_vector_free(y); gsl_vector_free(alpha) }
        for i in 0..<m { gsl_vector_set(y, i, d.y[i]) }
        guard gsl_linalg_cholesky_solve(k, y, alpha) == GSL_SUCCESS else { return nil }
        var fit = 0.0, logDet = 0.0
        for i in 0..<m { fit += d.y[i] * gsl_vector_get(alpha, i); logDet += log(gsl_matrix_get(k, i, i)) }
        let ll = -0.5 * fit - logDet - 0.5 * Double(m) * log(2 * .pi)
        return ll.isFinite ? ll : nil
    }

    /// The posterior mean and variance of f at the grid's nodes (step 3).
    static func posterior(_ d: BeaconData, theta: (Double, Double, Double), origin: Point, cell: Double, nx: Int, ny: Int) throws -> ([Float], [Float]) {
        guard let opaque = factored(d, theta: theta) else { throw CalibrationError("a beacon's survey covariance is not positive definite") }
        let k = UnsafeMutablePointer<gsl_matrix>(opaque)
        defer { gsl_matrix_free(k) }
        let m = d.x.count
        guard let y = gsl_vector_alloc(m), let alpha = gsl_vector_alloc(m) else { throw CalibrationError("cannot allocate the radio map") }
        defer { gsl_vector_free(y); gsl_vector_free(alpha) }
        for i in 0..<m { gsl_vector_set(y, i, d.y[i]) }
        guard gsl_linalg_cholesky_solve(k, y, alpha) == GSL_SUCCESS else { throw CalibrationError("a beacon's survey cannot be solved") }
        // L, row-major, for the forward substitutions.
        var lower = [Double](repeating: 0, count: m * m)
        for i in 0..<m { for j in 0...i { lower[i * m + j] = gsl_matrix_get(k, i, j) } }
        let a = (0..<m).map { gsl_vector_get(alpha, $0) }
        let (l, sf, _) = theta
        let inv2l2 = 1 / (2 * l * l), sf2 = sf * sf
        var mean = [Float](repeating: 0, count: nx * ny), variance = [Float](repeating: Float(sf2), count: nx * ny)
        var kg = [Double](repeating: 0, count: m)
        for j in 0..<ny {
            for i in 0..<nx {
                let gx = origin.x + Double(i) * cell, gy = origin.y + Double(j) * cell
                var mu = 0.0
                for s in 0..<m {
                    let dx = gx - d.x[s].x, dy = gy - d.x[s].y
                    kg[s] = sf2 * exp(-(dx * dx + dy * dy) * inv2l2)
                    mu += kg[s] * a[s]
                }
                // v = L⁻¹ k_g; var = σ_f² − |v|².
                var explained = 0.0
                for r in 0..<m {
                    var v = kg[r]
                    for c in 0..<r { v -= lower[r * m + c] * kg[c] }
                    v /= lower[r * m + r]
                    kg[r] = v
                    explained += v * v
                }
                mean[j * nx + i] = Float(mu)
                variance[j * nx + i] = Float(max(sf2 - explained, 0))
            }
        }
        return (mean, variance)
    }
}

/// One surveyed spot of a radio map's survey (truth within ``RadioMapFit/spotSize`` of each other): where it is, how many
/// scan windows were made there, and per beacon heard there the mean residual from the fitted law and the windows that
/// heard it.
public struct SurveyedSpot: Sendable, Hashable {
    public struct Beacon: Sendable, Hashable {
        /// The mean of the windows' residuals from the fitted law, dB.
        public var residual: Double
        /// Windows at the spot that heard the beacon.
        public var windows: Int
    }
    public var position: Point
    public var windows: Int
    /// By the venue's beacon index.
    public var beacons: [Int: Beacon]
}

extension RadioMapFit {
    /// The radio map of recording `r` (with ground truth) under `fit`, the radio model calibrated on it.
    public init(_ r: Recording, fit: RadioFit) throws {
        var bare = fit
        bare.radioMap = nil
        let venue = bare.applied(to: r.venue, readings: r.rssi).venue
        try self.init(epochs: EpochBuilder(venue: venue).epochs(r).epochs, venue: venue)
    }
}

extension RadioMapFile {
    /// `fit`'s map for a venue with these beacons (its order), with each beacon's hyperparameters.
    public init(_ fit: RadioMapFit, beaconIDs: [String]) {
        self.init(fit.map, beaconIDs: beaconIDs, spots: fit.spots) { b in
            fit.beacons[b].map { ($0.lengthScale, $0.signalSigma, $0.noiseSigma) }
        }
        func round(_ x: Double) -> Double { (x * 100).rounded() / 100 }
        survey = fit.survey.map { spot in
            var heard: [String: Spot.Heard] = [:]
            for (b, h) in spot.beacons where b < beaconIDs.count {
                heard[beaconIDs[b]] = .init(residual: round(h.residual), share: round(Double(h.windows) / Double(max(spot.windows, 1))))
            }
            return Spot(x: round(spot.position.x), y: round(spot.position.y), windows: spot.windows, beacons: heard)
        }
    }
}
