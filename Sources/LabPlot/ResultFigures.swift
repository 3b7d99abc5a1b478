import Foundation
import LabCore
import LabEstimators
import LabStore
import LabEvaluation
import LabResults

/// The lab's standard figures built from saved results (`compare --out`): data in, figure specs out.
/// Nothing here recomputes a metric; the only model input is the √CRLB field, which the caller computes.
public enum ResultFigures {
    /// Estimators always get the same colour, line and marker, in every figure: the style of their place
    /// in ``EstimatorRegistry/all`` (the palette has a colour for each of the first ten). A name that is not
    /// registered gets a style from its hash.
    public static func style(forEstimator name: String) -> SeriesStyle {
        if let k = EstimatorKind(rawValue: name) { return .cycle(k.index) }
        let h = name.unicodeScalars.reduce(0) { ($0 &* 31 &+ Int($1.value)) & 0xFFFF }
        return .cycle(h)
    }

    /// Names in registry order (unregistered names last, alphabetically).
    static func sortedEstimators(_ names: some Sequence<String>) -> [String] {
        Array(Set(names)).sorted {
            (EstimatorKind(rawValue: $0)?.index ?? Int.max, $0) < (EstimatorKind(rawValue: $1)?.index ?? Int.max, $1)
        }
    }

    // MARK: cdf

    /// Error CDF of each estimator on one scenario, all epochs (walks and test grid) of all seeds pooled,
    /// as in the leaderboard.
    /// - Parameter estimators: which estimators, in legend order; nil: every estimator in the results.
    /// - Throws: ``InputError`` (naming `file`) when the results hold none of the requested estimators.
    public static func cdf(scenario: String, results: [EpochResult], estimators: [String]? = nil,
                           file: String = "results", real: Bool = false) throws -> CDFFigure {
        let mine = results.filter { $0.scenario == scenario }
        let byEstimator = Dictionary(grouping: mine, by: { $0.estimator.rawValue })
        let names = try pick(estimators, available: byEstimator.keys, file: file, scenario: scenario)
        let series = names.map { n in
            let rs = byEstimator[n] ?? []
            return CDFFigure.Series(label: n, errors: rs.compactMap(\.error), attempts: rs.count, style: style(forEstimator: n))
        }
        let seeds = Set(mine.map(\.seed))
        let walks = mine.contains { $0.walk != "grid" }, grid = mine.contains { $0.walk == "grid" }
        let epochs = walks && grid ? "walks + test grid" : grid ? "test grid" : "walks"
        // Real data (`real`: a recording scored under a protocol) has no seeds to tell, and its rows do not say whether
        // its truth is a walk or a survey of static spots (UJI's is a survey).
        let source = real ? "real data" : "\(SeedText.describe(Array(seeds))), \(epochs)"
        return CDFFigure(title: "\(scenario) — error CDF per estimator (\(source))", series: series)
    }

    // MARK: map

