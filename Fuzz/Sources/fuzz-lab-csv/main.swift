import FuzzSupport
import LabScenarioIO
import LabStore

// The lab-csv importer: one input holds beacons.csv, readings.csv, truth.csv, headings.csv, steps.csv and optionally the
// venue's scenario.yaml (as `import --scenario` gives it), each after a line `=== NAME`.
runFuzzer { data, size in
    guard let data else { return 0 }
    fuzzImport("lab-csv", format: .labCSV, input: UnsafeRawBufferPointer(start: data, count: size),
               allowed: ["beacons.csv", "readings.csv", "truth.csv", "headings.csv", "steps.csv", "scenario.yaml"],
               paths: { dir, _ in [dir] },
               options: { dir, files in
                   ImportOptions(scenario: files.contains("scenario.yaml") ? try ScenarioLoader.load(path: dir + "/scenario.yaml") : nil)
               })
    return 0
}
