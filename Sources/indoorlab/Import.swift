import ArgumentParser
import Foundation
import LabCore
import LabEstimators
import LabEvaluation
import LabScenarioIO
import LabStore
import LabReport

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import recorded readings (the lab's CSV, the UJI or the Daniş dataset) into a new recording.",
        discussion: """
        Formats (docs/recordings.md has the details):
          lab-csv  PATH = a directory with beacons.csv
                   (id,x,y[,height,p0,uuid,major,minor]), readings.csv
                   (t,beacon,rssi), truth.csv (t,x,y[,z,source]) and
                   optionally headings.csv (t,heading[,accuracy,frieze,target])
                   and steps.csv (t,length,heading[,length_accuracy,
                   heading_accuracy]: the phone's step detector);
                   --scenario gives the venue (bounds, radio, rooms, walls, landmarks).
          uji      PATH = the UJI BLE RSS dataset directory (dep/, rss/);
                   one Tx power per recording (--tx-power).
          danis    PATH… = one or more *_all_sensors.mbd tracks; the 12
                   fixed receivers become the anchors.

        All or nothing: a bad row (reported with file, line and field) leaves no recording behind, and an existing FILE is never overwritten. Exit 2 on bad input.

        Example:
          indoorlab import --format danis \\
              ../shared/datasets/danis-ble-tracks/trk/*.mbd -o out/danis.sqlite
        """)

    @Option(help: "lab-csv, uji or danis.")
    var format: String

    @Argument(help: "Input directory or files (see above).")
    var paths: [String]

    @Option(name: .shortAndLong, help: "The recording to create (must not exist).")
    var output: String

    @Option(help: "Recording name (default: from the input).")
    var name: String?

    @Option(help: "Free-text notes stored with the recording.")
    var notes: String = ""

    @Option(help: "lab-csv: scenario (file or bundled name) giving the venue: bounds, radio, rooms, walls, landmarks.")
    var scenario: String?

    @Option(parsing: .unconditional, help: "Scan window in seconds: the epoch length of replay (default: the scenario's, else 1).")
    var scanWindow: Double?

    @Option(parsing: .unconditional, help: "Radio model P0 (dBm at 1 m) to store (default: the scenario's, else -59; 'calibrate' fits it).")
    var p0: Double?

    @Option(parsing: .unconditional, help: "Path-loss exponent to store (default: the scenario's, else 2).")
    var exponent: Double?

    @Option(parsing: .unconditional, help: "Shadowing σ in dB to store (default: the scenario's, else 4).")
    var sigma: Double?

    @Option(parsing: .unconditional, help: "uji: the Tx power to import, dBm: -4, -12 or -20 (default: -4).")
    var txPower: Int?

    @Flag(help: "uji: also import the obstacle polygons (obs/geo.csv: shelves and pillars) as walls of material shelf or pillar, at 0 dB until 'calibrate --apply' fits each material's loss.")
    var obstacles = false

    @Option(help: "danis: the configuration directory with tetam.dev and tetam.par (default: ../cnf next to the tracks).")
    var config: String?

    func validate() throws {
        guard ImportFormat(rawValue: format) != nil else {
            throw ValidationError("unknown format '\(format)'; known: \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        // The ranges a scenario's radio block takes, so a recording is never written that cannot be read back.
        func check(_ value: Double?, _ option: String, _ range: ClosedRange<Double>, _ unit: String) throws {
            if let value, let p = Format.outside(range, value, unit: unit) { throw ValidationError("--\(option): \(p)") }
        }
        try check(scanWindow, "scan-window", WorkBudget.scanWindowRange, "s")
        try check(exponent, "exponent", RadioModel.plausibleExponent, "")
        try check(sigma, "sigma", RadioModel.plausibleSigma, "dB")
        try check(p0, "p0", RadioModel.plausibleP0, "dBm")
        try checkRecordingName(name)
        if scenario != nil && format != ImportFormat.labCSV.rawValue { throw ValidationError("--scenario applies to lab-csv only") }
        if obstacles && format != ImportFormat.uji.rawValue { throw ValidationError("--obstacles applies to uji only") }
        if let txPower {
            guard format == ImportFormat.uji.rawValue else { throw ValidationError("--tx-power applies to uji only") }
            guard ImportFormat.ujiTxPowers.contains(txPower) else {
                throw ValidationError("--tx-power must be one of UJI's Tx powers, \(ImportFormat.ujiTxPowers.map(String.init).joined(separator: ", ")) dBm; found \(txPower)")
            }
        }
        if config != nil && format != ImportFormat.danis.rawValue { throw ValidationError("--config applies to danis only") }
    }

    func run() throws {
        let fmt = ImportFormat(rawValue: format)!
        let s = try scenario.map { try loadScenario($0) }
        var options = ImportOptions(name: name, notes: notes, scanWindow: scanWindow, p0: p0, exponent: exponent, sigma: sigma,
                                    scenario: s, txPower: txPower ?? -4, configDirectory: config, created: try creationDate())
        options.obstacles = obstacles
        let start = DispatchTime.now().uptimeNanoseconds
        let summary = try reportingInputErrors {
            try RecordingImporter.run(format: fmt, paths: paths, to: output, options: options)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print(RecordingSummaryText.line(summary))
        print("imported in \(Format.fixed(seconds, 2)) s (\(Bench.human(Double(summary.rssiSamples) / max(seconds, 1e-9))) readings/s)")
    }
}
