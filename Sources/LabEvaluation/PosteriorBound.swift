import Foundation
import LabCore
import LabEstimators
import LabStore

/// The posterior Cramér–Rao bound of a walk (Tichavský, Muravchik & Nehorai, IEEE TSP 1998): the least mean
/// squared position error any tracker can reach, epoch by epoch, given the readings each epoch received and the
/// trackers' ``MotionModel`` (constant velocity with white-noise acceleration q, the phone's offset δ a random
/// walk). With linear Gaussian motion the recursion over the information matrix J of the
/// state (x, y, vx, vy, δ) is
///
///     J_{k+1} = (Q_k + F_k J_k⁻¹ F_kᵀ)⁻¹ + E[J_Z(k+1)]
///
/// where J_Z is the readings' information about (x, y, δ) at the true position (``OffsetFisherInformation``:
/// kᵢ independent readings of beacon i, each carrying the per-reading information of the condition's noise) and
/// bearings' about (x, y); the expectation is taken at the true trajectory. The bound of epoch k is the trace of
/// the position block of J_k⁻¹. J₀ is the prior: the position spread over the venue (variance width²/12 and
/// height²/12), the speed N(0, ``MotionModel/startSpeedSigma``²), and δ known (ideal condition) or N(0, σ_δ²) with σ_δ the
/// device-offset spread (field). When the phone reports steps, the walker moves by them instead of by constant
/// velocity (the step model's noise as Q). Efficiency = RMSE / √(mean PCRB).
///
/// The beacon spread is left out. Each beacon's ΔP0 is the same all walk long, so counting it as fresh noise at
/// every scan would not give a bound (the errors it causes are correlated across scans). Without it this is the
/// bound of a tracker told every beacon's true P0: valid for trackers that are not, but looser. The tight form
/// would carry each beacon's ΔP0 in the state as a static entry with prior σ_b².
public struct PosteriorBound: Sendable {
    /// The per-scan information this bound accumulates: the given bound without its beacon spread.
    public let bound: CramerRaoBound
    /// The trackers' motion model, which the bound is for.
    public let motion: MotionModel
    /// σ of δ before the first scan, dB; nil when δ is known.
    public let offsetSigma: Double?

    /// The default σ of δ before the first scan when the bound's offset is unknown, dB (the field condition's
    /// device-offset spread, ``FieldImpairments/realistic``).
    public static let defaultOffsetSigma = FieldImpairments.realistic.deviceOffsetSigma

    /// - Parameter bound: the readings' information per scan. Its beacon spread is dropped (see the type's
    ///   documentation), so ``bound`` has none.
    /// - Parameter offsetSigma: σ of δ before the first scan when `bound` does not know the offset, dB (default
    ///   ``defaultOffsetSigma``); with the offset known, δ is known.
    public init(bound: CramerRaoBound, offsetSigma: Double? = nil, motion: MotionModel = MotionModel()) {
        self.bound = bound.withoutBeaconSpread; self.motion = motion
        self.offsetSigma = bound.offset == .unknown ? max(offsetSigma ?? PosteriorBound.defaultOffsetSigma, 0.1) : nil
    }

    /// The bound a condition's walks are judged against: the snapshot bound's per-reading information, without
    /// its beacon spread.
    public static func judging(_ condition: SimulationCondition, venue: Venue, impairments: FieldImpairments) -> PosteriorBound {
        let b = CramerRaoBound.judging(condition, venue: venue, impairments: impairments)
        return PosteriorBound(bound: b, offsetSigma: impairments.deviceOffsetSigma)
    }

    /// The bound on the squared position error at each epoch of one walk, m², in order.
    /// - Parameters:
    ///   - epochs: the walk's epochs (truth, time) with the beacons each received (index, independent readings)
    ///     and its bearings (landmark, σθ in degrees).
    ///   - steps: per epoch, the steps the phone reported since the previous one, when it has a step detector:
    ///     then the walker moves by the step model (``MotionModel/predict(covariance:steps:dt:offsetMoves:)``,
    ///     with the compass bias and the length scale known: a bound for a tracker told them, so also one for
    ///     trackers that must estimate them).
    public func bounds(walk epochs: [(truth: Point, t: Double, beacons: [(beacon: Int, readings: Double)], bearings: [(landmark: Point, sigmaDegrees: Double)])],
                       steps: [[StepReading]?]? = nil) -> [Double] {
        let n = MotionModel.stateCount
        guard !epochs.isEmpty else { return [] }
        let b = bound.venue.bounds
        let v = motion.startSpeedSigma * motion.startSpeedSigma
        var prior = [Double](repeating: 0, count: n * n)
        prior[0] = 12 / max(b.width * b.width, 1e-6); prior[6] = 12 / max(b.height * b.height, 1e-6)
        prior[12] = 1 / v; prior[18] = 1 / v
        // δ known: its row and column stay decoupled (unit information, no cross terms, no drift), which leaves the
        // position block what it would be without δ in the state.
        let known = offsetSigma == nil
        prior[24] = known ? 1 : 1 / (offsetSigma! * offsetSigma!)
        var J = prior
        var out: [Double] = []
        out.reserveCapacity(epochs.count)
        for (k, e) in epochs.enumerated() {
            if k > 0 {
                let dt = max(e.t - epochs[k - 1].t, 0)
                guard var predicted = SmallMatrix.inverse(J, n: n) else { out.append(.infinity); continue }
                if let reported = steps?[k] {
                    motion.predict(covariance: &predicted, steps: reported, dt: dt, offsetMoves: !known)
                } else {
                    motion.predict(covariance: &predicted, dt: dt, offsetMoves: !known)
                }
                guard let information = SmallMatrix.inverse(predicted, n: n) else { out.append(.infinity); continue }
                J = information
            }
            let z = measurementInformation(at: e.truth, beacons: e.beacons, bearings: e.bearings)
            J[0] += z.position.xx; J[1] += z.position.xy; J[5] += z.position.xy; J[6] += z.position.yy
            if !known {
                J[4] += z.crossX; J[20] += z.crossX; J[9] += z.crossY; J[21] += z.crossY
                J[24] += z.offset
            }
            guard let covariance = SmallMatrix.inverse(J, n: n) else { out.append(.infinity); continue }
            out.append(covariance[0] + covariance[6])
        }
        return out
    }

    /// The information of one epoch's readings about (x, y, δ) and its bearings' about (x, y), at `p`.
    func measurementInformation(at p: Point, beacons: [(beacon: Int, readings: Double)], bearings: [(landmark: Point, sigmaDegrees: Double)]) -> OffsetFisherInformation {
        var g = bound.offsetInformation(at: p, beacons: beacons)
        g.position += bound.information(at: p, beacons: [], bearings: bearings)
        return g
    }
}
