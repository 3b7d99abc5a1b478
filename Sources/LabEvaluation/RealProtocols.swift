import Foundation
import LabCore
import LabEstimators
import LabStore
import LabResults

/// Real recordings in the tournament, each scored under a protocol whose radio model comes from a **different**
/// part of the data than the one scored — the situation of every deployment, where the phone that meets the
/// beacons is not the one they were calibrated with.
///
/// A protocol fits the path-loss law (P0, n, σ, and each beacon's P0 at that n) on its calibration part
/// (``Calibration``), gives the scored part's venue that model and a survey (``SurveyMap``) of the calibration
/// part for fingerprinting, and scores the scored part's epochs that heard at least ``minimumBeaconsHeard``
/// beacon. The bound is the offset-aware one: the scored phone's offset is unknown.
public struct RealProtocol: Sendable {
    /// The label its results carry, e.g. `uji-tx-12`.
    public var name: String
    /// What is calibrated on what, in words.
    public var summary: String
    public var calibration: Recording
    public var scored: Recording
    /// The same scored part with the matching calibration (fitted on itself): the reference a cross-calibrated
    /// result is compared with, not part of the winner rule.
    public var matched: Bool { calibration.info.name == scored.info.name }
    /// Whether the calibration part's survey goes to the scored venue as a radio map (``RadioMapFit``): the protocol's
    /// `-surveyed` reference.
    public var surveyed = false
    /// The estimators the surveyed references run: the library's two (the stream's particle filter and the one-scan
    /// fix), the particle smoother and the ekf, which read a venue's radio map. (Every model-based fit reads it; fingerprint
    /// has the survey itself either way.)
    public static let mapReaders: [EstimatorKind] = [.particleFilter, .particleSmoother, .offsetLearning, .ekf]

    /// Scans with fewer beacons heard are not scored: every scan that heard a beacon is, so an estimator's availability is
    /// the share of those it answered (a tracker answers each; a one-scan fix those whose readings determine a position).
    public static let minimumBeaconsHeard = 1
    /// Which scans are scored, in words.
    public static let scoredScans = "every scan that heard a beacon scored"

    public init(name: String, summary: String, calibration: Recording, scored: Recording) {
        self.name = name; self.summary = summary; self.calibration = calibration; self.scored = scored
    }

    /// The scored venue with the calibration part's radio model and survey.
    public func calibratedVenue() throws -> Venue {
        var fit = RadioFit(try Calibration(calibration, perBeacon: true), fittedOn: calibration.info.name)
        if surveyed {
            let map = try RadioMapFit(calibration, fit: fit)
            fit.radioMap = RadioMapFile(map, beaconIDs: calibration.venue.beacons.map(\.id))
        }
        let venue = fit.applied(to: scored.venue, readings: scored.rssi)
        var v = venue.venue
        let calibrationVenue = calibration.venue.venue
        let survey = EpochBuilder(venue: calibrationVenue).epochs(calibration).epochs
        // The survey's beacon columns follow the scored venue's beacon order (matched by id).
        let scoredIndex = calibration.venue.beacons.map { venue.beaconIndex(id: $0.id) }
        let remapped = survey.map { e -> Epoch in
            var e = e
            e.readings = e.readings.compactMap { r in scoredIndex[r.beacon].map { RSSIReading(beacon: $0, t: r.t, rssi: r.rssi) } }
            return e
        }
        v.survey = SurveyMap(epochs: remapped, beaconCount: v.beaconCount)
        return v
    }