    /// The floorplan with one walk's true path (from the scenario's waypoints) and the fixes of each
    /// estimator along it, for one seed.
    /// - Parameters:
    ///   - seed: nil: the smallest seed in the results.
    ///   - walk: nil: the scenario's first walk that has results.
    ///   - estimators: nil: `defaultEstimators`.
    public static func map(scenario s: Scenario, results: [EpochResult], seed: UInt64? = nil, walk: String? = nil,
                           estimators: [String]? = nil, defaultEstimators: [String] = ["least-squares"],
                           file: String = "results") throws -> FloorplanFigure {
        let (mine, seed, walkName) = try selectWalk(scenario: s.name, walks: s.walks.map(\.name), results: results, seed: seed, walk: walk, file: file)
        var paths: [FloorplanFigure.Path] = []
        var title = "\(s.name) — floorplan"
        if let walkName {
            let onWalk = mine.filter { $0.seed == seed && $0.walk == walkName }.sorted { $0.epoch < $1.epoch }
            let byEstimator = Dictionary(grouping: onWalk, by: { $0.estimator.rawValue })
            var wanted = estimators ?? defaultEstimators.filter { byEstimator[$0] != nil }
            if wanted.isEmpty, let first = sortedEstimators(byEstimator.keys).first { wanted = [first] }
            let names = try pick(wanted, available: byEstimator.keys, file: file, scenario: s.name, keepOrder: true)
            var drawn: [(names: [String], fixes: [Point?], suffix: String, index: Int)] = []
            for n in names {
                let rs = byEstimator[n] ?? []
                let all = rs.map(\.fix)
                // Estimators that gave exactly the same fixes share one path (e.g. fusion without headings).
                if let k = drawn.firstIndex(where: { $0.fixes == all }) {
                    drawn[k].names.append(n)
                    paths[drawn[k].index].label = drawn[k].names.joined(separator: " = ") + drawn[k].suffix
                    continue
                }
                let fixes = all.compactMap { $0 }
                // Fixes: thin solid line, the estimator's colour and marker (the marker tells them apart).
                var st = style(forEstimator: n)
                st.line = .solid
                st.lineWidth = 1
                st.markerScale = 0.45
                let errors = SortedSample(rs.compactMap(\.error))
                var notes: [String] = []
                if !errors.isEmpty { notes.append("P75 \(String(format: "%.1f", errors.quantile(0.75))) m") }
                if fixes.count < rs.count { notes.append("\(rs.count - fixes.count) no fix") }
                let suffix = notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")"
                drawn.append(([n], all, suffix, paths.count))
                // The first-named estimator (the winner by default) is drawn on top of the others.
                paths.append(.init(label: n + suffix, points: fixes, style: st, layer: names.count - paths.count))
            }
            // The epochs' truth (the walked path: rounded turns, pauses), from the first estimator's rows.
            let truth = onWalk.filter { $0.estimator.rawValue == names.first }.map(\.truth)
            // The truth goes on top of the fixes so the reader can follow it, with its start marked.
            paths.append(.init(label: "true path", points: truth, style: SeriesStyle(color: .black, line: .solid, lineWidth: 2.5),
                               layer: 1000))
            if let start = truth.first {
                paths.append(.init(label: "start", points: [start],
                                   style: SeriesStyle(color: .black, line: nil, marker: .openCircle, markerScale: 1.3), layer: 1001))
            }
            title = "\(s.name) — walk '\(walkName)', seed \(seed): true path and fixes"
        }
        return FloorplanFigure(title: title, floorplan: Floorplan(scenario: s), paths: paths)
    }

    /// The results of one scenario, and the seed and walk a per-walk figure shows.
    /// - Parameters:
    ///   - walks: the scenario's walks in order (nil `walk`: the first with results).
    ///   - seed: nil: the smallest seed in the results.
    /// - Returns: the walk is nil when the results hold no walk (static points only).
    static func selectWalk(scenario: String, walks: [String], results: [EpochResult], seed: UInt64?, walk: String?,
                           file: String) throws -> (results: [EpochResult], seed: UInt64, walk: String?) {
        let mine = results.filter { $0.scenario == scenario }
        guard !mine.isEmpty else { throw InputError(file: file, "no results for scenario '\(scenario)'") }
        let seeds = Set(mine.map(\.seed)).sorted()
        let seed = seed ?? seeds[0]
        guard seeds.contains(seed) else {
            throw InputError(file: file, "no results for seed \(seed) in '\(scenario)'; seeds: \(seeds.map(String.init).joined(separator: ", "))")
        }
        let walksInResults = Set(mine.map(\.walk)).subtracting(["grid"])
        if let walk {
            guard walksInResults.contains(walk) else {
                throw InputError(file: file, "no results for walk '\(walk)' in '\(scenario)'; walks: \(walksInResults.sorted().joined(separator: ", "))")
            }
            return (mine, seed, walk)
        }
        return (mine, seed, walks.first(where: walksInResults.contains) ?? walksInResults.sorted().first)
    }

    // MARK: error over time

