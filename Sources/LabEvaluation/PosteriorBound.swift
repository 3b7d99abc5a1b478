import Foundation
import LabCore
import LabEstimators
import LabStore

/// The posterior Cramér–Rao bound of a walk (Tichavský, Muravchik & Nehorai, IEEE TSP 1998): the least mean
/// squared position error any tracker can reach, epoch by epoch, given the readings each epoch received and the
/// walk's motion. With Gaussian motion the recursion over the information matrix J of the state is
///
///     J_{k+1} = (Q_k + F_k J_k⁻¹ F_kᵀ)⁻¹ + E[J_Z(k+1)]
///
/// where J_Z is the readings' information at the true position (each reading carrying the per-reading
/// information of the condition's noise) and the bearings'; the expectation is taken at the true trajectory. The
/// bound of epoch k is the trace of the position block of J_k⁻¹. The state is
///
/// - (x, y, vx, vy, δ): position, velocity (constant velocity with white-noise acceleration, the trackers'
///   ``MotionModel``) and the phone's offset δ, a random walk. The prior: the position spread over the venue
///   (variance width²/12 and height²/12), the speed N(0, ``MotionModel/startSpeedSigma``²), δ known (ideal) or
///   N(0, σ_δ²) with σ_δ the device-offset spread (field);
/// - with a step detector (the walk reports steps): the compass bias b (degrees, a random walk) and the
///   step-length scale error s (static), with the priors the walk was made with (the scenario's ``PDRModel``).
///   The walker then moves by the reported steps, Σ ℓⱼ(1 − s)·u(θⱼ − b), at their stated accuracies
///   (``MotionModel/stepSensitivity(_:)``);
/// - with a beacon spread (field): each beacon's ΔP0, static all walk long, prior N(0, σ_b²). A reading of beacon i
///   then informs (x, y, δ, ΔP0ᵢ) together, so many scans of one beacon cannot beat its own bias, though a walk
///   that hears it from many places learns part of it.
///
/// Body shadowing is left out (a step in the bearing, no derivative): this is the bound of a tracker told the
/// walker's heading, which stays a bound for one that is not. Efficiency = RMSE / √(mean PCRB).
public struct PosteriorBound: Sendable {
    /// The per-reading information this bound accumulates (its beacon spread is carried as states instead).
    public let bound: CramerRaoBound
    /// The trackers' motion model, which the bound is for.
    public let motion: MotionModel
    /// σ of δ before the first scan, dB; nil when δ is known.
    public let offsetSigma: Double?
    /// σ of each beacon's ΔP0 before the walk, dB (0: every P0 known, no ΔP0 states).
    public let beaconSpread: Double
    /// The step detector's errors before the walk, for walks that report steps: σ of the compass bias (degrees),
    /// its drift (degrees per √s) and σ of the step-length scale error.
    public let stepBiasSigma: Double, stepBiasDrift: Double, stepScaleSigma: Double

    /// The default σ of δ before the first scan when the bound's offset is unknown, dB (the field condition's
    /// device-offset spread, ``FieldImpairments/realistic``).
    public static let defaultOffsetSigma = FieldImpairments.realistic.deviceOffsetSigma

    /// - Parameter bound: the readings' information per scan; its beacon spread becomes ΔP0 states.
    /// - Parameter offsetSigma: σ of δ before the first scan when `bound` does not know the offset, dB (default
    ///   ``defaultOffsetSigma``); with the offset known, δ is known.
    /// - Parameter pdr: the step detector the walks were made with (its bias, drift and scale priors); nil: the
    ///   motion model's allowances (``MotionModel/stepBiasSigma``, …).
    public init(bound: CramerRaoBound, offsetSigma: Double? = nil, motion: MotionModel = MotionModel(), pdr: PDRModel? = nil) {
        self.bound = bound.withoutBeaconSpread; self.motion = motion
        beaconSpread = bound.beaconSpread
        self.offsetSigma = bound.offset == .unknown ? max(offsetSigma ?? PosteriorBound.defaultOffsetSigma, 0.1) : nil
        // Floored so that a detector without bias or scale error leaves J invertible (0.01°, 0.1%).
        stepBiasSigma = max(pdr?.biasSigma ?? motion.stepBiasSigma, 0.01)
        stepBiasDrift = pdr?.biasDrift ?? motion.stepBiasDrift
        stepScaleSigma = max(pdr?.scaleSigma ?? motion.stepScaleError, 1e-3)
    }

