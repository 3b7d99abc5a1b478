import Foundation

/// What real phones and venues add to the ideal radio model (docs/scenario-format.md, "radio.field"). The simulator applies
/// these in the **field** condition only; estimators are never told any of the drawn values.
///
/// Per advertisement of beacon i heard by a phone at p walking with heading h:
///
///     RSSI = P0_i + ΔP0_i + δ − 10·n·log10(d) − Σ walls − body(h, bearing to i) + X + O
///
/// - δ, the **device offset** (dB): `deviceOffset` + N(0, `deviceOffsetSigma`²), drawn once per phone — per walk,
///   and once per static-grid pass.
/// - ΔP0_i, the **beacon spread** (dB): N(0, `beaconP0Sigma`²), drawn once per beacon (per scenario and seed).
/// - O, **multipath outliers**: with probability `outlierRate` an advertisement gets an extra N(0, `outlierScale`²)
///   (Tukey's contaminated normal); otherwise 0.
/// - body(h, b), **body shadowing**: `bodyLoss` dB when the beacon's bearing b from the phone lies within
///   ±`bodyHalfAngle` of the direction behind the walker (h + 180°): the phone is held in front of the body.
///   Static test points draw a uniform heading per point.
///
/// Censoring at the receiver's sensitivity applies after all of these, as in the ideal model.
public struct FieldImpairments: Sendable, Hashable, Codable {
    /// Mean device offset, dB (a phone that reads weaker than the calibration phone has a negative offset).
    public var deviceOffset: Double
    /// Spread of the device offset across phones, dB.
    public var deviceOffsetSigma: Double
    /// Spread of each beacon's true P0 around its configured one, dB.
    public var beaconP0Sigma: Double
    /// Probability that one advertisement is a multipath outlier, in [0, 1).
    public var outlierRate: Double
    /// Standard deviation of an outlier's extra error, dB.
    public var outlierScale: Double
    /// Loss when the walker's body is between phone and beacon, dB.
    public var bodyLoss: Double
    /// Half-width of the shadowed sector behind the walker, degrees, in [0, 180].
    public var bodyHalfAngle: Double

    public init(deviceOffset: Double = 0, deviceOffsetSigma: Double = 0, beaconP0Sigma: Double = 0, outlierRate: Double = 0,
                outlierScale: Double = 0, bodyLoss: Double = 0, bodyHalfAngle: Double = 60) {
        self.deviceOffset = deviceOffset; self.deviceOffsetSigma = deviceOffsetSigma; self.beaconP0Sigma = beaconP0Sigma
        self.outlierRate = outlierRate; self.outlierScale = outlierScale; self.bodyLoss = bodyLoss; self.bodyHalfAngle = bodyHalfAngle
    }

    /// No impairment: the ideal model.
    public static let none = FieldImpairments()

    /// The field condition's defaults, each from a source (docs/scenario-format.md lists them):
    /// device offset σ 8 dB (phone models differ by up to 17–18 dB on the same spots in a public three-phone
    /// dataset); beacon spread σ 2 dB (units of one model differ by a few dB from their nominal measured
    /// power); 5% outliers with σ 10 dB (multipath); 6 dB body loss over ±60° behind the walker (5–10 dB
    /// at 2.4 GHz when the body blocks the line of sight).
    public static let realistic = FieldImpairments(deviceOffsetSigma: 8, beaconP0Sigma: 2, outlierRate: 0.05, outlierScale: 10,
                                                   bodyLoss: 6, bodyHalfAngle: 60)

    public var isNone: Bool { self == .none }

    /// The part of these impairments that a scan window's averaging does not remove, as a model error σ_m (dB,
    /// ``RadioModel/modelError``): √(σ_b² + L²·p·(1 − p)).
    /// - The beacon spread σ_b is drawn once per beacon and stays all walk long.
    /// - The body's loss L falls on the beacons within the shadowed sector, a share p = half-angle / 180° of the
    ///   bearings, and stays while the heading does (a window). Its mean p·L is common to every beacon and goes
    ///   into the device offset; what differs between beacons is its spread, L²·p·(1 − p).
    /// The device offset is common to all beacons (an unknown of its own, not a model error); outliers strike
    /// single advertisements, so the window's average shrinks them like the shadowing.
    public var modelError: Double { (beaconP0Sigma * beaconP0Sigma + body.unknownHeadingVariance).squareRoot() }

    /// The body shadowing these impairments apply: what a tracker that knows the walker's heading allows for.
    public var body: BodyShadowing { BodyShadowing(loss: bodyLoss, halfAngle: bodyHalfAngle) }
}

/// The two conditions every scenario runs in.
public enum SimulationCondition: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// The radio model exactly as the estimators know it.
    case ideal
    /// The scenario's ``FieldImpairments`` (``FieldImpairments/realistic`` unless it sets its own).
    case field

    public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }

    /// The label results carry for a scenario in this condition: the name itself when ideal (so ideal results
    /// read as they always have), `name@field` otherwise.
    public func label(_ scenario: String) -> String { self == .ideal ? scenario : "\(scenario)@\(rawValue)" }

    /// The impairments in force for `radio`: its field impairments in the field condition, none when ideal.
    public func impairments(_ radio: RadioModel) -> FieldImpairments { self == .field ? radio.field : .none }

    /// The scenario name inside a label made by ``label(_:)`` (`museum-gallery@field` → `museum-gallery`).
    public static func scenarioName(inLabel label: String) -> String {
        for c in allCases where c != .ideal && label.hasSuffix("@" + c.rawValue) { return String(label.dropLast(c.rawValue.count + 1)) }
        return label
    }
}