    /// The error of each estimator along one walk (one seed), over time, under the walk's posterior bound √PCRB
    /// (the least RMS error any tracker can reach there, docs/tracking.md). Gaps are epochs without a fix.
    /// - Throws: ``InputError`` when the results hold no walk, or none of the requested estimators.
    public static func errorOverTime(scenario s: Scenario, results: [EpochResult], seed: UInt64? = nil, walk: String? = nil,
                                     estimators: [String]? = nil, defaultEstimators: [String] = [],
                                     file: String = "results") throws -> LineFigure {
        let (mine, seed, walkName) = try selectWalk(scenario: s.name, walks: s.walks.map(\.name), results: results, seed: seed, walk: walk, file: file)
        guard let walkName else { throw InputError(file: file, "no walk in the results of '\(s.name)' (static points only)") }
        let onWalk = mine.filter { $0.seed == seed && $0.walk == walkName }.sorted { $0.epoch < $1.epoch }
        let byEstimator = Dictionary(grouping: onWalk, by: { $0.estimator.rawValue })
        var wanted = estimators ?? defaultEstimators.filter { byEstimator[$0] != nil }
        if wanted.isEmpty { wanted = sortedEstimators(byEstimator.keys) }
        let names = try pick(wanted, available: byEstimator.keys, file: file, scenario: s.name, keepOrder: true)
        var series: [LineFigure.Series] = []
        for n in names {
            let rs = byEstimator[n] ?? []
            var st = style(forEstimator: n)
            st.line = .solid; st.lineWidth = 1.2; st.marker = nil
            let errors = rs.compactMap(\.error)
            let rmse = errors.isEmpty ? Double.nan : (errors.reduce(0) { $0 + $1 * $1 } / Double(errors.count)).squareRoot()
            let label = n + (errors.isEmpty ? " (no fix)" : " (RMSE \(String(format: "%.1f", rmse)) m)")
            // A gap where there is no fix: the line is split into runs of consecutive fixes, listed once.
            var runs: [[EpochResult]] = [[]]
            for r in rs { if r.error == nil { if !runs[runs.count - 1].isEmpty { runs.append([]) } } else { runs[runs.count - 1].append(r) } }
            for (k, run) in runs.enumerated() where !run.isEmpty || k == 0 {
                series.append(.init(label: label, x: run.map(\.t), y: run.map { $0.error! }, style: st,
                                    inLegend: k == 0))
            }
        }
        let bound = (byEstimator[names.first ?? ""] ?? []).filter { $0.pcrb?.isFinite == true }
        if !bound.isEmpty {
            let b = bound.map { $0.pcrb! }
            let rms = (b.reduce(0, +) / Double(b.count)).squareRoot()
            series.append(.init(label: "√PCRB bound (RMS \(String(format: "%.1f", rms)) m)", x: bound.map(\.t), y: b.map { $0.squareRoot() },
                                style: SeriesStyle(color: .black, line: .shortDash, lineWidth: 2)))
        }
        let shown = Set(names)
        // Up to nearly every error shown, and the whole bound.
        let boundTop = bound.map { $0.pcrb!.squareRoot() }.max() ?? 0
        let top = max(1, boundTop, SortedSample(onWalk.filter { shown.contains($0.estimator.rawValue) }.compactMap(\.error)).quantile(0.995))
        return LineFigure(title: "\(s.name) — walk '\(walkName)', seed \(seed): error over time", xLabel: "time (s)",
                          yLabel: "error (m)", series: series, yRange: 0...Axis.niceCeil(top * 1.05))
    }

    // MARK: track

    /// Sequential colours from dark blue to yellow-green (viridis), legible on the light floor: the time bins
    /// of a track.
    static let timeColors: [PlotColor] = [0x440154, 0x3B528B, 0x21918C, 0x27AD81, 0x5DC863, 0xAADC32].map { PlotColor(hex: $0) }

