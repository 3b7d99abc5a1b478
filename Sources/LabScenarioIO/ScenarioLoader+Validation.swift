import LabCore
import Yams

extension ScenarioLoader {
    // MARK: - Validation (meaning and consistency)

    /// Checks what was read; every list index in a path or a message is the entry's index in the list read, which
    /// `places` turns into its index in the file.
    static func validate(_ s: Scenario, places: ListPlaces, root: Node, diagnostics d: YAMLDiagnostics) {
        func node(_ path: [Any]) -> Node? {
            var n: Node? = root
            for step in path {
                if let key = step as? String { n = n?[key] } else if let i = step as? Int { n = n?[i] }
            }
            return n
        }
        /// `list[i]` for entry `i` of the list read: its place in the file.
        func entry(_ list: String, _ i: Int) -> String { "\(list)[\(places.place(list, i))]" }
        func report(_ path: [Any], _ field: String, _ message: String) {
            var path = path, field = field
            if path.count >= 2, let list = path[0] as? String, let i = path[1] as? Int {
                let place = places.place(list, i)
                path[1] = place
                let read = "\(list)[\(i)]"
                if field.hasPrefix(read) { field = "\(list)[\(place)]" + field.dropFirst(read.count) }
            }
            d.report(node(path), field, message)
        }
        /// Reports `message` at `path`, whose field is that path written out (`walks[2].looks[0].at`).
        func flag(_ path: [Any], _ message: String) {
            var field = ""
            for step in path {
                if let key = step as? String { field += field.isEmpty ? key : ".\(key)" } else if let i = step as? Int { field += "[\(i)]" }
            }
            report(path, field, message)
        }

        func checkDuplicates(_ ids: [String], list: String, key: String) {
            var seen: [String: Int] = [:]
            for (i, id) in ids.enumerated() {
                if let first = seen[id] {
                    flag([list, i, key], "duplicate \(key) '\(id)' (first used by \(entry(list, first)))")
                } else { seen[id] = i }
            }
        }
        // Names go into file names (the scenario's) and unquoted CSV fields (every name and id).
        if !isFileSafe(s.name) {
            flag(["name"], "'\(abbreviated(s.name))' \(fileSafeRule)")
        }
        func checkCSVSafe(_ names: [String], list: String, key: String) {
            for (i, name) in names.enumerated() where name.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) {
                flag([list, i, key], "'\(abbreviated(name))' holds a comma, a quote or a line break, which the lab's CSV files cannot carry")
            }
        }
        // Names reach terminals, CSV files, recordings and plots: no control character (a NUL would also cut a recording's
        // text short; an ESC could retitle the terminal that shows a table).
        func checkNoControls(_ names: [String], list: String, key: String) {
            for (i, name) in names.enumerated() {
                if let problem = controlCharacterProblem(in: name) { flag([list, i, key], "the \(key) \(problem)") }
            }
        }
        checkNoControls(s.beacons.map(\.id), list: "beacons", key: "id")
        checkNoControls(s.beacons.map { $0.uuid ?? "" }, list: "beacons", key: "uuid")
        checkNoControls(s.rooms.map(\.name), list: "rooms", key: "name")
        checkNoControls(s.rooms.map(\.area), list: "rooms", key: "area")
        checkNoControls(s.landmarks.map(\.name), list: "landmarks", key: "name")
        checkNoControls(s.checkpoints.map(\.id), list: "checkpoints", key: "id")
        checkNoControls(s.walks.map(\.name), list: "walks", key: "name")
        for key in s.materials.keys.sorted() {
            if let problem = controlCharacterProblem(in: key) { flag(["materials", key], "the material name \(problem)") }
        }
        if let problem = controlCharacterProblem(in: s.description, allowingLineBreaks: true) {
            flag(["description"], "the description " + problem.replacingOccurrences(of: "names may not", with: "text may not"))
        }
        checkCSVSafe(s.beacons.map(\.id), list: "beacons", key: "id")
        checkCSVSafe(s.rooms.map(\.name), list: "rooms", key: "name")
        checkCSVSafe(s.landmarks.map(\.name), list: "landmarks", key: "name")
        checkCSVSafe(s.checkpoints.map(\.id), list: "checkpoints", key: "id")
        checkCSVSafe(s.walks.map(\.name), list: "walks", key: "name")
        checkDuplicates(s.beacons.map(\.id), list: "beacons", key: "id")
        checkDuplicates(s.rooms.map(\.name), list: "rooms", key: "name")
        checkDuplicates(s.landmarks.map(\.name), list: "landmarks", key: "name")
        checkDuplicates(s.checkpoints.map(\.id), list: "checkpoints", key: "id")
        checkDuplicates(s.walks.map(\.name), list: "walks", key: "name")

