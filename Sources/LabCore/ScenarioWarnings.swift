/// What a valid scenario holds that is most likely a mistake: the lab runs it, and says so.
public struct ScenarioWarning: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The field path, as in the scenario file (`beacons[3].position`).
    public var field: String
    public var message: String
    public var description: String { "\(field): \(message)" }
}

extension Scenario {
    /// Beacons closer than this share one spot, metres.
    public static let coLocationDistance = 0.1

    /// Valid but most likely a mistake (a copied line, a typo in a coordinate):
    /// - two beacons at one spot (within ``coLocationDistance``, at the same height): their readings differ only by
    ///   noise, so the venue has one beacon less than it seems, and where they are the only beacons heard position and
    ///   the phone's offset cannot be told apart (the bound with the offset unknown is unbounded there).
    public var warnings: [ScenarioWarning] {
        var out: [(beacon: Int, warning: ScenarioWarning)] = []
        // Sorted by x, each beacon is compared with the next ones until x is too far: near linear for a venue.
        let order = beacons.indices.sorted { (beacons[$0].position.x, $0) < (beacons[$1].position.x, $1) }
        var reported = Set<Int>()
        for (k, i) in order.enumerated() {
            var m = k + 1
            while m < order.count && beacons[order[m]].position.x - beacons[i].position.x <= Self.coLocationDistance {
                let j = order[m]
                m += 1
                let a = beacons[i], b = beacons[j]
                guard a.position.distance(to: b.position) < Self.coLocationDistance,
                      abs(radio.heightOffset(beaconHeight: a.height) - radio.heightOffset(beaconHeight: b.height)) < Self.coLocationDistance
                else { continue }
                let (first, second) = i < j ? (i, j) : (j, i)
                guard reported.insert(second).inserted else { continue }
                out.append((second, ScenarioWarning(field: "beacons[\(second)].position",
                                           message: "beacon '\(beacons[second].id)' is at the spot of beacon '\(beacons[first].id)' (beacons[\(first)], \(Format.fixed(a.position.distance(to: b.position), 2)) m apart): their readings differ only by noise, so they tell little more than one (a copied line?), and where they are the only beacons heard, position and the phone's offset cannot be told apart; move or remove one")))
            }
        }
        return out.sorted { $0.beacon < $1.beacon }.map(\.warning)
    }
}
