import ArgumentParser
import Foundation
import LabCore
import LabEstimators
import LabEvaluation
import LabScenarioIO
import LabPlot
import LabStore
import LabReport

struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Fit the radio model (P0, path-loss exponent, σ and model error, wall losses per material) to a recording's RSSI and ground truth.",
        discussion: """
        Least squares (GSL gsl_fit_linear) of RSSI against 10·log10(d), d the distance from each beacon to the truth at the sample's time (3-D when heights are known): the intercept is P0, minus the slope is n, standard errors from the covariance, σ the residual standard deviation. When the recording's walls have materials (e.g. UJI imported with --obstacles), each material crossed by at least \(Calibration.minimumMaterialSamples) samples' paths gets a loss per wall crossed, fitted jointly (GSL gsl_multifit_linear). The residuals around the fitted model are then grouped by beacon and scan window: the spread of readings within a window is the σ that averaging shrinks, and the window means' spread beyond it is the model error (radio.model_error), which averaging does not remove; the radio block, --save-fit and --apply carry both (without two readings of a beacon in any window, σ is the whole residual spread and the model error 0). The sensitivity is the receiver's floor: the weakest reading, less half a dB when readings are whole dB (an upper bound on the true floor); estimators that truncate or censor readings at the sensitivity use it, and 'replay --radio' lowers it to the scored recording's own floor where that is lower. A simulated recording keeps its scenario's sensitivity. The dropout (radio.dropout) is how often a scan window reported nothing of a beacon that the fitted law puts at least \(Int(Calibration.Dropout.margin))σ above that floor, a beacon it should have heard (given from \(Calibration.Dropout.minimumWindows) such window-beacon pairs; --save-fit and --apply carry it). Prints a YAML radio block to paste into a scenario; --per-beacon adds a beacons fragment (each beacon's P0 at the global n, with the walls its samples crossed added back, since estimators take them off) and each beacon's own fit. Beacons with fewer than 10 samples are skipped.

        Example:
          indoorlab calibrate out/danis.sqlite --per-beacon \\
              --plot out/danis-calibration.png
          indoorlab calibrate out/uji-tx-4.sqlite --per-beacon --radio-map \\
              --save-fit out/uji-fit.json
        """)

    @Argument(help: "Recording file.")
    var file: String

    @Flag(help: "Also fit each beacon.")
    var perBeacon = false

    @Option(help: "Draw RSSI against distance with the fitted line here (.png, .svg, or no extension for both).")
    var plot: String?

    @Flag(help: "Print the fit as JSON.")
    var json = false

    @Flag(help: "Store the fitted P0, exponent, σ, model error, sensitivity, dropout and the walls' losses per material (and, with --per-beacon, each beacon's P0) in the recording.")
    var apply = false

    @Flag(name: .customLong("radio-map"), help: "Also fit the venue's radio map from the recording's ground truth: each beacon's residual from the fitted law, smoothed across the venue by Gaussian-process regression (length scale and noise by marginal likelihood). --save-fit carries it; 'replay --radio' and the estimators use it.")
    var radioMap = false

    @Option(name: .customLong("save-fit"), help: "Write the fit (P0, n, σ, model error, sensitivity, dropout and, with --per-beacon, each beacon's P0) as JSON, for 'replay --radio FILE' on another recording.")
    var saveFit: String?

    func validate() throws {
        if let plot { _ = try plotTarget(plot) }
    }

    func run() throws {
        // Every output is checked before any work: none may be an input (the recording, its baselines file) or
        // another output.
        let inputs = [file, BaselineFile.path(forRecording: file)]
        let plotFiles: [String] = try plot.map { p in
            let target = try plotTarget(p)
            return target.formats.map { target.base + "." + $0.fileExtension }
        } ?? []
        try reportingInputErrors {
            for output in plotFiles + (saveFit.map { [$0] } ?? []) {
                try checkOutput(output, inputs: inputs)
                // The baselines file is read by name whenever the recording is replayed, even when it is not there yet.
                if samePath(output, inputs[1]) { throw InputError(file: output, "is the recording's baselines file (read by 'replay'): choose another output") }
            }
            if let saveFit, let clash = plotFiles.first(where: { samePath($0, saveFit) }) {
                throw InputError(file: saveFit, "is also where --plot draws (\(clash)): choose another --save-fit file")
            }
        }
        let r = try reportingInputErrors { try RecordingStore.read(path: file) }
        let c: Calibration
        do {
            c = try Calibration(r, perBeacon: perBeacon)
        } catch let e as CalibrationError {
            printError("error: \(file): cannot calibrate: \(e)")
            throw badInputExit
        }
        // A fit of a handful of samples is arithmetic, not a calibration: say so where a script sees it too.
        if c.global.samples < Calibration.minimumBeaconSamples {
            printError("warning: \(file): only \(c.global.samples) RSSI samples with ground truth: too few to calibrate on (a beacon's own fit needs \(Calibration.minimumBeaconSamples)); the standard errors say how little the fit is known")
        }
        var fit = RadioFit(c, fittedOn: r.info.name, rounded: true)
        var mapSummary: CalibrationReport.RadioMapSummary?
        if radioMap {
            do {
                let map = try RadioMapFit(r, fit: fit)
                fit.radioMap = RadioMapFile(map, beaconIDs: r.venue.beacons.map(\.id))
                mapSummary = CalibrationReport.RadioMapSummary(map)
            } catch let e as CalibrationError {
                printError("error: \(file): cannot fit a radio map: \(e)")
                throw badInputExit
            }
        }
        if json {
            var report = CalibrationReport(file: file, recording: r.info.name, c)
            report.radioMap = mapSummary
            try writeOutput(jsonString(report), to: nil)
        } else {
            print(CalibrationText.yaml(c, file: file, recording: r))
            if let mapSummary { print(mapSummary.text) }
        }
        if let plot {
            let paths = try drawPlot(c, recording: r, to: plot)
            if !json { paths.forEach { print("# plot: \($0)") } }
        }
        if let saveFit {
            try reportingInputErrors { try fit.write(to: saveFit) }
            if !json { print("# fit written to \(saveFit)") }
        }
        if apply {
            try reportingInputErrors {
                try RecordingStore.updateRadio(path: file, p0: fit.p0, exponent: fit.exponent, sigma: fit.sigma,
                                               modelError: fit.modelError ?? 0, sensitivity: fit.sensitivity, dropout: fit.dropout, beaconP0: fit.beaconP0,
                                               materialLoss: fit.materialLoss ?? [:])
            }
            if !json {
                print("# applied to \(file)" + (r.baselines.isEmpty ? "" : " (its baselines were made with the old radio model: refresh them with 'replay --update-baseline')")
                      + (radioMap ? "; the radio map is not stored in a recording: --save-fit carries it" : ""))
            }
        }
    }


    /// Where --plot draws: the path less its extension, and the formats (.png, .svg, or both without one).
    func plotTarget(_ path: String) throws -> (base: String, formats: [PlotFormat]) {
        // A name that is only an extension ('.png', which would write the hidden '.png.png') names no figure.
        guard OutputFile.namesAFile(path), !(path.split(separator: "/").last ?? "").hasPrefix(".") else {
            throw ValidationError("--plot '\(path)': give a file name (with .png, .svg, or no extension for both)")
        }
        var st = stat()
        if stat(path, &st) == 0, (st.st_mode & S_IFMT) != S_IFREG {
            throw ValidationError("--plot \(path): is not a regular file; give a file name for the figure")
        }
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension.lowercased()
        if let f = PlotFormat(rawValue: ext) { return (url.deletingPathExtension().path, [f]) }
        guard ext.isEmpty else { throw ValidationError("--plot \(path): unknown plot format '.\(ext)'; use .png, .svg, or no extension for both") }
        return (path, [.png, .svg])
    }

    func drawPlot(_ c: Calibration, recording r: Recording, to path: String) throws -> [String] {
        let (base, formats) = try plotTarget(path)
        let figure = CalibrationFigure.make(c, recordingName: r.info.name)
        do {
            return try PlotRenderer.shared.render(figure, to: base, formats: formats)
        } catch let e as PlotError {
            printError("error: \(e)")
            throw badInputExit
        }
    }
}
