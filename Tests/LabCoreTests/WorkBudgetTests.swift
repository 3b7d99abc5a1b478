import Foundation
import Testing
@testable import LabCore
import LabScenarioIO

/// Every quantity that sizes the simulator's work is bounded, with the limit and its reason in the message,
/// and a scenario built in code past the budget is refused by the simulator rather than run out of memory.
@Suite struct WorkBudgetTests {
    func replacing(_ a: String, _ b: String) -> String {
        precondition(validYAML.contains(a), "the fixture has no '\(a)'")
        return validYAML.replacingOccurrences(of: a, with: b)
    }

    @Test(arguments: [
        // Each used to pass validation and then trap on an Int conversion or exhaust memory.
        ("sigma: 4}", "sigma: 4, advertising_interval: 1e-300}", "radio.advertising_interval: expected 0.02–10.24 s (the BLE advertising interval range), found 1e-300"),
        ("sigma: 4}", "sigma: 4, advertising_interval: 1e-7}", "radio.advertising_interval: expected 0.02–10.24 s"),
        ("sigma: 4}", "sigma: 4, scan_window: 1e308}", "radio.scan_window: expected 0.01–3600 s, found 1e+308"),
        ("sigma: 4}", "sigma: 4, scan_window: 1e-300}", "radio.scan_window: expected 0.01–3600 s"),
        ("sigma: 4}", "sigma: 4, scan_window: 0x7ffffffffffffff0}", "radio.scan_window: expected 0.01–3600 s"),
        ("sigma: 4}", "sigma: 4, scan_window: 3600, advertising_interval: 0.02}", "radio.scan_window: a 3600 s window at one advertisement every 0.02 s is 180000 readings per beacon; the budget is 10000"),
        ("compass: {sigma: 8, bias: 2}", "compass: {sigma: 8, bias: 2}\ntest_grid: 1e-9", "test_grid: expected at least 0.1 m, found 1e-09"),
        ("bounds: {width: 10, depth: 8}", "bounds: {width: 10, depth: 2147483648}", "bounds.depth: expected at most 10000 m (the largest venue the lab simulates), found 2147483648"),
        ("bounds: {width: 10, depth: 8}", "bounds: {width: 1e9, depth: 8}", "bounds.width: expected at most 10000 m"),
        ("bounds: {width: 10, depth: 8}", "bounds: {width: 10000, depth: 10000}", "test_grid: a 2 m grid over 10000 × 10000 m has up to 25000000 test points; the budget is 200000"),
        ("speed: 1.2", "speed: 1e-6", "walks[0].speed: expected 0.01–10 m/s, found 1e-06"),
        ("speed: 1.2", "speed: 1.2\n    pauses: [{at: 1, seconds: 1e9}]", "walks[0].pauses[0].seconds: expected 0.001–86400 s, found 1000000000"),
        ("compass: {sigma: 8, bias: 2}", "compass: {sigma: 8, bias: 2}\npdr: {cadence: 100}", "pdr.cadence: expected 0.5–4 steps per second, found 100"),
    ])
    func quantitiesThatSizeWorkAreBounded(from: String, to: String, message: String) {
        let found = errors(replacing(from, to))
        #expect(found.contains { $0.contains(message) }, "\(found)")
        #expect(found.allSatisfy { $0.hasPrefix("test.yaml:") }, "every problem names the file and line: \(found)")
    }

    @Test func pausesAndSlowSpeedsCountInTheWalksWindows() {
        // 8 m at 1.2 m/s is 7 windows; a day's pause at 0.01 s windows is 8.64 million more.
        let paused = replacing("sigma: 4}", "sigma: 4, scan_window: 0.01, advertising_interval: 0.02}")
            .replacingOccurrences(of: "speed: 1.2", with: "speed: 1.2\n    speed_sigma: 0.2\n    pauses: [{at: 0, seconds: 86400}]")
        let found = errors(paused)
        #expect(found.contains { $0.contains("walks[0]: walk 'stroll' (8 m at 0.6 m/s or faster, 8640000 windows of pauses) is 8641337 scan windows; the budget is 200000") }, "\(found)")
    }

    /// A step detector reports steps of at most 3 m: a walk whose true steps could pass half that is refused, and a
    /// step model built in code is checked like a loaded one.
    @Test func stepsStayWithinWhatAStepDetectorReports() throws {
        let fast = replacing("speed: 1.2", "speed: 4").replacingOccurrences(of: "compass: {sigma: 8, bias: 2}", with: "compass: {sigma: 8, bias: 2}\npdr: {cadence: 1}")
        #expect(errors(fast).contains { $0.contains("walks[0].speed: at 4 m/s and 1 steps/s a step is 4 m; steps are at most 1.5 m") }, "\(errors(fast))")
        var s = try parse(validYAML)
        s.pdr = PDRModel(lengthSigma: .nan, headingSigma: -1)
        #expect(WorkBudget.problems(s).map(\.field) == ["pdr.length_sigma", "pdr.heading_sigma"])
    }

    @Test func aWalkOfTooManyWindowsIsRefused() {
        let long = replacing("sigma: 4}", "sigma: 4, scan_window: 0.01, advertising_interval: 0.02}")
            .replacingOccurrences(of: "speed: 1.2", with: "speed: 0.01")
            .replacingOccurrences(of: "bounds: {width: 10, depth: 8}", with: "bounds: {width: 10000, depth: 8}")
            .replacingOccurrences(of: "compass: {sigma: 8, bias: 2}", with: "compass: {sigma: 8, bias: 2}\ntest_grid: 100")
            .replacingOccurrences(of: "waypoints: [[1, 4], [9, 4]]", with: "waypoints: [[1, 4], [9999, 4]]")
        let found = errors(long)
        #expect(found.contains { $0.contains("walks[0]: walk 'stroll' (9998 m at 0.01 m/s) is 99980003 scan windows; the budget is 200000") }, "\(found)")
    }

