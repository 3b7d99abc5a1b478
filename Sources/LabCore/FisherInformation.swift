import Foundation

/// Fisher information about a 2-D position (x, y), metres⁻², and the Cramér–Rao bound it gives.
/// The one home of this maths: the per-epoch bound, the √CRLB map, the planner's coverage model and the
/// bearing estimator's covariance all add their terms here.
///
/// RSSI (Patwari et al., IEEE TSP 2003; P0 and n known), k independent readings of a beacon at c:
///
///     F += k · b · (p − c)(p − c)ᵀ / d⁴,   b = (10·n / (σ·ln 10))²,   d = 3-D distance
///
/// Bearing toward a landmark at distance d along the unit line of sight u, heading σθ in radians:
///
///     F += u⊥ u⊥ᵀ / (σθ² · d²),   u⊥ ⟂ u
///
/// The bound: E‖p̂ − p‖² ≥ trace(F⁻¹).
///
/// Edge cases, stated once: σ below ``minimumSigmaDB`` counts as that floor (zero noise would mean
/// infinite information); distances below ``minimumDistance`` count as that floor (the path-loss law's
/// own floor, ``RadioModel/meanRSSI(distance:p0:)``); a matrix whose determinant is below
/// ``singularity`` relative to the product of its diagonal gives no 2-D fix: the bound is +∞.
public struct FisherInformation: Sendable, Hashable {
    public var xx: Double
    public var xy: Double
    public var yy: Double

    public init(xx: Double = 0, xy: Double = 0, yy: Double = 0) { self.xx = xx; self.xy = xy; self.yy = yy }

    public static let zero = FisherInformation()
    /// Smallest shadowing σ used, dB.
    public static let minimumSigmaDB = 1e-6
    /// Smallest beacon–phone or landmark–phone distance used, metres.
    public static let minimumDistance = 0.01
    /// Relative determinant below which the information is singular.
    public static let singularity = 1e-12

    /// b = (10·n / (σ·ln 10))²: the information per reading per unit of (p − c)(p − c)ᵀ / d⁴.
    @inlinable public static func rssiScale(exponent n: Double, sigma: Double) -> Double {
        let s = Swift.max(sigma, minimumSigmaDB)
        let b = 10 * n / (s * log(10))
        return b * b
    }

    /// The information of `readings` independent RSSI readings of a beacon at offset (dx, dy, dz) from the
    /// phone (phone minus beacon), with `scale` = ``rssiScale(exponent:sigma:)``.
    @inlinable public static func rssi(dx: Double, dy: Double, dz: Double, readings: Double, scale: Double) -> FisherInformation {
        let floor = minimumDistance * minimumDistance
        let d2 = Swift.max(dx * dx + dy * dy + dz * dz, floor)
        let w = scale * readings / (d2 * d2)
        return FisherInformation(xx: w * dx * dx, xy: w * dx * dy, yy: w * dy * dy)
    }

    /// The information of one bearing along the unit line of sight `u`, at distance `d`, with σθ in radians.
    @inlinable public static func bearing(lineOfSight u: Point, distance d: Double, sigmaRadians: Double) -> FisherInformation {
        let dd = Swift.max(d, minimumDistance)
        let w = 1 / (sigmaRadians * sigmaRadians * dd * dd)
        // u⊥ = (u.y, −u.x)
        return FisherInformation(xx: w * u.y * u.y, xy: -w * u.x * u.y, yy: w * u.x * u.x)
    }

    @inlinable public static func + (a: FisherInformation, b: FisherInformation) -> FisherInformation {
        FisherInformation(xx: a.xx + b.xx, xy: a.xy + b.xy, yy: a.yy + b.yy)
    }
    @inlinable public static func += (a: inout FisherInformation, b: FisherInformation) {
        a.xx += b.xx; a.xy += b.xy; a.yy += b.yy
    }
    @inlinable public static func -= (a: inout FisherInformation, b: FisherInformation) {
        a.xx -= b.xx; a.xy -= b.xy; a.yy -= b.yy
    }

    @inlinable public var determinant: Double { xx * yy - xy * xy }

