import Foundation
import Testing
import LabCore
import LabEstimators
import LabEvaluation
@testable import LabPlot
import LabScenarioIO
import LabStore
import LabResults

@Suite struct StandardFigureTests {
    /// Text each kind must carry in its SVG: axis labels with units, legend entries, title parts.
    static let expected: [FigureKind: (exact: [String], fragments: [String])] = [
        .cdf: (["horizontal error (m)", "fraction of fixes with error ≤ x", "P75", "centroid: no fixes"],
               ["test-hall — error CDF", "seeds 1–2", "fusion  P75 ", "least-squares  P75 "]),
        .map: (["x (m)", "y (m)", "true path", "beacon", "exhibit", "frieze", "QR checkpoint", "West room", "East room"],
               ["test-hall — walk 'loop', seed 1", "fusion (P75 ", "least-squares (P75 "]),
        .heatmap: (["x (m)", "y (m)", "mean error (m)", "beacon"], ["test-hall — fusion: mean error per test point", "seeds 1–2"]),
        .crlb: (["x (m)", "y (m)", "√CRLB (m)", "beacon", "QR checkpoint"], ["test-hall — √CRLB: 4 beacons, expected readings per window", "no seed"]),
        .leaderboard: (["P75 error (m)", "1. fusion (winner)", "test-hall", "no fixes", "✕"], ["Leaderboard — P75", "seeds 1–2"]),
        .errorTime: (["time (s)", "error (m)", "√PCRB bound (RMS 0.5 m)"],
                     ["test-hall — walk 'loop', seed 1: error over time", "fusion (RMSE "]),
        .track: (["x (m)", "y (m)", "true path", "beacon", "stated uncertainty (radius), every 2 s"],
                 ["test-hall — walk 'loop', seed 1: fusion's track, P75 ", "fusion, t 0–5 s", "fusion, t 26–31 s"]),
    ]