    /// The bound a condition's walks are judged against: the snapshot bound's per-reading information and beacon
    /// spread, and the scenario's step detector.
    public static func judging(_ condition: SimulationCondition, venue: Venue, impairments: FieldImpairments, pdr: PDRModel? = nil) -> PosteriorBound {
        let b = CramerRaoBound.judging(condition, venue: venue, impairments: impairments)
        return PosteriorBound(bound: b, offsetSigma: impairments.deviceOffsetSigma, pdr: pdr)
    }

    /// The bound on the squared position error at each epoch of one walk, m², in order.
    /// - Parameters:
    ///   - epochs: the walk's epochs (truth, time) with the beacons each received (index, independent readings)
    ///     and its bearings (landmark, σθ in degrees).
    ///   - steps: per epoch, the steps the phone reported since the previous one, when it has a step detector:
    ///     then the walker moves by the step model, with the compass bias and the length scale as states.
    public func bounds(walk epochs: [(truth: Point, t: Double, beacons: [(beacon: Int, readings: Double)], bearings: [(landmark: Point, sigmaDegrees: Double)])],
                       steps: [[StepReading]?]? = nil) -> [Double] {
        guard !epochs.isEmpty else { return [] }
        let known = offsetSigma == nil
        // State layout: the motion model's five, then b and s with steps, then one ΔP0 per beacon with a spread.
        let stepState = steps != nil ? MotionModel.stateCount : nil
        let spreadBase = MotionModel.stateCount + (stepState != nil ? 2 : 0)
        let spreads = beaconSpread > 0 ? bound.venue.beaconCount : 0
        let n = spreadBase + spreads
        let b = bound.venue.bounds
        let v = motion.startSpeedSigma * motion.startSpeedSigma
        var J = [Double](repeating: 0, count: n * n)
        J[0] = 12 / max(b.width * b.width, 1e-6); J[n + 1] = 12 / max(b.height * b.height, 1e-6)
        J[2 * n + 2] = 1 / v; J[3 * n + 3] = 1 / v
        // δ known: its row and column stay decoupled (unit information, no cross terms, no drift), which leaves the
        // position block what it would be without δ in the state.
        J[4 * n + 4] = known ? 1 : 1 / (offsetSigma! * offsetSigma!)
        if let i = stepState {
            J[i * n + i] = 1 / (stepBiasSigma * stepBiasSigma)
            J[(i + 1) * n + i + 1] = 1 / (stepScaleSigma * stepScaleSigma)
        }
        for i in spreadBase..<n { J[i * n + i] = 1 / (beaconSpread * beaconSpread) }
        var P: [Double] = []
        var out: [Double] = []
        out.reserveCapacity(epochs.count)
        for (k, e) in epochs.enumerated() {
            if k > 0 {
                guard !P.isEmpty else { out.append(.infinity); continue }
                let dt = max(e.t - epochs[k - 1].t, 0)
                if let reported = steps?[k] {
                    motion.predict(covariance: &P, steps: reported, dt: dt, offsetMoves: !known, n: n,
                                   detector: stepState.map { ($0, stepBiasDrift) })
                } else {
                    motion.predict(covariance: &P, dt: dt, offsetMoves: !known, n: n)
                    if let i = stepState { P[i * n + i] += stepBiasDrift * stepBiasDrift * dt }   // the bias drifts all the same
                }
                guard let information = SmallMatrix.inverse(P, n: n) else { out.append(.infinity); P = []; continue }
                J = information
            }
            addInformation(&J, n: n, at: e.truth, beacons: e.beacons, bearings: e.bearings, offsetKnown: known,
                           spreadBase: spreads > 0 ? spreadBase : nil)
            guard let covariance = SmallMatrix.inverse(J, n: n) else { out.append(.infinity); P = []; continue }
            P = covariance
            out.append(covariance[0] + covariance[n + 1])
        }
        return out
    }