    /// False when the matrix is (numerically) singular.
    @inlinable public var isInvertible: Bool {
        determinant > FisherInformation.singularity * Swift.max(xx * yy, 1e-300)
    }

    /// F⁻¹, the bound on the error covariance; nil when singular.
    @inlinable public var inverse: Covariance2? {
        guard isInvertible else { return nil }
        let det = determinant
        return Covariance2(xx: yy / det, xy: -xy / det, yy: xx / det)
    }

    /// trace(F⁻¹), m²: the bound on the mean squared horizontal error; +∞ when singular.
    @inlinable public var traceOfInverse: Double {
        guard isInvertible else { return .infinity }
        return (xx + yy) / determinant
    }
}

/// A 2-D position covariance, m².
public struct Covariance2: Sendable, Hashable, Codable {
    public var xx: Double
    public var xy: Double
    public var yy: Double
    public init(xx: Double, xy: Double, yy: Double) { self.xx = xx; self.xy = xy; self.yy = yy }

    /// True when this is a covariance matrix: finite, variances ≥ 0 and xy² ≤ xx·yy (up to the rounding of nine
    /// significant digits, as the results file writes them). The results file keeps no other.
    @inlinable public var isCovarianceMatrix: Bool {
        xx.isFinite && xy.isFinite && yy.isFinite && xx >= 0 && yy >= 0 && xy * xy <= xx * yy * (1 + 1e-6) + 1e-12
    }

    /// k·C: the same ellipses' shape, each axis √k times as long.
    @inlinable public func scaled(by k: Double) -> Covariance2 { Covariance2(xx: xx * k, xy: xy * k, yy: yy * k) }

    /// C + v vᵀ/d: the ellipses stretched along v to take in an offset v from the centre (d = 1: a shift's own
    /// spread added; d = χ²: v brought onto the ellipse of that level).
    @inlinable public func adding(outer v: Point, over d: Double = 1) -> Covariance2 {
        Covariance2(xx: xx + v.x * v.x / d, xy: xy + v.x * v.y / d, yy: yy + v.y * v.y / d)
    }

    /// DRMS = √(trace C), metres: the uncertainty radius every estimator reports.
    @inlinable public var drms: Double { (xx + yy).squareRoot() }

    /// χ² with 2 degrees of freedom at `level`, −2 ln(1 − level): the squared Mahalanobis radius of a 2-D
    /// Gaussian's `level` ellipse (5.991 at 95%).
    public static func chiSquare2(_ level: Double) -> Double { -2 * log(1 - level) }

    /// The eigenvalues (major ≥ minor ≥ 0) and the unit vector of the major axis (x east, y north), pointing east (north
    /// when it points neither way), east (1, 0) when C is isotropic: the direction at ½·atan2(2xy, xx − yy), found without
    /// trigonometry as the eigenvector (λ − yy, xy) or (xy, λ − xx), whichever has no cancellation.
    public var principalAxes: (major: Double, minor: Double, majorAxis: Point) {
        let mean = (xx + yy) / 2, half = ((xx - yy) * (xx - yy) / 4 + xy * xy).squareRoot()
        let major = mean + half, minor = max(mean - half, 0)
        var v = xx >= yy ? Point(major - yy, xy) : Point(xy, major - xx)
        let n = v.length
        guard n > 0, n.isFinite else { return (major, minor, Point(1, 0)) }
        v = v / n
        if v.x < 0 || (v.x == 0 && v.y < 0) { v = Point(-v.x, -v.y) }
        return (major, minor, v)
    }

    /// The semi-axes of the ellipse eᵀ C⁻¹ e = `chiSquare` (√(χ²·λ), major ≥ minor) and the unit vector of the major
    /// axis; nil unless C is finite with variances ≥ 0.
    public func ellipse(chiSquare k2: Double) -> (semiMajor: Double, semiMinor: Double, majorAxis: Point)? {
        guard xx.isFinite, yy.isFinite, xy.isFinite, xx >= 0, yy >= 0 else { return nil }
        let (large, small, u) = principalAxes
        return ((k2 * large).squareRoot(), (k2 * small).squareRoot(), u)
    }