    @Test(arguments: [FigureKind.cdf, .map, .heatmap, .crlb, .leaderboard, .errorTime, .track])
    func eachKindRendersPNGAndSVGWithItsLabels(kind: FigureKind) throws {
        let results = try Fixture.writeResults()
        defer { Fixture.cleanUp(results) }
        let out = Fixture.temporaryDirectory("plots")
        defer { Fixture.cleanUp(out) }
        let plotter = try Fixture.plotter(results)
        let scenario: String? = kind.isPerScenario ? Fixture.scenarioName : nil
        let written = try plotter.draw(kind, scenario: scenario, outputDirectory: out)

        let base = kind.isPerScenario ? "\(out)/test-hall-\(kind.rawValue)" : "\(out)/\(kind.rawValue)"
        #expect(written == [base + ".png", base + ".svg"])
        #expect(isPNG(base + ".png"))
        let pngSize = (try FileManager.default.attributesOfItem(atPath: base + ".png")[.size] as? Int) ?? 0
        #expect(pngSize > 5_000 && pngSize < 200_000)
        // Nothing else in the directory: no temporary files left behind.
        #expect(filesIn(out) == [(base as NSString).lastPathComponent + ".png", (base as NSString).lastPathComponent + ".svg"])

        let svg = try String(contentsOfFile: base + ".svg", encoding: .utf8)
        #expect(svg.hasPrefix("<?xml") && svg.contains("<svg"))
        #expect(svg.contains("fill=\"#FFFFFF\""), "white background")
        let texts = try SVGText.strings(inFile: base + ".svg")
        let all = texts.joined(separator: "\n")
        let want = try #require(Self.expected[kind])
        for label in want.exact { #expect(texts.contains(label), "\(kind.rawValue): no text '\(label)' in \(texts)") }
        for fragment in want.fragments { #expect(all.contains(fragment), "\(kind.rawValue): no text containing '\(fragment)' in \(texts)") }
    }

    /// A run with a real protocol saves its epochs: the standard set draws its cdf (and nothing else, with a clear
    /// reason when asked for a floorplan figure); a manifest written before real protocols were saved still reads.
    @Test func realProtocolsGetTheirCDF() throws {
        let dir = Fixture.temporaryDirectory("real")
        defer { Fixture.cleanUp(dir) }
        let simulated = Fixture.results()
        // Here a real protocol's estimators are scored with the run's first seed only (the ones that do not draw).
        let real = simulated.filter { $0.seed == Fixture.seeds[0] }.map { r -> EpochResult in var r = r; r.scenario = "real-a"; return r }
        let board = Leaderboard(results: simulated + real, scenarios: [Fixture.scenarioName, "real-a"], seeds: Fixture.seeds, realProtocols: ["real-a"])
        let manifest = RunManifest(scenarios: [.init(name: Fixture.scenarioName, path: dir + "/\(Fixture.scenarioName).yaml")],
                                   real: [.init(name: "real-a", summary: "fitted on one part, scored on another")],
                                   seeds: Fixture.seeds, estimators: Fixture.estimators, leaderboard: board)
        try ResultsDirectory.write(results: simulated + real, boundMaps: [Fixture.scenarioName: BoundMapper.map(Fixture.scenario)],
                                   manifest: manifest, to: dir)
        #expect(try ResultsFile.read(path: dir + "/real-a-epochs.csv") == ResultsFile.decode(ResultsFile.encode(real), file: "real"))
        let out = Fixture.temporaryDirectory("real-plots")
        defer { Fixture.cleanUp(out) }
        let written = try Fixture.plotter(dir).drawStandardSet(outputDirectory: out, formats: [.svg])
        #expect(written.filter { $0.contains("real-a") } == [out + "/real-a-cdf.svg"])
        #expect(try SVGText.strings(inFile: out + "/real-a-cdf.svg").contains { $0.contains("real-a") && $0.contains("(real data)") })
        // A real protocol's epochs of a seed the run does not have are another run's (any of the run's seeds is its own:
        // the particle filters run with each).
        if let second = Fixture.seeds.dropFirst().first {
            let other = real.map { r -> EpochResult in var r = r; r.seed = second; return r }
            try ResultsFile.encode(real + other).write(toFile: dir + "/real-a-epochs.csv", atomically: true, encoding: .utf8)
            #expect(try Fixture.plotter(dir).results("real-a").count == 2 * real.count)
            let foreign = Fixture.seeds.max()! + 1000
            let stray = real.map { r -> EpochResult in var r = r; r.seed = foreign; return r }
            try ResultsFile.encode(stray).write(toFile: dir + "/real-a-epochs.csv", atomically: true, encoding: .utf8)
            let refused = try #require(throws: InputError.self) { try Fixture.plotter(dir).results("real-a") }
            #expect(refused.description.contains("holds seed \(foreign)"), "\(refused)")
            try ResultsFile.encode(real).write(toFile: dir + "/real-a-epochs.csv", atomically: true, encoding: .utf8)
        }
        let error = try #require(throws: InputError.self) { try Fixture.plotter(dir).figure(.track, scenario: "real-a") }
        #expect(error.description.contains("real protocol") && error.description.contains("only its cdf"), "\(error)")
        // An earlier run.json, without the key: no real protocols.
        let path = dir + "/" + RunManifest.fileName
        var json = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        json["real"] = nil
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        #expect(try RunManifest.read(directory: dir).real.isEmpty)
    }

    @Test func standardSetWritesEveryFigureOfTheRun() throws {
        let results = try Fixture.writeResults()
        defer { Fixture.cleanUp(results) }
        let out = Fixture.temporaryDirectory("set")
        defer { Fixture.cleanUp(out) }
        let written = try Fixture.plotter(results).drawStandardSet(outputDirectory: out)
        let names = ["leaderboard", "test-hall-cdf", "test-hall-map", "test-hall-heatmap", "test-hall-crlb", "test-hall-error-time", "test-hall-track"]
        #expect(written == names.flatMap { ["\(out)/\($0).png", "\(out)/\($0).svg"] })
        #expect(filesIn(out) == names.flatMap { ["\($0).png", "\($0).svg"] }.sorted())
        for path in written where path.hasSuffix(".png") { #expect(isPNG(path)) }
    }

    /// Error over time: one line per estimator (split where there is no fix, listed once), the bound under them;
    /// the track: six time spans that join up, one circle of the stated radius every few seconds (listed once).
    @Test func trackingFiguresHoldWhatTheResultsSay() throws {
        let rs = Fixture.results()
        let figure = try ResultFigures.errorOverTime(scenario: Fixture.scenario, results: rs, seed: 2, estimators: ["fusion", "centroid"])
        #expect(figure.series.filter(\.inLegend).map(\.label).map { $0.prefix(5) } == ["fusio", "centr", "√PCRB"])
        let fusion = rs.filter { $0.seed == 2 && $0.walk == "loop" && $0.estimator == .fusion }.sorted { $0.epoch < $1.epoch }
        #expect(figure.series[0].y == fusion.map { $0.error! })
        #expect(figure.series.last!.y.allSatisfy { $0 == 0.5 })
        let track = try ResultFigures.track(scenario: Fixture.scenario, results: rs, estimator: "fusion", seed: 2)
        let spans = track.paths.filter { $0.label.hasPrefix("fusion, t ") }
        #expect(spans.count == 6)
        #expect(zip(spans, spans.dropFirst()).allSatisfy { $0.points.last == $1.points.first }, "each span starts where the last ended")
        #expect(Set(spans.flatMap(\.points)) == Set(fusion.map { $0.fix! }))
        let circles = track.paths.filter { $0.label.hasPrefix("stated uncertainty") }
        #expect(circles.count == 16 && circles.filter(\.inLegend).count == 1, "32 s of walk, a circle every 2 s")
        #expect(circles.allSatisfy { c in abs(c.points[0].distance(to: c.points[18]) - 2) < 1e-9 }, "radius 1 m")
        #expect(circles.first?.style.color == ResultFigures.timeColors[0], "each outline in its time span's colour")
        // With a stated covariance, the 95% ellipse instead: semi-axes √(5.991·λ) along the eigenvectors.
        var stated = rs
        for i in stated.indices { stated[i].covariance = Covariance2(along: 4, across: 1, axis: Point(0.6, 0.8)) }
        let ellipses = try ResultFigures.track(scenario: Fixture.scenario, results: stated, estimator: "fusion", seed: 2).paths
            .filter { $0.label.hasPrefix("95% ellipse") }
        #expect(ellipses.count == 16)
        let fix = try #require(fusion.first?.fix)
        let outline = try #require(ellipses.first).points.map { $0 - fix }
        let major = outline.map { $0.x * 0.6 + $0.y * 0.8 }, minor = outline.map { -$0.x * 0.8 + $0.y * 0.6 }
        #expect(abs(major.max()! - (5.991 * 4).squareRoot()) < 0.01 && abs(minor.max()! - 5.991.squareRoot()) < 0.01,
                "\(major.max()!) \(minor.max()!)")
        // A walk must exist; the estimator must be in the results.
        var staticOnly = rs.filter { $0.walk == "grid" }
        #expect(throws: InputError(file: "results", "no walk in the results of 'test-hall' (static points only)")) {
            try ResultFigures.track(scenario: Fixture.scenario, results: staticOnly, estimator: "fusion")
        }
        staticOnly = rs
        #expect(throws: InputError(file: "results", "no results for estimator 'bearing' in 'test-hall'; estimators: least-squares, centroid, fusion")) {
            try ResultFigures.track(scenario: Fixture.scenario, results: staticOnly, estimator: "bearing")
        }
        // An estimator with no fix: the axis still holds the whole bound (it was cut at 1 m), and the track says so.
        var farBound = rs
        for i in farBound.indices where farBound[i].walk == "loop" { farBound[i].pcrb = 4 }
        let none = try ResultFigures.errorOverTime(scenario: Fixture.scenario, results: farBound, seed: 2, estimators: ["centroid"])
        #expect((none.yRange?.upperBound ?? 0) >= 2, "\(String(describing: none.yRange))")
        let empty = try ResultFigures.track(scenario: Fixture.scenario, results: rs, estimator: "centroid", seed: 2)
        #expect(empty.title.hasSuffix("centroid's track: no fix on this walk"), "\(empty.title)")
    }