    /// More beacons than the budget (2,000 took minutes for a 9-window walk: the posterior bound is cubic in them).
    @Test func tooManyBeaconsAreRefused() throws {
        var s = try parse(validYAML)
        s.beacons = (0...WorkBudget.maximumBeacons).map { Beacon(id: "B\($0)", position: Point(Double($0 % 10), Double($0 % 8))) }
        #expect(WorkBudget.problems(s).contains { $0.field == "beacons" && $0.message == "1001 beacons; the budget is 1000" })
    }

    @Test func theProductOfFactorsWithinTheirRangesIsBoundedToo() {
        // 200 × 200 test points × 1000 advertisements × 3 beacons: each factor allowed, the pass not.
        let yaml = replacing("sigma: 4}", "sigma: 4, scan_window: 20, advertising_interval: 0.02}")
            .replacingOccurrences(of: "bounds: {width: 10, depth: 8}", with: "bounds: {width: 20, depth: 20}")
            .replacingOccurrences(of: "compass: {sigma: 8, bias: 2}", with: "compass: {sigma: 8, bias: 2}\ntest_grid: 0.1")
        let found = errors(yaml)
        #expect(found.contains { $0.contains("test_grid: a grid pass is up to 120000000 readings (test points × 1000 advertisements × 3 beacons); the budget is 20000000") }, "\(found)")
    }

    @Test func theBundledScenariosAreWithinBudget() throws {
        for path in BundledScenarios.paths() {
            #expect(WorkBudget.problems(try ScenarioLoader.load(path: path)).isEmpty, "\(path)")
        }
    }

    @Test func aScenarioBuiltInCodeIsCheckedToo() throws {
        var s = try parse(validYAML)
        s.radio.scanWindow = 1e308
        #expect(s.radio.advertisementsPerWindow == 1_000_000_000, "the conversion saturates instead of trapping")
        let e = try #require(throws: InputErrors.self) { try WorkBudget.check(s) }
        #expect(e.description == "test-room: radio.scan_window: expected 0.01–3600 s, found 1e+308")
        s.radio.scanWindow = 1
        s.testGridSpacing = 1e-9
        #expect(WorkBudget.problems(s).map(\.field) == ["test_grid"])
        s.testGridSpacing = .nan
        #expect(WorkBudget.problems(s).map(\.field) == ["test_grid"], "NaN is not a spacing")
    }
}

/// A small valid scenario, the one LabScenarioIOTests' validation cases edit; each case here breaks one budget.
let validYAML = """
name: test-room
description: a 10 m × 8 m room
bounds: {width: 10, depth: 8}
radio: {p0: -59, exponent: 2.0, sigma: 4}
rooms:
  - name: Room
    area: Ground floor
    polygon: [[0, 0], [10, 0], [10, 8], [0, 8]]
walls:
  - {from: [5, 0], to: [5, 3], material: drywall}
beacons:
  - {id: B1, uuid: B9407F30-F5F8-466E-AFF9-25556B57FE6D, major: 1, minor: 1, position: [1, 1]}
  - {id: B2, position: [9, 1], p0: -62}
  - {id: B3, position: [5, 7], height: 2.5}
landmarks:
  - {name: Newton, kind: frieze, position: [5, 8], facing: 180, width: 3}
  - {name: Clock, kind: exhibit, position: [2, 6]}
checkpoints:
  - {id: QR-1, position: [1, 4]}
walks:
  - name: stroll
    speed: 1.2
    waypoints: [[1, 4], [9, 4]]
    looks: [{at: 1, friezes: [Newton]}]
compass: {sigma: 8, bias: 2}
"""

func parse(_ yaml: String) throws -> Scenario { try ScenarioLoader.parse(yaml: yaml, file: "test.yaml") }

/// The errors a broken YAML gives, as strings.
func errors(_ yaml: String) -> [String] {
    do { _ = try parse(yaml); return [] }
    catch let e as InputErrors { return e.errors.map(\.description) }
    catch { return ["unexpected error type: \(error)"] }
}

/// Work the budget once left unbounded: corners whose crossing check is quadratic.
@Suite struct CornerBudgetTests {
    /// A circle of `n` corners around (5, 4), as YAML.
    func circle(_ n: Int) -> String {
        "[" + (0..<n).map { k -> String in
            let a = 2 * Double.pi * Double(k) / Double(n)
            return "[\(5 + 3 * cos(a)), \(4 + 3 * sin(a))]"
        }.joined(separator: ", ") + "]"
    }

    @Test func aRoomOfTooManyCornersIsRefusedWithoutTheQuadraticCheck() {
        let yaml = validYAML.replacingOccurrences(of: "polygon: [[0, 0], [10, 0], [10, 8], [0, 8]]", with: "polygon: \(circle(WorkBudget.maximumCornersPerRoom + 1))")
        let found = errors(yaml)
        #expect(found.contains { $0.contains("rooms[0].polygon: room 'Room' has 10001 corners; the budget is 10000 per room") }, "\(found)")
        #expect(!found.contains { $0.contains("crosses itself") }, "\(found)")
        // Within the budget, the check runs (and a circle does not cross itself).
        #expect(errors(validYAML.replacingOccurrences(of: "polygon: [[0, 0], [10, 0], [10, 8], [0, 8]]", with: "polygon: \(circle(2_000))")).isEmpty)
    }
}