    /// J += one epoch's information: its readings' about (x, y, δ) — and each beacon's ΔP0 when `spreadBase` says
    /// where those states start — and its bearings' about (x, y), at `p`.
    private func addInformation(_ J: inout [Double], n: Int, at p: Point, beacons: [(beacon: Int, readings: Double)],
                                bearings: [(landmark: Point, sigmaDegrees: Double)], offsetKnown: Bool, spreadBase: Int?) {
        func add(_ z: OffsetFisherInformation, beacon: Int?) {
            J[0] += z.position.xx; J[1] += z.position.xy; J[n] += z.position.xy; J[n + 1] += z.position.yy
            if !offsetKnown {
                J[4] += z.crossX; J[4 * n] += z.crossX; J[n + 4] += z.crossY; J[4 * n + 1] += z.crossY
                J[4 * n + 4] += z.offset
            }
            if let beacon, let base = spreadBase {
                let q = base + beacon
                J[q * n + q] += z.offset
                J[q * n] += z.crossX; J[q] += z.crossX; J[q * n + 1] += z.crossY; J[n + q] += z.crossY
                if !offsetKnown { J[q * n + 4] += z.offset; J[4 * n + q] += z.offset }
            }
        }
        if spreadBase != nil {
            for beacon in beacons { add(bound.offsetInformation(at: p, beacons: [beacon]), beacon: beacon.beacon) }
        } else {
            add(bound.offsetInformation(at: p, beacons: beacons), beacon: nil)
        }
        var g = OffsetFisherInformation()
        g.position = bound.information(at: p, beacons: [], bearings: bearings)
        add(g, beacon: nil)
    }
}

extension PosteriorBound {
    /// The most work one walk's bound may take: scan windows × states³ (each window inverts the states' n×n
    /// information twice; with a beacon spread every beacon's ΔP0 is a state): about 40 s per walk on this project's
    /// 2-core machine, where 400 beacons over 32 windows (2.1·10⁹) took 8 s (docs/speed.md, "Bounded work"). 1,000
    /// beacons allow 9 windows, 400 about 150, 100 about 8,600.
    public static let maximumWork = 1e10

    /// The states the bound of a walk of `s` carries under `condition`.
    static func states(_ s: Scenario, condition: SimulationCondition) -> Int {
        let spread = condition.impairments(s.radio).beaconP0Sigma > 0
        return MotionModel.stateCount + (s.pdr != nil ? 2 : 0) + (spread ? s.beacons.count : 0)
    }

    /// Each walk of `s` whose bound under one of `conditions` would take more than ``maximumWork``, with the field path
    /// and what would bring it within.
    public static func workProblems(_ s: Scenario, conditions: [SimulationCondition]) -> [(field: String, message: String)] {
        var out: [(field: String, message: String)] = []
        for condition in conditions {
            let n = Double(states(s, condition: condition))
            for (i, walk) in s.walks.enumerated() {
                let windows = WorkBudget.windows(of: walk, scanWindow: s.radio.scanWindow)
                let work = windows * n * n * n
                guard work > maximumWork else { continue }
                let most = (maximumWork / (n * n * n)).rounded(.down)
                out.append((field: "walks[\(i)]", message: "walk '\(walk.name)' under the \(condition.rawValue) condition: its posterior bound carries \(Int(n)) states (one per beacon with the beacon spread) over up to \(Format.number(windows)) scan windows, \(Format.number(work)) operations; the budget is \(Format.number(maximumWork)) (at most \(Format.number(most)) windows with \(s.beacons.count) beacons: a shorter walk, fewer beacons, or the ideal condition)"))
            }
        }
        return out
    }

    /// Throws ``workProblems(_:conditions:)`` as one error naming the scenario.
    public static func checkWork(_ s: Scenario, conditions: [SimulationCondition]) throws {
        let p = workProblems(s, conditions: conditions)
        if !p.isEmpty { throw InputErrors(p.map { InputError(file: s.name, field: $0.field, $0.message) }) }
    }
}
