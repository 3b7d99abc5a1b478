import LabCore
import LabEvaluation
import LabStore

/// What `calibrate --json` prints.
public struct CalibrationReport: Encodable {
    var file: String
    var recording: String
    var threeDimensional: Bool
    var global: PathLossFit
    var beacons: [Calibration.BeaconFit]
    var skippedBeacons: [String]
    var materials: [MaterialLossFit]
    /// The residuals' split by scan window (σ within, model error); absent when no window holds two readings of a beacon.
    var windowSplit: Calibration.WindowSplit?
    /// The receiver's floor, dBm (``Calibration/floor``): the fit's sensitivity; absent for a simulated recording.
    var sensitivity: Double?
    /// The receiver's window dropout (``Calibration/dropout``); absent when too few windows could show it.
    var dropout: Calibration.Dropout?
    /// The radio map's summary, with `--radio-map`.
    public var radioMap: RadioMapSummary?

    /// What `calibrate --radio-map` says of the map it fitted: its grid, and the median of the beacons' hyperparameters.
    public struct RadioMapSummary: Encodable {
        var spots: Int, beaconsMapped: Int, cellSize: Double, nx: Int, ny: Int
        var medianLengthScale: Double, medianSignalSigma: Double, medianNoiseSigma: Double
        public init(_ f: RadioMapFit) {
            spots = f.spots; beaconsMapped = f.beaconsMapped; cellSize = f.map.cellSize; nx = f.map.nx; ny = f.map.ny
            func median(_ values: [Double]) -> Double {
                let v = values.sorted()
                return v.isEmpty ? .nan : v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
            }
            let h = Array(f.beacons.values)
            medianLengthScale = median(h.map(\.lengthScale)); medianSignalSigma = median(h.map(\.signalSigma)); medianNoiseSigma = median(h.map(\.noiseSigma))
        }
        /// As a comment line after the radio block.
        public var text: String {
            "# radio map: \(beaconsMapped) beacons over \(spots) surveyed spots, each beacon's Gaussian process fitted by marginal likelihood "
                + "(median length scale \(Format.fixed(medianLengthScale, 2)) m, σ_f \(Format.fixed(medianSignalSigma, 2)) dB, σ_n \(Format.fixed(medianNoiseSigma, 2)) dB); "
                + "\(nx) × \(ny) nodes every \(Format.fixed(cellSize, 2)) m"
        }
    }

    public init(file: String, recording: String, _ c: Calibration) {
        self.file = file; self.recording = recording; threeDimensional = c.threeDimensional
        global = c.global; beacons = c.beacons; skippedBeacons = c.skippedBeacons; materials = c.materials; windowSplit = c.windowSplit
        sensitivity = c.floor; dropout = c.dropout
    }
}

/// What `calibrate` prints: the fit as a radio block to paste into a scenario, with its figures as comments.
public enum CalibrationText {
    static func f(_ v: Double, _ d: Int = 2) -> String { Format.fixed(v, d) }

    /// How σ splits by scan window (``Calibration/WindowSplit``), as comment lines.
    static func windowLines(_ c: Calibration) -> String {
        guard let w = c.windowSplit else {
            return "# by scan window: no window holds two readings of one beacon, so σ cannot be split; model error 0"
        }
        return """
        # by scan window (\(w.groups) beacon-windows with two readings or more; \(w.singleReadings) single \(w.singleReadings == 1 ? "reading" : "readings") left out): σ within a window \(f(w.withinSigma)) dB,
        #   model error σ_m \(f(w.modelError)) dB (the window means' spread beyond their readings' noise: averaging does not remove it)
        """
    }

    /// The window dropout (``Calibration/Dropout``), as a comment line.
    static func dropoutLine(_ c: Calibration) -> String {
        let margin = Format.fixed(Calibration.Dropout.margin, 0)
        guard let d = c.dropout else {
            return "# window dropout: not measured (fewer than \(Calibration.Dropout.minimumWindows) windows with a beacon \(margin)σ above the floor)"
        }
        return "# window dropout \(f(d.rate, 3)): \(d.missed) of \(d.pairs) windows reported nothing of a beacon the law puts \(margin)σ above the floor"
    }

