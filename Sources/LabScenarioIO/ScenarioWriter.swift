import LabCore
import Yams

/// Writes scenario YAML with a new set of beacons, keeping every other field of the original file as it was
/// (comments are not kept: YAML trees do not carry them).
public enum ScenarioWriter {
    public static func yaml(replacingBeaconsIn original: String, file: String, with beacons: [Beacon], note: String? = nil) throws -> String {
        guard var root = try Yams.compose(yaml: original), case .mapping(var top) = root else {
            throw InputError(file: file, "expected a scenario mapping")
        }
        top["beacons"] = .sequence(Node.Sequence(beacons.map(node), .implicit, .block))
        if let note, let d = top["description"]?.string { top["description"] = Node("\(d) \(note)") }
        root = .mapping(top)
        var text = try Yams.serialize(node: root, width: 120, allowUnicode: true)
        if let note { text = "# \(note)\n" + text }
        return text
    }

    static func node(_ b: Beacon) -> Node {
        func num(_ v: Double) -> Node { Node(Format.fixed(v, 2)) }
        var pairs: [(Node, Node)] = [(Node("id"), Node(b.id))]
        if let u = b.uuid { pairs.append((Node("uuid"), Node(u))) }
        if let m = b.major { pairs.append((Node("major"), Node(String(m)))) }
        if let m = b.minor { pairs.append((Node("minor"), Node(String(m)))) }
        pairs.append((Node("position"), .sequence(Node.Sequence([num(b.position.x), num(b.position.y)], .implicit, .flow))))
        if let h = b.height { pairs.append((Node("height"), num(h))) }
        if let p = b.p0 { pairs.append((Node("p0"), num(p))) }
        return .mapping(Node.Mapping(pairs, .implicit, .flow))
    }
}