    /// Every estimator of `kinds` on the scored epochs, labelled with the protocol's name, over `seeds` as a simulated
    /// scenario's seeds are (`compare --seed --seeds`): the estimators that draw (``EstimatorInputs/draws``, the particle
    /// filters) once per seed, their venue seeded with it; the others, whose fixes no seed changes, once, labelled with
    /// the first seed. A statistic pools whatever seeds an estimator has, so the particle filter's figures on real data
    /// are its average over the run's seeds, not one seed's luck. The seeds run on all cores; the calibration is fitted once.
    public func run(estimators kinds: [EstimatorKind], seeds: [UInt64]) throws -> [EpochResult] {
        guard let first = seeds.first else { return [] }
        let venue = try calibratedVenue()
        let epochs = EpochBuilder(venue: venue).epochs(scored).epochs.filter {
            Set($0.readings.map(\.beacon)).count >= RealProtocol.minimumBeaconsHeard
        }
        // Real data: the offset is unknown, and the calibration's σ and model error are all the noise model there
        // is (no outlier rate is known apart from them), so the bound is the Gaussian one with the offset unknown,
        // the model error counted like a beacon spread (it does not average down within a scan).
        let bound = CramerRaoBound(venue: venue, offset: .unknown, beaconSpread: venue.radio.modelError)
        let drawing = kinds.filter(\.inputs.draws)
        let jobs = [(first, kinds)] + seeds.dropFirst().map { ($0, drawing) }.filter { !$0.1.isEmpty }
        let slots = ResultSlots<EpochResult>(count: jobs.count)
        let name = self.name
        DispatchQueue.concurrentPerform(iterations: jobs.count) { j in
            let (seed, estimators) = jobs[j]
            var seeded = venue
            seeded.seed = seed
            slots.fill(j) { Tournament.evaluate(epochs: epochs, venue: seeded, estimators: estimators, scenario: name, seed: seed, bound: bound) }
        }
        return try slots.values().flatMap { $0 }
    }

    /// ``run(estimators:seeds:)`` with one seed.
    public func run(estimators kinds: [EstimatorKind], seed: UInt64) throws -> [EpochResult] {
        try run(estimators: kinds, seeds: [seed])
    }
}

/// The bundled protocols over the two real datasets of `../shared/datasets` (imported on the fly into
/// `scratch`, a directory the caller removes).
public enum RealProtocols {
    /// What a UJI protocol's summary adds: its scans are the surveyor's walk through the reference points, standing at each.
    static let surveyWalk = " (one walk per Tx power, standing about 13 scans at each reference point)"

    /// Whether `datasets` holds either dataset ``bundled(datasets:scratch:includeMatched:)`` reads (checked before a
    /// tournament runs, not after).
    public static func present(in datasets: String) -> Bool {
        if FileManager.default.fileExists(atPath: datasets + "/uji-ble-geo/dep/geo.csv") { return true }
        let tracks = (try? FileManager.default.contentsOfDirectory(atPath: datasets + "/danis-ble-tracks/trk")) ?? []
        return tracks.contains { $0.hasSuffix("_all_sensors.mbd") }
    }

    /// UJI Geotec, with its obstacles (shelves, pillars) as walls: calibrated at Tx −4 dBm, scored at −12 and −20 dBm (an
    /// unknown offset of about 8 and 16 dB); and at −4 dBm, calibrated on the even reference points and scored on the odd
    /// ones.
    /// Daniş: calibrated on two tracks, scored on the other two, both ways round. With `includeMatched`, also
    /// UJI at −12 and −20 dBm calibrated on themselves (``RealProtocol/matched``), the reference of the target.
    public static func bundled(datasets: String, scratch: String, includeMatched: Bool = false) throws -> [RealProtocol] {
        var out: [RealProtocol] = []
        let uji = datasets + "/uji-ble-geo"
        if FileManager.default.fileExists(atPath: uji + "/dep/geo.csv") {
            func importUJI(_ tx: Int) throws -> Recording {
                let path = scratch + "/uji-tx\(tx).sqlite"
                // With the shelves and pillars as walls: the calibration fits each material's loss with P0 and n.
                var options = ImportOptions(txPower: tx, created: Date(timeIntervalSince1970: 0))
                options.obstacles = true
                try RecordingImporter.run(format: .uji, paths: [uji], to: path, options: options)
                return try RecordingStore.read(path: path)
            }
            let strong = try importUJI(-4)
            for tx in [-12, -20] {
                let weak = try importUJI(tx)
                out.append(RealProtocol(name: "uji-tx\(tx)", summary: "UJI Geotec: model fitted at −4 dBm, scored at −\(abs(tx)) dBm" + RealProtocols.surveyWalk,
                                        calibration: strong, scored: weak))
                if includeMatched {
                    out.append(RealProtocol(name: "uji-tx\(tx)-matched", summary: "UJI Geotec: model fitted and scored at −\(abs(tx)) dBm (reference)",
                                            calibration: weak, scored: weak))
                }
            }
            let (even, odd) = strong.splitByReferencePoint()
            out.append(RealProtocol(name: "uji-odd-points", summary: "UJI Geotec −4 dBm: model fitted on the even reference points, scored on the odd ones" + RealProtocols.surveyWalk,
                                    calibration: even, scored: odd))
        }
        let danis = datasets + "/danis-ble-tracks/trk"
        let tracks = ((try? FileManager.default.contentsOfDirectory(atPath: danis)) ?? []).filter { $0.hasSuffix("_all_sensors.mbd") }.sorted()
        if tracks.count >= 2 {
            func importDanis(_ names: [String], _ label: String) throws -> Recording {
                let path = scratch + "/danis-\(label).sqlite"
                try RecordingImporter.run(format: .danis, paths: names.map { danis + "/" + $0 }, to: path,
                                          options: ImportOptions(name: "danis-\(label)", created: Date(timeIntervalSince1970: 0)))
                return try RecordingStore.read(path: path)
            }
            let half = tracks.count / 2
            let a = try importDanis(Array(tracks[..<half]), "a"), b = try importDanis(Array(tracks[half...]), "b")
            out.append(RealProtocol(name: "danis-a-to-b", summary: "Daniş: model fitted on \(tracks[..<half].joined(separator: ", ")), scored on the others",
                                    calibration: a, scored: b))
            out.append(RealProtocol(name: "danis-b-to-a", summary: "Daniş: model fitted on \(tracks[half...].joined(separator: ", ")), scored on the others",
                                    calibration: b, scored: a))
        }
        return out
    }
}