    /// The lower Cholesky factor L of C (C = L·Lᵀ) as (l00, l10, l11): L·(z₀, z₁) of two standard normal draws has
    /// covariance C. l11² is at least `floor`, so a singular C still gives a factor; l10 is 0 when xx is.
    public func choleskyFactor(floor: Double = 0) -> (l00: Double, l10: Double, l11: Double) {
        let l00 = max(xx, 0).squareRoot(), l10 = l00 > 0 ? xy / l00 : 0
        return (l00, l10, max(yy - l10 * l10, floor).squareRoot())
    }

    /// eᵀ C⁻¹ e, the squared Mahalanobis distance of the offset `e`; nil when C is not positive definite.
    @inlinable public func mahalanobisSquared(_ e: Point) -> Double? {
        let det = xx * yy - xy * xy
        guard det > 0, xx > 0, det.isFinite else { return nil }
        return (yy * e.x * e.x - 2 * xy * e.x * e.y + xx * e.y * e.y) / det
    }

    /// λ₁ uuᵀ + λ₂ vvᵀ: variance λ₁ along the unit vector `u` and λ₂ across it (v = u turned 90°).
    public init(along l1: Double, across l2: Double, axis u: Point) {
        self.init(xx: l1 * u.x * u.x + l2 * u.y * u.y, xy: (l1 - l2) * u.x * u.y, yy: l1 * u.y * u.y + l2 * u.x * u.x)
    }
}

/// Fisher information about (x, y, δ) — the position and the phone's unknown RSSI offset δ — from RSSI, and
/// the position bound with δ as a nuisance parameter (docs/scenario-format.md, "radio.field"):
///
///     mean RSSI_i = P0_i + δ − 10·n·log10 d_i
///     g_i = [ −a·(x − x_i)/d_i², −a·(y − y_i)/d_i², 1 ],   a = 10·n / ln 10
///     F = Σ k_i · J · g_i g_iᵀ      (J: information of one reading about its mean; 1/σ² for Gaussian noise)
///
/// Writing F = [[A, c], [cᵀ, s]], the position block of F⁻¹ is (A − c cᵀ / s)⁻¹: the information left for the
/// position once δ is estimated too. It is never larger than A, so the bound is never smaller than the
/// known-offset bound; with fewer than three beacons it is singular.
public struct OffsetFisherInformation: Sendable, Hashable {
    /// A: the information about (x, y) alone (as ``FisherInformation`` with the offset known).
    public var position = FisherInformation.zero
    /// c: the cross terms between (x, y) and δ.
    public var crossX = 0.0, crossY = 0.0
    /// s: the information about δ alone.
    public var offset = 0.0

    public init() {}

    /// Adds `readings` independent readings of a beacon at offset (dx, dy, dz) from the phone (phone minus
    /// beacon), path-loss exponent `n`, each reading carrying information `perReading` (1/σ² for N(0, σ²)).
    @inlinable public mutating func addRSSI(dx: Double, dy: Double, dz: Double, readings k: Double, exponent n: Double, perReading j: Double) {
        let floor = FisherInformation.minimumDistance * FisherInformation.minimumDistance
        let d2 = Swift.max(dx * dx + dy * dy + dz * dz, floor)
        let a = 10 * n / log(10)
        let gx = -a * dx / d2, gy = -a * dy / d2
        let w = k * j
        position += FisherInformation(xx: w * gx * gx, xy: w * gx * gy, yy: w * gy * gy)
        crossX += w * gx; crossY += w * gy
        offset += w
    }