    /// One estimator's fixes along one walk on the floorplan, the path coloured by time (six equal spans, so a long
    /// tour stays readable), with its stated uncertainty every few seconds — the 95% ellipse of the fix's
    /// covariance, or a circle of its radius when the estimator states no covariance — and the true path.
    public static func track(scenario s: Scenario, results: [EpochResult], estimator: String, seed: UInt64? = nil,
                             walk: String? = nil, file: String = "results") throws -> FloorplanFigure {
        let (mine, seed, walkName) = try selectWalk(scenario: s.name, walks: s.walks.map(\.name), results: results, seed: seed, walk: walk, file: file)
        guard let walkName else { throw InputError(file: file, "no walk in the results of '\(s.name)' (static points only)") }
        let onWalk = mine.filter { $0.seed == seed && $0.walk == walkName }
        let available = Set(onWalk.map(\.estimator.rawValue))
        _ = try pick([estimator], available: available, file: file, scenario: s.name)
        let rs = onWalk.filter { $0.estimator.rawValue == estimator }.sorted { $0.epoch < $1.epoch }
        let fixed = rs.filter { $0.fix != nil }
        guard let t0 = rs.first?.t, let t1 = rs.last?.t else { throw InputError(file: file, "no epochs on walk '\(walkName)'") }
        var paths: [FloorplanFigure.Path] = []
        paths.append(.init(label: "true path", points: rs.map(\.truth), style: SeriesStyle(color: .black, line: .shortDash, lineWidth: 1.5),
                           layer: 900))
        // Time bins: each a path of the fixes in it, joined to the previous bin's last fix.
        let bins = timeColors.count
        let span = max(t1 - t0, 1e-9)
        guard span.isFinite else { throw InputError(file: file, "walk '\(walkName)' spans \(t0) to \(t1) s: not a walk's times") }
        var previous: Point?
        for b in 0..<bins {
            let lo = t0 + span * Double(b) / Double(bins), hi = t0 + span * Double(b + 1) / Double(bins)
            let inBin = fixed.filter { $0.t >= lo && ($0.t < hi || b == bins - 1) }.map { $0.fix! }
            guard !inBin.isEmpty else { continue }
            let points = (previous.map { [$0] } ?? []) + inBin
            previous = inBin.last
            paths.append(.init(label: "\(estimator), t \(Format.fixed(lo, 0))–\(Format.fixed(hi, 0)) s", points: points,
                               style: SeriesStyle(color: timeColors[b], line: .solid, lineWidth: 1.8, marker: .circle, markerScale: 0.35),
                               layer: 100 + b))
        }
        // The stated uncertainty every `every` seconds (about 40 over the walk, at a round interval): the 95% ellipse
        // of the fix's covariance when the estimator states one, else a circle of its radius. Each in its time
        // span's colour.
        let every = [2.0, 5, 10, 15, 20, 30, 60, 120, 300].first { span / $0 <= 40 } ?? 600
        let stated = fixed.filter { $0.covariance != nil }.count
        let label = stated == fixed.count ? "95% ellipse of the stated covariance, every \(Int(every)) s"
            : stated == 0 ? "stated uncertainty (radius), every \(Int(every)) s"
            : "95% ellipse of the stated covariance (radius without one), every \(Int(every)) s"
        var next = t0, listed = false
        for r in fixed where r.t >= next {
            guard let c = r.fix, let outline = uncertaintyOutline(r) else { continue }
            next = r.t + every
            let b = Int(min(max(Double(bins) * (r.t - t0) / span, 0), Double(bins - 1)))
            paths.append(.init(label: label, points: outline.map { c + $0 },
                               style: SeriesStyle(color: timeColors[b], line: .solid, lineWidth: 0.8),
                               layer: 50, inLegend: !listed))
            listed = true
        }
        let errors = SortedSample(rs.compactMap(\.error))
        let p75 = errors.isEmpty ? ": no fix on this walk" : ", P75 \(String(format: "%.1f", errors.quantile(0.75))) m"
        return FloorplanFigure(title: "\(s.name) — walk '\(walkName)', seed \(seed): \(estimator)'s track\(p75)",
                               floorplan: Floorplan(scenario: s), paths: paths)
    }

    /// The outline of a fix's stated uncertainty about the fix, 36 segments: the 95% ellipse of its covariance
    /// at the stated level (semi-axes √(5.991·λ) along the eigenvectors) or, without one, the circle of its radius; nil when the result
    /// states neither usably.
    static func uncertaintyOutline(_ r: EpochResult) -> [Point]? {
        let axes: (Point, Point)
        if let c = r.covariance {
            guard let (a, b, u) = c.ellipse(chiSquare: UncertaintyCoverage.chiSquare), a > 0, a.isFinite else { return nil }
            axes = (u * a, Point(-u.y, u.x) * b)
        } else {
            guard let radius = r.uncertainty, radius.isFinite, radius > 0 else { return nil }
            axes = (Point(radius, 0), Point(0, radius))
        }
        return (0...36).map { k in
            let t = Double(k) / 36 * 2 * .pi
            return axes.0 * cos(t) + axes.1 * sin(t)
        }
    }