        var identities: [String: Int] = [:]
        for (i, b) in s.beacons.enumerated() {
            if !s.bounds.contains(b.position) {
                flag(["beacons", i, "position"], "beacon '\(b.id)' at \(b.position) lies outside the bounds \(boundsText(s.bounds))")
            }
            if let uuid = b.uuid, let major = b.major, let minor = b.minor {
                let key = "\(uuid)/\(major)/\(minor)"
                if let first = identities[key] {
                    report(["beacons", i, "minor"], "beacons[\(i)]", "iBeacon identity \(key) is already used by \(entry("beacons", first))")
                } else { identities[key] = i }
            }
        }
        if case .sequence(let listed)? = root["beacons"], listed.isEmpty {
            flag(["beacons"], "a scenario needs at least one beacon")
        }
        // Over the corner budget, the pairwise check is not run (the budget says why, below).
        let cornersWithinBudget = s.rooms.reduce(0) { $0 + $1.polygon.vertices.count } <= WorkBudget.maximumCorners
        for (i, r) in s.rooms.enumerated() {
            let p = r.polygon
            if p.vertices.count < 3 || p.area < 1e-6 {
                flag(["rooms", i, "polygon"], "room '\(r.name)' is degenerate: expected at least 3 points enclosing a non-zero area")
            } else if cornersWithinBudget && p.isWithinCornerBudget && p.isSelfIntersecting {
                flag(["rooms", i, "polygon"], "room '\(r.name)' crosses itself: list the corners in order around the room")
            }
            for (j, v) in p.vertices.enumerated() where !s.bounds.contains(v) {
                flag(["rooms", i, "polygon", j], "corner \(v) lies outside the bounds \(boundsText(s.bounds))")
            }
        }
        for (i, w) in s.walls.enumerated() {
            if w.segment.length < 1e-9 {
                flag(["walls", i], "wall has no length: 'from' and 'to' are less than a nanometre apart")
            }
            for (key, p) in [("from", w.segment.a), ("to", w.segment.b)] where !s.bounds.contains(p) {
                flag(["walls", i, key], "\(p) lies outside the bounds \(boundsText(s.bounds))")
            }
        }
        for (i, l) in s.landmarks.enumerated() where !s.bounds.contains(l.position) {
            flag(["landmarks", i, "position"], "landmark '\(l.name)' at \(l.position) lies outside the bounds \(boundsText(s.bounds))")
        }
        for (i, c) in s.checkpoints.enumerated() where !s.bounds.contains(c.position) {
            flag(["checkpoints", i, "position"], "checkpoint '\(c.id)' lies outside the bounds \(boundsText(s.bounds))")
        }
        let budget = WorkBudget.problems(s)
        for problem in budget {
            let steps: [Any] = problem.path.map { step -> Any in
                switch step { case .key(let k): return k; case .index(let i): return i }
            }
            report(steps, problem.field, problem.message)
        }
        // Something to score: a walk, or a test point inside a room (a compare of none would run, then plot nothing).
        if budget.isEmpty, s.walks.isEmpty, places.shortened.isDisjoint(with: ["walks", "rooms"]),
           s.walkableGrid(spacing: s.testGridSpacing).isEmpty {
            flag(["test_grid"], "no walk, and no test point of the \(Format.number(s.testGridSpacing)) m grid falls inside a room: nothing to simulate (add a walk, larger rooms or a finer test_grid)")
        }
        let friezeNames = Set(s.friezes.map(\.name))
        for (i, w) in s.walks.enumerated() {
            if w.name == "grid" {
                flag(["walks", i, "name"], "'grid' is reserved for the static test points; choose another walk name")
            }
            if w.waypoints.isEmpty { flag(["walks", i, "waypoints"], "a walk needs at least one waypoint") }
            for (j, p) in w.waypoints.enumerated() where !s.bounds.contains(p) {
                flag(["walks", i, "waypoints", j], "waypoint \(p) lies outside the bounds \(boundsText(s.bounds))")
            }
            for (j, pause) in w.pauses.enumerated() where pause.waypoint < 0 || pause.waypoint >= w.waypoints.count {
                flag(["walks", i, "pauses", j, "at"], "expected a waypoint index in 0..<\(w.waypoints.count), found \(pause.waypoint)")
            }
            for (j, look) in w.looks.enumerated() {
                if look.waypoint < 0 || look.waypoint >= w.waypoints.count {
                    flag(["walks", i, "looks", j, "at"], "expected a waypoint index in 0..<\(w.waypoints.count), found \(look.waypoint)")
                }
                for (k, name) in look.friezes.enumerated() where !friezeNames.contains(name) && !places.shortened.contains("landmarks") {
                    let known = friezeNames.isEmpty ? "the scenario has no friezes" : "known friezes: \(friezeNames.sorted().joined(separator: ", "))"
                    flag(["walks", i, "looks", j, "friezes", k], "no frieze named '\(name)'; \(known)")
                }
            }
        }
    }

    private static func boundsText(_ r: Rect) -> String {
        "[0, \(Format.metres(r.maxX))] × [0, \(Format.metres(r.maxY))] m"
    }
}
