import LabCore
import Yams

/// Writes scenario YAML with a new set of beacons, keeping every other field of the original file as it was
/// (comments are not kept: YAML trees do not carry them).
public enum ScenarioWriter {
    /// `kept`: the scenario's own beacons. A beacon at the place of its namesake there is written with the numbers it had
    /// (rounding them to centimetres would move beacons a tune did not move, and change their readings); a new place
    /// is written to the centimetre. Heights and P0 are never rounded.
    public static func yaml(replacingBeaconsIn original: String, file: String, with beacons: [Beacon], kept: [Beacon] = [],
                            note: String? = nil) throws -> String {
        guard var root = try Yams.compose(yaml: original), case .mapping(var top) = root else {
            throw InputError(file: file, "expected a scenario mapping")
        }
        let before = Dictionary(kept.map { ($0.id, $0.position) }, uniquingKeysWith: { a, _ in a })
        top["beacons"] = .sequence(Node.Sequence(beacons.map { node($0, unmoved: before[$0.id] == $0.position) }, .implicit, .block))
        if let note, let d = top["description"]?.string { top["description"] = Node("\(d) \(note)") }
        root = .mapping(top)
        var text = try Yams.serialize(node: root, width: 120, allowUnicode: true)
        if let note { text = "# \(note)\n" + text }
        return text
    }

    static func node(_ b: Beacon, unmoved: Bool) -> Node {
        func exact(_ v: Double) -> Node { Node(v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : "\(v)") }
        func num(_ v: Double) -> Node { unmoved ? exact(v) : Node(Format.fixed(v, 2)) }
        var pairs: [(Node, Node)] = [(Node("id"), Node(b.id))]
        if let u = b.uuid { pairs.append((Node("uuid"), Node(u))) }
        if let m = b.major { pairs.append((Node("major"), Node(String(m)))) }
        if let m = b.minor { pairs.append((Node("minor"), Node(String(m)))) }
        pairs.append((Node("position"), .sequence(Node.Sequence([num(b.position.x), num(b.position.y)], .implicit, .flow))))
        if let h = b.height { pairs.append((Node("height"), exact(h))) }
        if let p = b.p0 { pairs.append((Node("p0"), exact(p))) }
        return .mapping(Node.Mapping(pairs, .implicit, .flow))
    }
}
