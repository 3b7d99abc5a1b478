import LabCore

/// How the lab's reports write a figure: one home for each kind.
public enum Figures {
    /// Metres to two decimals, or a dash when there is none (nil, infinite or NaN).
    public static func metres(_ v: Double?) -> String { v.flatMap { $0.isFinite ? Format.fixed($0, 2) : nil } ?? "—" }

    /// Metres to two decimals with the unit, or "no fix" for an unbounded figure (an error quantile where too many
    /// points get no fix).
    public static func metresOrNoFix(_ v: Double) -> String { v.isFinite ? Format.metres(v) + " m" : "no fix" }

    /// A share in [0, 1] as a percentage with `digits` decimals, or a dash when there is none.
    public static func percent(_ v: Double?, digits: Int) -> String { v.map { Format.fixed($0 * 100, digits) + "%" } ?? "—" }
}