    // MARK: heatmap

    /// One estimator's mean error at each static test point (walk "grid"), over all seeds, as cells.
    public static func heatmap(scenario s: Scenario, results: [EpochResult], estimator: String,
                               file: String = "results") throws -> FloorplanFigure {
        let mine = results.filter { $0.scenario == s.name && $0.walk == "grid" }
        guard !mine.isEmpty else {
            throw InputError(file: file, "no static test-point results (walk 'grid') for scenario '\(s.name)'")
        }
        let available = Set(mine.map { $0.estimator.rawValue })
        guard available.contains(estimator) else {
            throw InputError(file: file, "no results for estimator '\(estimator)' in '\(s.name)'; estimators: \(sortedEstimators(available).joined(separator: ", "))")
        }
        let rs = mine.filter { $0.estimator.rawValue == estimator }
        struct Key: Hashable { var x: Int64, y: Int64 }
        func key(_ p: Point) -> Key { Key(x: Int64((p.x * 1000).rounded()), y: Int64((p.y * 1000).rounded())) }
        var groups: [Key: (p: Point, sum: Double, n: Int)] = [:]
        for r in rs {
            var g = groups[key(r.truth)] ?? (r.truth, 0, 0)
            if let e = r.error { g.sum += e; g.n += 1 }
            groups[key(r.truth)] = g
        }
        let cells = groups.values.sorted { ($0.p.y, $0.p.x) < ($1.p.y, $1.p.x) }
        let centres = cells.map(\.p)
        let values = cells.map { $0.n > 0 ? $0.sum / Double($0.n) : .nan }
        let field = ScalarField(layout: .cells(centres: centres, size: cellSize(centres) ?? s.testGridSpacing),
                                values: values, label: "mean error (m)", missingLabel: "no fix in any seed")
        let seeds = Set(rs.map(\.seed))
        return FloorplanFigure(title: "\(s.name) — \(estimator): mean error per test point (\(SeedText.describe(Array(seeds))))",
                               floorplan: Floorplan(scenario: s), field: field)
    }

    /// Spacing of a square grid of points: the smallest positive gap between distinct x or y values.
    static func cellSize(_ points: [Point]) -> Double? {
        func gap(_ v: [Double]) -> Double? {
            let u = Array(Set(v.map { ($0 * 1000).rounded() / 1000 })).sorted()
            return zip(u, u.dropFirst()).map { $1 - $0 }.filter { $0 > 1e-6 }.min()
        }
        return [gap(points.map(\.x)), gap(points.map(\.y))].compactMap { $0 }.min()
    }

    // MARK: crlb

    /// √CRLB over the floorplan from a saved ``BoundMap`` (metres, √ of trace(F⁻¹)); grey where the beacons
    /// expected to be heard give no 2-D fix (the map's +∞) over at least 1% of the map. A few such nodes (a
    /// corner on the bounds) take the top colour instead, as values above the scale: a grey speck would only
    /// add a legend entry with nothing to see.
    public static func crlb(scenario s: Scenario, map: BoundMap) -> FloorplanFigure {
        let unbounded = map.values.filter { $0 == .infinity }.count
        let values = Double(unbounded) >= 0.01 * Double(map.values.count) ? map.values.map { $0 == .infinity ? Double.nan : $0 } : map.values
        let field = ScalarField(layout: .grid(map.bounds, nx: map.nx, ny: map.ny), values: values, label: "√CRLB (m)",
                                missingLabel: "no 2-D fix from the beacons heard")
        let beacons = "\(s.beacons.count) beacon\(s.beacons.count == 1 ? "" : "s")"
        return FloorplanFigure(
            title: "\(s.name) — √CRLB: \(beacons), expected readings per window (model bound, no seed)",
            floorplan: Floorplan(scenario: s), field: field)
    }

    // MARK: leaderboard

    /// Above this many result labels, the simulated scenarios are grouped by condition (mean P75).
    public static let leaderboardMaximumCategories = 8
    /// Above this many estimators, the figure shows the best ranked (the table in `compare` has them all).
    public static let leaderboardMaximumEstimators = 8