    @Test func mapTakesTheChosenSeedWalkAndEstimators() throws {
        let results = try Fixture.writeResults()
        defer { Fixture.cleanUp(results) }
        let out = Fixture.temporaryDirectory("map")
        defer { Fixture.cleanUp(out) }
        _ = try Fixture.plotter(results).draw(.map, scenario: Fixture.scenarioName,
                                          options: PlotOptions(estimators: ["least-squares"], seed: 2, walk: "loop", formats: [.svg]),
                                          outputDirectory: out)
        let texts = try SVGText.strings(inFile: out + "/test-hall-map.svg")
        #expect(texts.joined().contains("seed 2"))
        #expect(texts.contains { $0.hasPrefix("least-squares (P75") })
        #expect(!texts.contains { $0.hasPrefix("fusion") })
        #expect(filesIn(out) == ["test-hall-map.svg"])
    }
}

@Suite struct BadInputTests {
    @Test func malformedResultsRowNamesFileAndLineAndWritesNothing() throws {
        var lines = ResultsFile.encode(Fixture.results()).split(separator: "\n").map(String.init)
        lines[3] = lines[3].replacingOccurrences(of: "least-squares", with: "least-squeres")
        let results = try Fixture.writeResults(csv: lines.joined(separator: "\n") + "\n")
        defer { Fixture.cleanUp(results) }
        let base = Fixture.temporaryDirectory("bad")
        defer { Fixture.cleanUp(base) }
        let out = base + "/Plots"
        for kind in [FigureKind.cdf, .map, .heatmap] {
            let error = try #require(throws: InputError.self) {
                try Fixture.plotter(results).draw(kind, scenario: Fixture.scenarioName, outputDirectory: out)
            }
            #expect(error.location.file.hasSuffix("test-hall-epochs.csv"))
            #expect(error.location.line == 4)
            #expect(error.description.contains("least-squeres"))
        }
        #expect(!FileManager.default.fileExists(atPath: out), "no output directory, no partial file")
    }

    @Test func missingResultsFileIsAClearErrorAndWritesNothing() throws {
        let results = try Fixture.writeResults()
        defer { Fixture.cleanUp(results) }
        try FileManager.default.removeItem(atPath: results + "/test-hall-epochs.csv")
        let out = Fixture.temporaryDirectory("missing")
        defer { Fixture.cleanUp(out) }
        let error = try #require(throws: InputError.self) {
            try Fixture.plotter(results).drawStandardSet(outputDirectory: out)
        }
        #expect(error.description.contains("test-hall-epochs.csv"))
        #expect(error.description.contains("cannot read"))
        #expect(filesIn(out).isEmpty, "the leaderboard must not be drawn before every input has been read")
    }

    @Test func missingManifestIsAClearError() throws {
        let dir = Fixture.temporaryDirectory("empty")
        defer { Fixture.cleanUp(dir) }
        let error = try #require(throws: InputError.self) { try Fixture.plotter(dir) }
        #expect(error.location.file == dir + "/run.json")
    }

    @Test func truncatedManifestIsAClearError() throws {
        let results = try Fixture.writeResults()
        defer { Fixture.cleanUp(results) }
        let path = results + "/run.json"
        let json = try Data(contentsOf: URL(fileURLWithPath: path))
        try json.prefix(json.count / 2).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: InputError.self) { try Fixture.plotter(results) }
        #expect(error.location.file == path)
        #expect(error.message.contains("not a valid run manifest"))
    }

    /// The leaderboard in run.json belongs to its run: edited figures (a negative P75 drew a blank chart, an empty
    /// ranking marked every estimator "no fixes") are refused with their field, and an epochs file from another run
    /// (other seeds) is not drawn under this run's leaderboard.
    @Test func aLeaderboardOrEpochsFromAnotherRunAreRefused() throws {
        let results = try Fixture.writeResults()
        defer { Fixture.cleanUp(results) }
        let path = results + "/run.json"
        let good = try RunManifest.read(directory: results)
        var edits: [(String, (inout RunManifest) -> Void)] = []
        edits.append(("leaderboard.scores[0].stats.p75", { $0.leaderboard.scores[0].stats.p75 = -5 }))
        edits.append(("leaderboard.overall", { $0.leaderboard.overall = [] }))
        edits.append(("leaderboard.seeds", { $0.leaderboard.seeds = [7] }))
        edits.append(("leaderboard.scenarios", { $0.leaderboard.scenarios = ["zzz"] }))
        edits.append(("leaderboard.scores[0].stats.availability", { $0.leaderboard.scores[0].stats.availability = 2 }))
        for (field, edit) in edits {
            var m = good
            edit(&m)
            try LabJSON.encoder().encode(m).write(to: URL(fileURLWithPath: path))
            let e = try #require(throws: InputError.self) { try RunManifest.read(directory: results) }
            #expect(e.location.field == field, "\(field): \(e)")
        }
        var other = good
        other.seeds = [7]
        other.leaderboard.seeds = [7]
        try LabJSON.encoder().encode(other).write(to: URL(fileURLWithPath: path))
        let e = try #require(throws: InputError.self) { try Fixture.plotter(results).results(Fixture.scenarioName) }
        #expect(e.description.contains("which the run (run.json) does not: seeds 7"), "\(e)")
    }

    @Test func unknownScenarioEstimatorOrSeedIsNamed() throws {
        let results = try Fixture.writeResults()
        defer { Fixture.cleanUp(results) }
        let plotter = try Fixture.plotter(results)
        let out = Fixture.temporaryDirectory("unknown")
        defer { Fixture.cleanUp(out) }
        let e1 = try #require(throws: InputError.self) { try plotter.draw(.cdf, scenario: "nowhere", outputDirectory: out) }
        #expect(e1.message.contains("no scenario 'nowhere'") && e1.message.contains("test-hall"))
        let e2 = try #require(throws: InputError.self) {
            try plotter.draw(.heatmap, scenario: Fixture.scenarioName, options: PlotOptions(estimator: "bearing"), outputDirectory: out)
        }
        #expect(e2.message.contains("'bearing'") && e2.message.contains("fusion"))
        let e3 = try #require(throws: InputError.self) {
            try plotter.draw(.map, scenario: Fixture.scenarioName, options: PlotOptions(seed: 99), outputDirectory: out)
        }
        #expect(e3.message.contains("seed 99"))
        #expect(filesIn(out).isEmpty)
    }

    @Test func unwritableOutputThrowsAndLeavesNothing() throws {
        let dir = Fixture.temporaryDirectory("blocked")
        defer { Fixture.cleanUp(dir) }
        let blocker = dir + "/not-a-directory"
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        let figure = CDFFigure(title: "t", series: [.init(label: "a", errors: [1, 2, 3], style: .cycle(0))])
        #expect(throws: PlotError(path: blocker, "cannot create the output directory: \(blocker) is not a directory")) {
            try PlotRenderer.shared.render(figure, to: blocker + "/cdf")
        }
        #expect(filesIn(dir) == ["not-a-directory"])
    }

    /// A field with one value, or none to scale, still gets at least two colour bands (PLplot colours band i of n
    /// at i / (n − 1): one band was NaN and a warning per cell); the √CRLB map's +∞ (no 2-D fix) is drawn grey and
    /// named in the legend, with no colour bar when nothing is finite (a one-beacon venue).
    @Test func degenerateFieldsGetAtLeastTwoBandsAndNoFixIsGrey() {
        let grid = ScalarField.Layout.grid(Rect(minX: 0, minY: 0, maxX: 10, maxY: 10), nx: 3, ny: 3)
        for values in [[Double](repeating: 2, count: 9), [Double](repeating: .infinity, count: 9),
                       [Double](repeating: .nan, count: 9), [0, 0, 0, 0, 0, 0, 0, 0, 0]] {
            let (range, _, edges) = ScalarField(layout: grid, values: values, label: "m").colorRange
            #expect(edges.count >= 3 && range.lowerBound < range.upperBound, "\(values): \(edges)")
            #expect(edges.allSatisfy { $0.isFinite })
        }
        let map = BoundMap(scenario: Fixture.scenarioName, bounds: Rect(minX: 0, minY: 0, maxX: 10, maxY: 10), nx: 3, ny: 3,
                           values: [1, 2, .infinity, 1, 2, 3, 1, 2, 3], readingsPerBeacon: 10, model: "test")
        let figure = ResultFigures.crlb(scenario: Fixture.scenario, map: map)
        #expect(figure.field?.values.filter(\.isNaN).count == 1)
        #expect(figure.legendEntries.contains { $0.text == "no 2-D fix from the beacons heard" })
        #expect(figure.field?.hasColors == true)
        let none = ResultFigures.crlb(scenario: Fixture.scenario, map: BoundMap(scenario: Fixture.scenarioName, bounds: map.bounds, nx: 3, ny: 3,
                                      values: [Double](repeating: .infinity, count: 9), readingsPerBeacon: 10, model: "test"))
        #expect(none.field?.hasColors == false)
        // One unbounded corner among 200 nodes stays a value above the scale: no grey speck, no legend entry.
        let corner = ResultFigures.crlb(scenario: Fixture.scenario, map: BoundMap(scenario: Fixture.scenarioName, bounds: map.bounds, nx: 20, ny: 10,
                                        values: [.infinity] + [Double](repeating: 1.5, count: 199), readingsPerBeacon: 10, model: "test"))
        #expect(corner.field?.values.contains(where: \.isNaN) == false)
        #expect(!corner.legendEntries.contains { $0.text == "no 2-D fix from the beacons heard" })
    }

    /// A track with a 10⁷ m stated radius and times near 10¹⁹ s (an estimator gone wild, an edited results file)
    /// draws in a moment: the room names' obstacles sample only the part of a line inside the floorplan (the
    /// ellipse was sampled every 7 cm over its 60,000 km, asking for terabytes), and time labels no longer trap
    /// converting 10¹⁹ to an integer.
    @Test func aWildTrackDrawsWithoutCrashingOrExhaustingMemory() throws {
        var rs = Fixture.results().filter { $0.estimator == .fusion && $0.seed == Fixture.seeds[0] }
        for i in rs.indices where rs[i].walk == "loop" {
            rs[i].t += 1e19
            if i % 5 == 0 { rs[i].uncertainty = 1e7 }
        }
        let figure = try ResultFigures.track(scenario: Fixture.scenario, results: rs, estimator: "fusion", seed: Fixture.seeds[0], walk: "loop")
        let out = Fixture.temporaryDirectory("wild")
        defer { Fixture.cleanUp(out) }
        let written = try PlotRenderer.shared.render(figure, to: out + "/wild", formats: [.svg])
        #expect(written == [out + "/wild.svg"])
        #expect(FloorplanFigure.clipped(Point(-1e7, 4), Point(1e7, 4), to: Rect(minX: 0, minY: 0, maxX: 12, maxY: 8)).map { $0.0.x == 0 && $0.1.x == 12 } == true)
        #expect(FloorplanFigure.clipped(Point(-5, -5), Point(-1, -1), to: Rect(minX: 0, minY: 0, maxX: 12, maxY: 8)) == nil)
        #expect(FloorplanFigure.clipped(Point(.infinity, 0), Point(1, 1), to: Rect(minX: 0, minY: 0, maxX: 12, maxY: 8)) == nil)
    }

    /// The CDF legend's share of fixes never rounds a miss up to 100%, nor a few fixes down to 0%.
    @Test func fixShareNeverRoundsUpToAHundred() {
        #expect(CDFFigure.fixShare(97, of: 100) == "97")
        #expect(CDFFigure.fixShare(2, of: 3) == "67")
        #expect(CDFFigure.fixShare(997, of: 1000) == "99.7")
        #expect(CDFFigure.fixShare(99_999, of: 100_000) == "99.9")
        #expect(CDFFigure.fixShare(5, of: 5) == "100")
        #expect(CDFFigure.fixShare(1, of: 201) == "<1")
        #expect(CDFFigure.fixShare(0, of: 7) == "0")
        #expect(CDFFigure.fixShare(0, of: 0) == "0")
    }
}

