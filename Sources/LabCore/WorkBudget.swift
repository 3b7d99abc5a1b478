import Foundation

/// The limits on every scenario quantity that sizes the simulator's work, and the check against them.
///
/// A scenario is input like any other: a `scan_window` of 1e308 s or a `test_grid` of 1e-9 m is valid YAML
/// but asks for more advertisements, test points or scan windows than memory holds. The loader reports each
/// quantity outside its range with its field path, and ``Simulator`` refuses a scenario over budget, so
/// neither can trap on an integer conversion or run out of memory.
public enum WorkBudget {
    /// The largest venue side, metres: a 10 km campus is already far beyond what BLE positioning covers.
    public static let maximumExtent = 10_000.0
    /// BLE advertising intervals range from 20 ms to 10.24 s (Bluetooth Core Specification, Vol 6, Part B, 4.4.2.2).
    public static let advertisingIntervalRange = 0.02...10.24
    /// Scan windows from 10 ms to one hour.
    public static let scanWindowRange = 0.01...3600.0
    /// Walking speeds from 1 cm/s to 10 m/s (a sprint).
    public static let speedRange = 0.01...10.0
    /// Test-grid spacing from 10 cm up.
    public static let minimumTestGrid = 0.1
    /// Advertisements one beacon sends in one scan window (each is one simulated reading).
    public static let maximumAdvertisementsPerWindow = 10_000
    /// Static test points in one grid pass.
    public static let maximumTestPoints = 200_000
    /// Pauses from a moment to a day.
    public static let pauseRange = 0.001...86_400.0
    /// Step cadences from a shuffle to a sprint, steps per second.
    public static let cadenceRange = 0.5...4.0
    /// Steps the pedometer reports in one walk.
    public static let maximumStepsPerWalk = 1_000_000
    /// Scan windows in one walk: over two days at 1 s. The tournament keeps every estimator's result per window (a
    /// 600,000-window walk took 2.3 GB for one estimator).
    public static let maximumWindowsPerWalk = 200_000
    /// Beacons in one venue: the walks' posterior bound grows with the cube of the beacons heard (2,000 took minutes
    /// for a 9-window walk); 1,000 is far more than any venue mounts.
    public static let maximumBeacons = 1_000
    /// Corners of one room: checking that a room does not cross itself compares every pair of its edges (200,000
    /// corners took over a minute); a room drawn from a survey has hundreds.
    public static let maximumCornersPerRoom = 10_000
    /// Corners of all rooms: every epoch looks up the room it is in.
    public static let maximumCorners = 100_000
    /// Fixes one learning curve computes (`plot offset-learning`: runs × scans; 10⁸ would take hours).
    public static let maximumLearningFixes = 1_000_000
    /// Readings simulated in one walk or one grid pass (windows × advertisements × beacons): about 32 bytes
    /// each in memory, so 2·10⁷ is some 640 MB.
    public static let maximumReadingsPerPass = 20_000_000