    public static func yaml(_ c: Calibration, file: String, recording r: Recording) -> String {
        let g = c.global
        var out = """
        # calibrate \(file) (\(r.info.name)): \(g.samples) RSSI samples with ground truth, \(c.threeDimensional ? "3-D" : "2-D") distances \(f(g.minDistance, 1))–\(f(g.maxDistance, 1)) m
        # least squares of RSSI on 10·log10(d)\(c.materials.isEmpty ? " (GSL gsl_fit_linear)" : " and the walls crossed per material (GSL gsl_multifit_linear)"); ± = one standard error
        #   P0 = \(f(g.p0)) ± \(f(g.p0Error)) dBm   n = \(f(g.exponent, 3)) ± \(f(g.exponentError, 3))   cov(P0, n) = \(Format.fixed(g.covariance, 5))
        #   σ = \(f(g.sigma)) dB (residual standard deviation, \(g.samples - 2 - c.materials.count) degrees of freedom)
        \(windowLines(c))
        \(dropoutLine(c))
        # stored in the recording now: P0 \(f(r.venue.radio.p0)), n \(f(r.venue.radio.exponent, 3)), σ \(f(r.venue.radio.sigma)), model error \(f(r.venue.radio.modelError)), sensitivity \(f(r.venue.radio.sensitivity)), dropout \(f(r.venue.radio.dropout, 3))
        radio:
          p0: \(f(g.p0))
          exponent: \(f(g.exponent, 3))
          sigma: \(f(c.windowSplit?.withinSigma ?? g.sigma))
          model_error: \(f(c.windowSplit?.modelError ?? 0))
        """
        if let floor = c.floor {
            let line = "\n  sensitivity: \(f(floor))"
            out += line.padding(toLength: max(line.count, 24), withPad: " ", startingAt: 0)
                + "  # the receiver's floor: the weakest reading (less half a dB when readings are whole dB)"
        }
        if let d = c.dropout { out += "\n  dropout: \(f(d.rate, 3))" }
        if !c.materials.isEmpty {
            out += "\n# wall loss per crossing, fitted jointly (--apply stores each on the recording's walls of that material)\nmaterials:"
            for m in c.materials {
                out += "\n  \(m.material): \(f(max(m.loss, 0)))".padding(toLength: 24, withPad: " ", startingAt: 0)
                    + "  # \(f(m.loss)) ± \(f(m.lossError)) dB, \(m.samples) samples cross one"
            }
        }
        if !c.beacons.isEmpty {
            out += "\n# per beacon: p0 with the exponent held at \(f(g.exponent, 3)); then the beacon's own fit (P0, n, σ)\nbeacons:\n"
            for b in c.beacons {
                var line = "  - {id: \(b.id), p0: \(f(b.p0AtGlobalExponent))}"
                line = line.padding(toLength: max(line.count, 36), withPad: " ", startingAt: 0)
                line += "  # ± \(f(b.p0AtGlobalExponentError)) dBm, \(b.samples) samples"
                if let own = b.fit {
                    line += "; own fit P0 \(f(own.p0)) ± \(f(own.p0Error)), n \(f(own.exponent)) ± \(f(own.exponentError)), σ \(f(own.sigma))"
                } else {
                    line += "; no spread in distance for an own fit"
                }
                out += line + "\n"
            }
            if !c.skippedBeacons.isEmpty {
                out += "# skipped (fewer than \(Calibration.minimumBeaconSamples) samples): \(c.skippedBeacons.joined(separator: ", "))\n"
            }
        } else {
            out += "\n"
        }
        return out.hasSuffix("\n") ? String(out.dropLast()) : out
    }
}