extension Recording {
    /// The recording split by reference point: the distinct truth positions in order of first appearance,
    /// even-numbered ones in the first part, odd ones in the second; each sample goes with its scan window's truth.
    public func splitByReferencePoint() -> (even: Recording, odd: Recording) {
        let builder = EpochBuilder(venue: venue.venue)
        var pointIndex: [Point: Int] = [:]
        var windowParity: [Int: Int] = [:]
        for s in truth {
            let k = pointIndex[s.position] ?? { let n = pointIndex.count; pointIndex[s.position] = n; return n }()
            windowParity[builder.windowIndex(s.t)] = k % 2
        }
        func part(_ parity: Int, _ suffix: String) -> Recording {
            var r = self
            r.info.name += suffix
            r.truth = truth.filter { windowParity[builder.windowIndex($0.t)] == parity }
            r.rssi = rssi.filter { windowParity[builder.windowIndex($0.t)] == parity }
            r.headings = headings.filter { windowParity[builder.windowIndex($0.t)] == parity }
            r.baselines = []
            return r
        }
        return (part(0, "-even"), part(1, "-odd"))
    }
}

/// The real datasets' protocols of one tournament (`compare --real DIR`): the protocols it scores, the matched
/// references (the same scans scored with a model fitted on themselves) and the surveyed ones (with the calibration
/// part's survey as a radio map), which are printed beside them but are not part of the winner rule.
public struct RealProtocolSet: Sendable {
    /// The protocols the tournament scores.
    public var scored: [RealProtocol]
    /// The matched references.
    public var matched: [RealProtocol]

    /// The bundled protocols of the datasets in `datasets`, imported through a scratch folder of their own, removed after.
    public init(datasets: String) throws {
        let scratch = NSTemporaryDirectory() + "indoorlab-real-\(ProcessInfo.processInfo.processIdentifier)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let all = try RealProtocols.bundled(datasets: datasets, scratch: scratch, includeMatched: true)
        scored = all.filter { !$0.matched }
        matched = all.filter(\.matched)
        surveyed = scored.map { p in
            var s = p
            s.name += "-surveyed"; s.summary += ", with the calibration part's survey as a radio map"; s.surveyed = true
            return s
        }
    }

    /// Each scored protocol with its calibration part's survey as a radio map (``RealProtocol/surveyed``), printed beside it.
    public var surveyed: [RealProtocol]

    /// Every estimator of `estimators` on every protocol: those that draw random numbers once per seed of `seeds`,
    /// the others once (``RealProtocol/run(estimators:seeds:)``). `progress` hears each scored protocol's name as it
    /// starts.
    public func run(estimators: [EstimatorKind], seeds: [UInt64], progress: (String) -> Void = { _ in })
        throws -> (results: [EpochResult], references: [(name: String, results: [EpochResult])]) {
        var references = try matched.map { (name: $0.name, results: try $0.run(estimators: estimators, seeds: seeds)) }
        let readers = estimators.filter(RealProtocol.mapReaders.contains)
        if !readers.isEmpty {
            references += try surveyed.map { (name: $0.name, results: try $0.run(estimators: readers, seeds: seeds)) }
        }
        var results: [EpochResult] = []
        for p in scored {
            progress(p.name)
            results += try p.run(estimators: estimators, seeds: seeds)
        }
        return (results, references)
    }
}
