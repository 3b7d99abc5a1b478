import Foundation
import Testing
import LabCore
import LabEvaluation
@testable import LabStore
import LabResults

/// A saved run read back: run.json's names and numbers, a rewrite that fails, √CRLB maps (LabPlotTests' BadInputTests: what
/// the plots do with bad input).
@Suite struct BadInputTests {
    /// A manifest's names become file names: '../x' (which read and wrote outside the directories) is refused with
    /// its field; a condition's label (`name@field`) is a name.
    @Test func manifestNamesThatAreNoFileNamesAreRefused() throws {
        let results = try Fixture.writeResults()
        defer { Fixture.cleanUp(results) }
        let path = results + "/run.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for (name, ok) in [("../trav", false), ("a/b", false), (".hidden", false), ("\(Fixture.scenarioName)@field", true)] {
            try text.replacingOccurrences(of: "\"\(Fixture.scenarioName)\"", with: "\"\(name)\"").write(toFile: path, atomically: true, encoding: .utf8)
            if ok {
                #expect(try RunManifest.read(directory: results).scenarios[0].name == name)
            } else {
                let e = try #require(throws: InputError.self) { try RunManifest.read(directory: results) }
                #expect(e.location.field == "scenarios[0].name" && e.message.contains("cannot name the files"), "\(e)")
            }
        }
    }

    /// A number of the wrong kind (a negative seed) is said to be one: swift-corelibs-foundation calls it "not valid JSON".
    @Test func aNumberThatDoesNotFitItsFieldIsSaidToBeOne() throws {
        let results = try Fixture.writeResults()
        defer { Fixture.cleanUp(results) }
        let path = results + "/run.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let seeds = try #require(text.range(of: #""seeds" : \[[^\]]*\]"#, options: .regularExpression))
        try text.replacingCharacters(in: seeds, with: #""seeds" : [-1]"#).write(toFile: path, atomically: true, encoding: .utf8)
        let e = try #require(throws: InputError.self) { try RunManifest.read(directory: results) }
        #expect(e.message.contains("a number that does not fit its field"), "\(e)")
    }

    /// A run written over an earlier one removes the earlier manifest first: when a later write fails, the directory
    /// does not look complete with this run's epochs under the earlier leaderboard.
    @Test func aFailedRewriteLeavesNoManifest() throws {
        let results = try Fixture.writeResults()
        defer { Fixture.cleanUp(results) }
        let map = results + "/" + RunManifest.boundMapFileName(Fixture.scenarioName)
        try FileManager.default.removeItem(atPath: map)
        try FileManager.default.createDirectory(atPath: map, withIntermediateDirectories: false)
        let manifest = try RunManifest.read(directory: results)
        #expect(throws: InputError(file: map, "is a directory; give a file name")) {
            try ResultsDirectory.write(results: Fixture.results(), boundMaps: [Fixture.scenarioName: BoundMapper.map(Fixture.scenario)],
                                       manifest: manifest, to: results)
        }
        #expect(!FileManager.default.fileExists(atPath: results + "/run.json"))
    }

    /// A √CRLB map the lab could not have written is refused with its field (a stranger's edits drew blank maps).
    @Test func boundMapsAreCheckedAgainstTheirShape() throws {
        let good = BoundMapper.map(Fixture.scenario)
        #expect(good.problem(scenario: Fixture.scenarioName) == nil)
        var cases: [(BoundMap, String)] = []
        var m = good; m.nx = 1_000_000; cases.append((m, "values"))
        m = good; m.nx = -61; cases.append((m, "nx"))
        m = good; m.nx = Int.max; m.ny = 2; cases.append((m, "values"))
        m = good; m.values = Array(good.values.prefix(100)); cases.append((m, "values"))
        m = good; m.values[3] = -1; cases.append((m, "values[3]"))
        m = good; m.values[4] = .nan; cases.append((m, "values[4]"))
        m = good; m.scenario = "smart-home"; cases.append((m, "scenario"))
        m = good; m.bounds.maxX = .infinity; cases.append((m, "bounds"))
        m = good; m.readingsPerBeacon = 0; cases.append((m, "readingsPerBeacon"))
        for (map, field) in cases { #expect(map.problem(scenario: Fixture.scenarioName)?.field == field, "\(field)") }
        let results = try Fixture.writeResults()
        defer { Fixture.cleanUp(results) }
        var bad = good; bad.values[0] = -1
        try LabJSON.encoder().encode(bad).write(to: URL(fileURLWithPath: results + "/" + RunManifest.boundMapFileName(Fixture.scenarioName)))
        let e = try #require(throws: InputError.self) { try ResultsDirectory.readBoundMap(directory: results, scenario: Fixture.scenarioName) }
        #expect(e.location.field == "values[0]" && e.message.contains("expected a √CRLB ≥ 0 m"), "\(e)")
    }
}
