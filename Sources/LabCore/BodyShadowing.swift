import Foundation

/// The walker's body between the phone and a beacon (docs/scenario-format.md, "radio.field"): the phone is held in front of the
/// walker, so a beacon whose bearing from the phone lies within ±``halfAngle`` of the direction behind the walker
/// reads ``loss`` dB weaker (Fet, Handte, Marrón, UbiComp 2013: 5–10 dB at 2.4 GHz).
///
/// The simulator applies it with the walker's true heading (``FieldImpairments``); estimators know its size, never
/// the heading itself. With the heading unknown (uniform), a beacon is shadowed with probability p = halfAngle/180:
/// the mean loss p·L is common to all beacons (it goes into the phone's offset) and the spread L²·p·(1 − p) is
/// part of the model error (``FieldImpairments/modelError``). An estimator that knows where the walker heads, up to σ
/// (the phone's steps), knows which beacons the body shadows (``Sector``): a shadowed beacon's mean is L·(1 − p)
/// below the unknown-heading model's, an unshadowed one's L·p above. The particle filter then takes the spread out of
/// the model error; the one-scan fix corrects the readings and keeps it.
public struct BodyShadowing: Sendable, Hashable, Codable {
    /// Loss when the body is in the line of sight, dB (≥ 0; 0: no body shadowing).
    public var loss: Double
    /// Half-width of the shadowed sector behind the walker, degrees, in [0, 180].
    public var halfAngle: Double

    public init(loss: Double, halfAngle: Double) { self.loss = loss; self.halfAngle = halfAngle }

    /// No body shadowing.
    public static let none = BodyShadowing(loss: 0, halfAngle: 60)

    public var isNone: Bool { loss <= 0 }

    /// The share of bearings the body shadows, p = halfAngle/180 (0 without a loss).
    public var share: Double { isNone ? 0 : min(max(halfAngle / 180, 0), 1) }

    /// The variance the body adds to a beacon's mean when the heading is unknown, L²·p·(1 − p), dB².
    public var unknownHeadingVariance: Double { let p = share; return loss * loss * p * (1 - p) }

    /// True when the body (walker heading `heading`, degrees) lies between the phone and a beacon whose bearing
    /// from the phone is `bearing`, degrees.
    @inlinable public func blocks(heading: Double, bearing: Double) -> Bool {
        loss > 0 && abs(Bearing.difference(bearing, heading + 180)) <= halfAngle
    }

    /// The shadowed sector for a heading known to ±`headingSigma` degrees: its edges blurred over ±2σ.
    public func sector(headingSigma: Double) -> Sector {
        let edge = 2 * max(headingSigma, 1)
        return Sector(inner: cos(max(halfAngle - edge, 0) * .pi / 180), outer: cos(min(halfAngle + edge, 180) * .pi / 180))
    }

    /// The sector behind a walker whose heading is known to some σ, in terms of c, the cosine of a beacon's angle
    /// from the direction behind the walker (c = (phone − beacon)·heading / horizontal distance): no share beyond
    /// the blurred edge, all of it inside, linear in c between.
    public struct Sector: Sendable, Hashable {
        /// cos of the inner and outer edges of the blur.
        public let inner: Double, outer: Double
        /// The probability that the body shadows a beacon at cosine `c` from the walker's back.
        @inlinable public func probability(cosineFromBack c: Double) -> Double {
            inner > outer ? min(max((c - outer) / (inner - outer), 0), 1) : (c >= inner ? 1 : 0)
        }
    }

    /// How much weaker than the unknown-heading model says a beacon reads when the body shadows it with probability
    /// `q`: L·(q − p), dB (negative: stronger).
    @inlinable public func extraLoss(probability q: Double) -> Double { loss * (q - share) }
}