    /// A quantity outside its range: the field path (as in the scenario file) and what was expected.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// Where the quantity lives, as a list of keys and indices (e.g. `["walks", 2, "speed"]`).
        public var path: [PathStep]
        public var message: String
        public enum PathStep: Sendable, Hashable { case key(String), index(Int) }
        public var field: String {
            path.reduce(into: "") { s, step in
                switch step {
                case .key(let k): s += s.isEmpty ? k : ".\(k)"
                case .index(let i): s += "[\(i)]"
                }
            }
        }
        public var description: String { "\(field): \(message)" }
    }

    /// Every quantity of `s` outside its range, or whose work (advertisements per window, test points,
    /// windows per walk, room corners) exceeds the budget.
    public static func problems(_ s: Scenario) -> [Problem] {
        var out: [Problem] = []
        func add(_ path: [Problem.PathStep], _ message: String) { out.append(Problem(path: path, message: message)) }
        func number(_ v: Double) -> String { Format.number(v) }

        let w = s.bounds.width, d = s.bounds.height
        if w > maximumExtent { add([.key("bounds"), .key("width")], "expected at most \(number(maximumExtent)) m (the largest venue the lab simulates), found \(number(w))") }
        if d > maximumExtent { add([.key("bounds"), .key("depth")], "expected at most \(number(maximumExtent)) m (the largest venue the lab simulates), found \(number(d))") }

        let r = s.radio
        let adv = r.advertisingInterval, window = r.scanWindow
        if !advertisingIntervalRange.contains(adv) {
            add([.key("radio"), .key("advertising_interval")], "expected \(number(advertisingIntervalRange.lowerBound))–\(number(advertisingIntervalRange.upperBound)) s (the BLE advertising interval range), found \(number(adv))")
        }
        if !scanWindowRange.contains(window) {
            add([.key("radio"), .key("scan_window")], "expected \(number(scanWindowRange.lowerBound))–\(number(scanWindowRange.upperBound)) s, found \(number(window))")
        }
        if advertisingIntervalRange.contains(adv) && scanWindowRange.contains(window) {
            let perWindow = window / adv
            if perWindow > Double(maximumAdvertisementsPerWindow) {
                add([.key("radio"), .key("scan_window")], "a \(number(window)) s window at one advertisement every \(number(adv)) s is \(number(perWindow.rounded(.down))) readings per beacon; the budget is \(maximumAdvertisementsPerWindow) (shorten scan_window or lengthen advertising_interval)")
            }
        }

        var corners = 0
        for (i, room) in s.rooms.enumerated() {
            corners += room.polygon.vertices.count
            if room.polygon.vertices.count > maximumCornersPerRoom {
                add([.key("rooms"), .index(i), .key("polygon")], "room '\(room.name)' has \(room.polygon.vertices.count) corners; the budget is \(maximumCornersPerRoom) per room (simplify the outline)")
            }
        }
        if corners > maximumCorners {
            add([.key("rooms")], "the rooms have \(corners) corners in all; the budget is \(maximumCorners) (simplify the outlines)")
        }

        if s.beacons.count > maximumBeacons {
            add([.key("beacons")], "\(s.beacons.count) beacons; the budget is \(maximumBeacons)")
        }

        let g = s.testGridSpacing
        if !(g >= minimumTestGrid) {
            add([.key("test_grid")], "expected at least \(number(minimumTestGrid)) m, found \(number(g))")
        } else if w <= maximumExtent && d <= maximumExtent {
            let points = (w / g).rounded(.up) * (d / g).rounded(.up)
            if points > Double(maximumTestPoints) {
                add([.key("test_grid")], "a \(number(g)) m grid over \(number(w)) × \(number(d)) m has up to \(number(points)) test points; the budget is \(maximumTestPoints) (use a coarser test_grid)")
            }
        }

        let perWindow = advertisingIntervalRange.contains(adv) && scanWindowRange.contains(window) ? Double(r.advertisementsPerWindow) : 0
        let beacons = Double(s.beacons.count)
        if g >= minimumTestGrid && w <= maximumExtent && d <= maximumExtent {
            let readings = (w / g).rounded(.up) * (d / g).rounded(.up) * perWindow * beacons
            if readings > Double(maximumReadingsPerPass) {
                add([.key("test_grid")], "a grid pass is up to \(number(readings)) readings (test points × \(number(perWindow)) advertisements × \(s.beacons.count) beacons); the budget is \(maximumReadingsPerPass) (use a coarser test_grid or fewer advertisements per window)")
            }
        }

        for (i, walk) in s.walks.enumerated() {
            for (j, pause) in walk.pauses.enumerated() where !pauseRange.contains(pause.seconds) {
                add([.key("walks"), .index(i), .key("pauses"), .index(j), .key("seconds")], "expected \(number(pauseRange.lowerBound))–\(number(pauseRange.upperBound)) s, found \(number(pause.seconds))")
            }
            if !speedRange.contains(walk.speed) {
                add([.key("walks"), .index(i), .key("speed")], "expected \(number(speedRange.lowerBound))–\(number(speedRange.upperBound)) m/s, found \(number(walk.speed))")
            } else if scanWindowRange.contains(window) && walk.pauses.allSatisfy({ pauseRange.contains($0.seconds) }) {
                let slowest = walk.speedBounds.lowerBound
                let paused = walk.pauses.reduce(0.0) { $0 + ($1.seconds / window).rounded(.up) }
                let windows = Self.windows(of: walk, scanWindow: window)
                if windows > Double(maximumWindowsPerWalk) {
                    let pace = "\(number(walk.length)) m at \(number(slowest)) m/s\(walk.speedSigma > 0 ? " or faster" : "")\(paused > 0 ? ", \(number(paused)) windows of pauses" : "")"
                    add([.key("walks"), .index(i)], "walk '\(walk.name)' (\(pace)) is \(number(windows)) scan windows; the budget is \(maximumWindowsPerWalk)")
                } else if windows * perWindow * beacons > Double(maximumReadingsPerPass) {
                    add([.key("walks"), .index(i)], "walk '\(walk.name)' is up to \(number(windows * perWindow * beacons)) readings (\(number(windows)) windows × \(number(perWindow)) advertisements × \(s.beacons.count) beacons); the budget is \(maximumReadingsPerPass)")
                } else if let pdr = s.pdr, cadenceRange.contains(pdr.cadence) {
                    let steps = (walk.length * pdr.cadence / slowest).rounded(.up)
                    let fastest = walk.speedBounds.upperBound
                    if steps > Double(maximumStepsPerWalk) {
                        add([.key("walks"), .index(i)], "walk '\(walk.name)' is up to \(number(steps)) steps at \(number(pdr.cadence)) steps/s; the budget is \(maximumStepsPerWalk)")
                    } else if fastest / pdr.cadence > StepReading.longest / 2 {
                        add([.key("walks"), .index(i), .key("speed")], "at \(number(fastest)) m/s and \(number(pdr.cadence)) steps/s a step is \(number(fastest / pdr.cadence)) m; steps are at most \(number(StepReading.longest / 2)) m (raise pdr.cadence or slow the walk)")
                    }
                }
            }
        }
        if let pdr = s.pdr {
            if !cadenceRange.contains(pdr.cadence) {
                add([.key("pdr"), .key("cadence")], "expected \(number(cadenceRange.lowerBound))–\(number(cadenceRange.upperBound)) steps per second, found \(number(pdr.cadence))")
            }
            // The loader checks these with their limits; a model built in code must not make invalid steps either.
            for l in PDRModel.limits where !(pdr[keyPath: l.path] >= 0 && pdr[keyPath: l.path] <= l.limit) {
                add([.key("pdr"), .key(l.key)], "expected 0–\(number(l.limit)) (\(l.what)), found \(number(pdr[keyPath: l.path]))")
            }
        }
        return out
    }

    /// The most scan windows `walk` can take at `scanWindow` seconds each: one per advance of speed × window along the
    /// path (at the slowest speed the walk can reach), one per look, one per window of each pause, one at the last
    /// waypoint.
    public static func windows(of walk: Walk, scanWindow window: Double) -> Double {
        let paused = walk.pauses.reduce(0.0) { $0 + ($1.seconds / window).rounded(.up) }
        return (walk.length / (walk.speedBounds.lowerBound * window)).rounded(.up) + Double(walk.looks.count + 2) + paused
    }

    /// Throws the problems of `s` as one error (for scenarios built in code rather than loaded).
    public static func check(_ s: Scenario) throws {
        let p = problems(s)
        if !p.isEmpty { throw InputErrors(p.map { InputError(file: s.name, field: $0.field, $0.message) }) }
    }
}

extension Polygon {
    /// Whether checking this outline's edges pairwise stays within the work budget (``WorkBudget/maximumCornersPerRoom``).
    public var isWithinCornerBudget: Bool { vertices.count <= WorkBudget.maximumCornersPerRoom }
}
