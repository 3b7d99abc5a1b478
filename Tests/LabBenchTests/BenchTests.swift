import Testing
@testable import LabBench

/// The benchmark's bookkeeping (never a time): which figures a pattern selects, and a figure's median and spread.
@Suite struct BenchTests {
    @Test func aPatternMatchesWholeNamesWithStarsForAnyText() {
        #expect(LabBenchmark.nameMatches("IndoorLocator fixes/s", "IndoorLocator fixes/s"))
        #expect(LabBenchmark.nameMatches("indoorlocator FIXES/S", "IndoorLocator fixes/s"), "case-insensitively")
        #expect(!LabBenchmark.nameMatches("IndoorLocator fixes/s", "IndoorLocator fixes/s [2 cores]"), "the whole name")
        #expect(LabBenchmark.nameMatches("IndoorLocator fixes/s*", "IndoorLocator fixes/s [2 cores]"))
        #expect(LabBenchmark.nameMatches("*offset-free*", "fixes/s [offset-free, 2 cores]"))
        #expect(LabBenchmark.nameMatches("fixes/s [offset-free]", "fixes/s [offset-free]"), "brackets are plain text")
        #expect(!LabBenchmark.nameMatches("*free*less*", "fixes/s [offset-free]"), "the parts in their order")
    }

    @Test func aMeasuredFigureIsItsMedianRoundWithTheSlowestAndFastest() {
        let odd = BenchFigure(name: "f", measured: .init(rounds: [30, 10, 20], units: [3, 1, 2]), unit: "u/s", target: nil, note: "")
        #expect(odd.value == 20 && odd.lowest == 10 && odd.highest == 30 && odd.rounds == 3)
        #expect(odd.units == [3, 1, 2])
        let even = BenchFigure(name: "f", measured: .init(rounds: [40, 10, 20, 30], units: [1, 1, 1, 1]), unit: "u/s", target: nil, note: "")
        #expect(even.value == 25, "the mean of the two middle rounds (the lab's linear quantile)")
    }
}
