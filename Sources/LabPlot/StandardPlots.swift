import Foundation
import LabCore
import LabScenarioIO
import LabStore

/// The standard figures of a results directory, for `plot all` and `compare --plots`.
public enum StandardPlots {
    /// Draws cdf, map, heatmap and crlb for every scenario of the run in `resultsDirectory`, and the
    /// leaderboard, as PNG and SVG into `outputDirectory`.
    /// - Returns: the files written.
    /// - Throws: `InputError`/`InputErrors` for a missing or malformed results file or scenario (nothing is
    ///   written then), `PlotError` when the output cannot be written.
    public static func drawAll(resultsDirectory: String, outputDirectory: String) throws -> [String] {
        try plotter(resultsDirectory: resultsDirectory).drawStandardSet(outputDirectory: outputDirectory)
    }

    public static func plotter(resultsDirectory: String) throws -> ResultsPlotter {
        try ResultsPlotter(directory: resultsDirectory, loadScenario: { entry in
            // The manifest's path first; a run written elsewhere still finds the bundled scenario by name, when it is the
            // same file. A scenario edited since the run is refused: its floorplan is not the one the results were made on.
            let base = SimulationCondition.scenarioName(inLabel: entry.name)
            let path = FileManager.default.fileExists(atPath: entry.path) ? entry.path : BundledScenarios.resolve(base)
            if let kept = entry.fingerprint, RunManifest.ScenarioEntry.fingerprint(ofFileAt: path) != kept {
                let manifest = resultsDirectory + "/" + RunManifest.fileName
                throw InputError(file: manifest, field: "scenarios", path == entry.path
                    ? "\(entry.path) changed since the run: its figures would draw the results on another floorplan (run 'indoorlab compare' again, or restore the file)"
                    : "\(entry.path), the scenario of '\(entry.name)', is gone, and the bundled \(base) is not the same file (run 'indoorlab compare' again, or restore it)")
            }
            var s = try ScenarioLoader.load(path: path)
            s.name = entry.name   // "name@field": the label the results carry
            return s
        })
    }
}