    /// P75 per estimator per scenario as grouped bars, estimators in leaderboard order. A run with many labels
    /// (both conditions, real protocols) shows the mean P75 of the simulated scenarios per condition, then each
    /// real protocol; a run with many estimators shows the best ranked.
    /// - Parameter simulatedLabels: the labels that are simulated scenarios (the rest are real protocols).
    public static func leaderboard(_ board: Leaderboard, simulatedLabels: Set<String>? = nil) -> BarFigure {
        func p75(_ label: String, _ name: String) -> Double? {
            board.scores.first { $0.scenario == label && $0.estimator.rawValue == name }.map(\.stats.p75)
        }
        // Categories: each label, or (many labels) one per simulated condition and one per real protocol.
        var categories: [(name: String, labels: [String])] = board.scenarios.map { ($0, [$0]) }
        var grouped = ""
        if board.scenarios.count > leaderboardMaximumCategories {
            let simulated = board.scenarios.filter { simulatedLabels?.contains($0) ?? !$0.contains("@") }
            let field = board.scenarios.filter { $0.hasSuffix("@field") }
            let ideal = simulated.filter { !field.contains($0) }
            grouped = "ideal, field: mean of \(max(ideal.count, field.count)) simulated scenarios; "
            categories = [("ideal", ideal), ("field", field)]
                .filter { !$0.labels.isEmpty }
                + board.scenarios.filter { !simulated.contains($0) && !field.contains($0) }.map { ($0, [$0]) }
        }
        let ranked = board.overall.map { $0.estimator.rawValue }
        let shown = ranked.prefix(leaderboardMaximumEstimators)
        // Bars tell estimators apart by colour alone: each keeps its own colour (as in every other figure) unless a
        // better-ranked one shown has it already (past ten estimators the palette cycles), then takes the first free one.
        var taken = Set<PlotColor>()
        let colors = shown.map { name -> PlotColor in
            let own = style(forEstimator: name).color
            let c = taken.contains(own) ? (PlotColor.palette.first { !taken.contains($0) } ?? own) : own
            taken.insert(c)
            return c
        }
        let series = shown.enumerated().map { i, name in
            BarFigure.Series(label: "\(i + 1). \(name)" + (board.winner?.rawValue == name ? " (winner)" : ""),
                             values: categories.map { c -> Double? in
                                 let v = c.labels.map { p75($0, name) }
                                 // A mean over labels needs every one of them to have a finite P75.
                                 guard v.allSatisfy({ $0?.isFinite ?? false }) else { return c.labels.count == 1 ? v[0] : nil }
                                 return v.compactMap { $0 }.reduce(0, +) / Double(v.count)
                             },
                             color: colors[i], shortLabel: name)
        }
        // One far-off estimator must not flatten the rest: cut the axis at 1.5 × the 90th percentile.
        let values = series.flatMap { $0.values.compactMap(BarFigure.value) }.sorted()
        let p90 = SortedSample(alreadySorted: values).quantile(0.9)
        let yMax = (values.last ?? 1) > 1.6 * p90 ? Axis.niceCeil(1.5 * p90) : nil
        let top = shown.count < ranked.count ? "the \(shown.count) best of \(ranked.count), " : ""
        return BarFigure(title: "Leaderboard — P75 horizontal error (\(grouped)\(top)\(SeedText.describe(board.seeds)); lower is better)",
                         yLabel: "P75 error (m)", categories: categories.map(\.name), series: series, yMax: yMax,
                         missingLabel: "no fixes")
    }

    // MARK: helpers

    static func pick(_ requested: [String]?, available: some Collection<String>, file: String, scenario: String,
                     keepOrder: Bool = false) throws -> [String] {
        let have = Set(available)
        guard let requested else { return sortedEstimators(have) }
        let missing = requested.filter { !have.contains($0) }
        if !missing.isEmpty {
            throw InputError(file: file, "no results for estimator\(missing.count > 1 ? "s" : "") \(missing.map { "'\($0)'" }.joined(separator: ", ")) in '\(scenario)'; estimators: \(sortedEstimators(have).joined(separator: ", "))")
        }
        var seen = Set<String>()
        let unique = requested.filter { seen.insert($0).inserted }
        return keepOrder ? unique : sortedEstimators(unique)
    }
}