    /// A − c cᵀ / s: what is left about the position with δ unknown; ``FisherInformation/zero`` (no 2-D information,
    /// an unbounded bound) where the subtraction cancels down to rounding. That is where the beacons heard leave the
    /// position and δ confounded, as two beacons at one spot, or every beacon in a line with the phone, do: A − c cᵀ / s
    /// is then singular, and what the subtraction leaves of A's entries (about 10⁻¹⁶ of them) is no information,
    /// though its own determinant may pass ``FisherInformation/isInvertible`` (and give a huge negative bound).
    /// So it must keep more than ``cancellation`` of A's diagonal, and a determinant beyond
    /// ``FisherInformation/singularity`` of A's diagonal product.
    @inlinable public var positionWithUnknownOffset: FisherInformation {
        guard offset > 0 else { return position }
        let left = FisherInformation(xx: position.xx - crossX * crossX / offset, xy: position.xy - crossX * crossY / offset,
                                     yy: position.yy - crossY * crossY / offset)
        guard left.xx > Self.cancellation * position.xx, left.yy > Self.cancellation * position.yy,
              left.determinant > FisherInformation.singularity * position.xx * position.yy else { return .zero }
        return left
    }

    /// The least share of A's diagonal that A − c cᵀ / s must keep to count as information rather than rounding.
    public static let cancellation = 1e-9
}

/// Per-reading Fisher information of location families of RSSI noise.
public enum NoiseInformation {
    /// The number of readings that `readings` independent readings of one beacon, each carrying `perReading`
    /// information J about their mean, are worth when the beacon's own level also differs from the model by a
    /// Gaussian ΔP0 ~ N(0, `spread`²) (the field's beacon spread) that the estimator does not know:
    ///
    ///     k' = k / (1 + k · J · σ_b²),   so that   k' · J = 1 / (1/(k·J) + σ_b²)
    ///
    /// For Gaussian readings this is exact: the readings' covariance is σ²I + σ_b²·11ᵀ, whose information about
    /// their common mean is 1/(σ²/k + σ_b²). For heavier-tailed readings it over-counts the information (Stam's
    /// inequality J(X + Y)⁻¹ ≥ J(X)⁻¹ + J(Y)⁻¹, in its data-processing form: R. Zamir, "A proof of the Fisher
    /// information inequality via a data processing argument", IEEE Trans. IT 44(3), 1998), so a bound built on it
    /// stays a lower bound. The spread must be Gaussian for that (any other spread of that σ carries more
    /// information than 1/σ_b²). However many readings arrive, a beacon is worth at most 1/(J·σ_b²) of them.
    /// `spread` ≤ 0 leaves `readings` as is.
    @inlinable public static func effectiveReadings(_ readings: Double, perReading j: Double, spread: Double) -> Double {
        guard spread > 0, readings > 0 else { return readings }
        return readings / (1 + readings * j * spread * spread)
    }

    /// J = ∫ (f′/f)² f for the contaminated normal f = (1 − ε)·N(0, σ²) + ε·N(0, σ² + s²) (outliers at rate ε with
    /// extra scale s), by Simpson's rule over ±12 standard deviations of the wider part. J = 1/σ² when ε = 0
    /// or s = 0; it falls toward (1 − ε)/σ² as the outliers grow wide. σ is floored at
    /// ``FisherInformation/minimumSigmaDB``.
    public static func contaminatedNormal(sigma: Double, outlierRate e: Double, outlierScale s: Double) -> Double {
        let s1 = Swift.max(sigma, FisherInformation.minimumSigmaDB)
        guard e > 0, s > 0 else { return 1 / (s1 * s1) }
        let s2 = (s1 * s1 + s * s).squareRoot()
        func pdf(_ x: Double, _ sd: Double) -> Double { exp(-0.5 * x * x / (sd * sd)) / (sd * (2 * Double.pi).squareRoot()) }
        let L = 12 * s2, steps = 4000
        let h = 2 * L / Double(steps)
        var sum = 0.0
        for i in 0...steps {
            let x = -L + Double(i) * h
            let f1 = pdf(x, s1), f2 = pdf(x, s2)
            let f = (1 - e) * f1 + e * f2
            let df = -(1 - e) * f1 * x / (s1 * s1) - e * f2 * x / (s2 * s2)
            let v = f > 1e-300 ? df * df / f : 0
            sum += v * (i == 0 || i == steps ? 1 : (i % 2 == 1 ? 4 : 2))
        }
        return sum * h / 3
    }
}
