import LabCore

extension YAMLField {
    func positive() -> Double? {
        guard let v = double() else { return nil }
        if v <= 0 { fail("expected a positive number, found \(v)"); return nil }
        return v
    }
    /// A number in `range`, else a message naming it (with `unit`).
    func within(_ range: ClosedRange<Double>, _ unit: String) -> Double? {
        guard let v = double() else { return nil }
        if let problem = Format.outside(range, v, unit: unit) {
            fail(problem)
            return nil
        }
        return v
    }
    func nonNegative() -> Double? {
        guard let v = double() else { return nil }
        if v < 0 { fail("expected a number ≥ 0, found \(v)"); return nil }
        return v
    }
    /// A number in [0, limit]; `what` names the limit in the message.
    func atMost(_ limit: Double, _ what: String) -> Double? {
        guard let v = nonNegative() else { return nil }
        if v > limit { fail("expected at most \(Format.number(limit)) (\(what)), found \(Format.number(v))"); return nil }
        return v
    }
    func uint16() -> Int? {
        guard let v = int() else { return nil }
        if v < 0 || v > 65535 { fail("expected a whole number in 0…65535, found \(v)"); return nil }
        return v
    }
}
