import LabCore
import LabPlanning

/// The planner's figures: the predicted and simulated error against the beacon count, and the planned
/// layout's per-point P90 over the floorplan.
public enum PlanningFigures {
    /// `<scenario>-beacon-count`: the coverage quantile of the per-point P90 errors for each count tried,
    /// predicted by the bound and simulated with `estimator`, with the target and the chosen count.
    public static func beaconCount(scenario s: Scenario, result: Planner.Result, options o: Planner.Options) -> LineFigure {
        let counts = result.steps.map { Double($0.count) }
        let simulated = result.steps.filter { $0.simulated != nil }
        var series = [LineFigure.Series(label: "predicted (CRLB)", x: counts, y: result.steps.map { min($0.predicted.areaQuantile, 1e3) },
                                        style: SeriesStyle(color: PlotColor.palette[0], line: .longDash, marker: .circle))]
        if !simulated.isEmpty {
            series.append(.init(label: "simulated (\(o.estimator.rawValue))", x: simulated.map { Double($0.count) },
                                y: simulated.map { min($0.simulated!.areaQuantile, 1e3) },
                                style: SeriesStyle(color: PlotColor.palette[1], line: .solid, marker: .square)))
        }
        let finite = (result.steps.map(\.predicted.areaQuantile) + simulated.map { $0.simulated!.areaQuantile }).filter(\.isFinite)
        let target = o.targetP90
        // Keep the region around the target readable: the axis stops at 4× the target (lines run off the top).
        let top = min(max((finite.max() ?? target) * 1.1, target * 1.5), target * 4)
        return LineFigure(
            title: "\(s.name) — P90 over \(Format.fixed(o.coverage * 100, 0))% of the walkable area vs beacon count (seed \(o.seed))",
            xLabel: "number of beacons", yLabel: "area P90 error (m)", series: series,
            referenceLines: [.init(.horizontal, at: target, label: "target \(Format.metres(target)) m", color: .ink, style: .shortDash, inLegend: true)]
                + (result.met ? [.init(.vertical, at: Double(result.chosen.count), label: "chosen: \(result.chosen.count) beacons",
                                       color: PlotColor.palette[2], style: .solid, width: 1, inLegend: true)] : []),
            yRange: 0...top, legend: .insideTopRight)
    }

    /// `<scenario>-plan-map`: the floorplan with the planned beacons and the simulated P90 at each point.
    public static func planMap(scenario s: Scenario, beacons: [Beacon], result: Planner.Result, options o: Planner.Options) -> FloorplanFigure {
        var planned = s
        planned.beacons = beacons
        let cells = PlanningGeometry.walkablePoints(s, spacing: o.pointSpacing)
        let field = ScalarField(layout: .cells(centres: cells, size: o.pointSpacing),
                                values: result.chosenPerPointP90.map { $0.isFinite ? $0 : .infinity },
                                label: "P90 error (m)", missingLabel: nil)
        return FloorplanFigure(title: "\(s.name) — planned \(beacons.count) beacons: P90 error per point (seed \(o.seed))",
                               floorplan: Floorplan(scenario: planned), field: field)
    }
}