@Suite struct RendererTests {
    @Test func concurrentCallersAllGetCompleteFigures() async throws {
        let out = Fixture.temporaryDirectory("concurrent")
        defer { Fixture.cleanUp(out) }
        let paths = try await withThrowingTaskGroup(of: [String].self) { group in
            for i in 0..<6 {
                group.addTask {
                    let errors = (0..<200).map { Double(($0 * 37 + i * 11) % 97) / 10 }
                    let f = CDFFigure(title: "figure \(i)", series: [.init(label: "series \(i)", errors: errors, style: .cycle(i))])
                    return try PlotRenderer.shared.render(f, to: "\(out)/f\(i)")
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(paths.count == 12)
        for i in 0..<6 {
            #expect(isPNG("\(out)/f\(i).png"))
            #expect(try SVGText.strings(inFile: "\(out)/f\(i).svg").contains("figure \(i)"), "each file holds its own figure")
        }
    }

    @Test func hashInTextIsDrawnLiterally() throws {
        let out = Fixture.temporaryDirectory("hash")
        defer { Fixture.cleanUp(out) }
        let f = LineFigure(title: "room #3", xLabel: "x (m)", yLabel: "y (m)",
                           series: [.init(label: "run #1", x: [0, 1], y: [0, 1], style: .cycle(0))])
        try PlotRenderer.shared.render(f, to: out + "/hash", formats: [.svg])
        let texts = try SVGText.strings(inFile: out + "/hash.svg")
        #expect(texts.contains("room #3"))
        #expect(texts.contains("run #1"))
    }

    static let calibrationPoints: [(x: Double, y: Double)] = (1...40).map { i in
        let x = Double(i) / 20
        let y: Double = -59 - 22 * x + Double(i % 5)
        return (x: x, y: y)
    }

    @Test func laterKindsHaveTheirFigureTypesReady() throws {
        let out = Fixture.temporaryDirectory("later")
        defer { Fixture.cleanUp(out) }
        let calibration = ScatterFitFigure(title: "smart-home — calibration (seed 1)", xLabel: "log10(distance / 1 m)", yLabel: "RSSI (dBm)",
                                           points: Self.calibrationPoints,
                                           pointsLabel: "readings", fit: (slope: -22, intercept: -57), fitLabel: "fit: n = 2.2")
        let beacons = LineFigure(title: "open-hall — P75 vs beacon count (seeds 1–10)", xLabel: "beacons", yLabel: "P75 error (m)",
                                 series: [.init(label: "least-squares", x: [3, 4, 6, 8], y: [4, 3, 2.2, 1.6], style: .cycle(0))],
                                 referenceLines: [.init(.horizontal, at: 2, label: "target 2 m", inLegend: true)])
        try PlotRenderer.shared.render(calibration, to: FigureKind.calibration.basePath(directory: out, scenario: "smart-home"))
        try PlotRenderer.shared.render(beacons, to: FigureKind.beaconCount.basePath(directory: out, scenario: "open-hall"))
        #expect(filesIn(out) == ["open-hall-beacon-count.png", "open-hall-beacon-count.svg", "smart-home-calibration.png", "smart-home-calibration.svg"])
        let texts = try SVGText.strings(inFile: out + "/smart-home-calibration.svg")
        #expect(texts.contains("RSSI (dBm)") && texts.contains("fit: n = 2.2") && texts.contains("readings"))
        #expect(try SVGText.strings(inFile: out + "/open-hall-beacon-count.svg").contains("target 2 m"))
    }
}

@Suite struct NamingTests {
    @Test func outputNamesArePredictable() {
        #expect(FigureKind.cdf.basePath(directory: "Plots", scenario: "open-hall") == "Plots/open-hall-cdf")
        #expect(FigureKind.crlb.basePath(directory: "Plots/", scenario: "museum-gallery") == "Plots/museum-gallery-crlb")
        #expect(FigureKind.leaderboard.basePath(directory: "Plots", scenario: "open-hall") == "Plots/leaderboard")
        #expect(FigureKind.beaconCount.basePath(directory: "out", scenario: "esoc-office") == "out/esoc-office-beacon-count")
    }

    @Test func seedsAreDescribedCompactly() {
        #expect(SeedText.describe([3]) == "seed 3")
        #expect(SeedText.describe([1, 2, 3, 4]) == "seeds 1–4")
        #expect(SeedText.describe([9, 1, 4]) == "seeds 1, 4, 9")
        #expect(SeedText.describe(Array(stride(from: 1, to: 40, by: 3))) == "13 seeds")
    }

    /// Bars are told apart by colour alone: when two shown estimators share a palette colour (past ten the palette
    /// cycles: ekf and weighted-centroid), the lower-ranked one takes a free colour.
    @Test func leaderboardBarsHaveDistinctColours() {
        let kinds: [EstimatorKind] = [.ekf, .particleFilter, .offsetLearning, .weightedCentroid, .powerCentroid]
        let stats = ErrorStatistics(errors: [1, 2, 3], attempts: 3)
        let scores = kinds.map { ScenarioScore(scenario: "s", estimator: $0, stats: stats, roomHitRate: nil, exhibitHitRate: nil,
                                               friezeHitRate: nil, crlbRMSE: nil, efficiency: nil) }
        let overall = kinds.map { Leaderboard.Overall(estimator: $0, meanP75: 2.5, minAvailability: 1, meanRMSE: 2, eligible: true) }
        let board = Leaderboard(scenarios: ["s"], seeds: [1], scores: scores, overall: overall, winner: .ekf, rule: "")
        #expect(ResultFigures.style(forEstimator: "ekf").color == ResultFigures.style(forEstimator: "weighted-centroid").color)
        let colours = ResultFigures.leaderboard(board).series.map(\.color)
        #expect(Set(colours).count == kinds.count)
        #expect(colours[0] == ResultFigures.style(forEstimator: "ekf").color, "the better-ranked keeps its own colour")
    }

    @Test func everyRegisteredEstimatorHasItsOwnStyle() {
        let styles = EstimatorKind.allCases.map { ResultFigures.style(forEstimator: $0.rawValue) }
        #expect(styles.count == EstimatorRegistry.all.count)
        let distinct = Set(styles.map { "\($0.color) \(String(describing: $0.line)) \(String(describing: $0.marker))" })
        #expect(distinct.count == styles.count, "every estimator has its own colour, line and marker combination")
        // The first ten registered estimators each get a colour of their own.
        #expect(Set(styles.prefix(10).map(\.color)).count == min(10, styles.count))
    }
}
