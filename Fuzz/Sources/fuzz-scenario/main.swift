import FuzzSupport
import LabCore
import LabScenarioIO
import LabSimulation

// The scenario loader: bytes → file → `ScenarioLoader.load` (UTF-8 check, YAML, validation with field paths).
// A scenario it accepts must be one the simulator accepts too: the loader's checks and the simulator's work
// budget agree, so nothing validates and then fails (or runs away) in `simulate`.
runFuzzer { data, size in
    guard let data else { return 0 }
    let path = Scratch.root + "/scenario.yaml"
    Scratch.write(UnsafeBufferPointer(start: data, count: size), to: path)
    expectOnlyInputErrors("scenario") {
        let scenario = try ScenarioLoader.load(path: path)
        do {
            _ = try Simulator(scenario: scenario)   // the budget check does not depend on the condition
        } catch {
            finding("scenario", "the loader accepted a scenario the simulator refuses: \(error)")
        }
    }
    return 0
}
