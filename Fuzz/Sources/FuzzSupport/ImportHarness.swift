import Foundation
import LabCore
import LabScenarioIO
import LabStore

/// One fuzz run of an importer: the input's files are written under a fresh directory, `RecordingImporter`
/// imports them into a new recording, and a recording it writes must read back intact with the counts it
/// reported (nothing acknowledged and then lost). A failed import must leave no file behind.
public func fuzzImport(_ target: String, format: ImportFormat, input: UnsafeRawBufferPointer, allowed: Set<String>,
                       paths: (_ dir: String, _ files: [String]) -> [String],
                       options: (_ dir: String, _ files: [String]) throws -> ImportOptions) {
    let dir = Scratch.fresh("in")
    let out = Scratch.fresh("out")
    let files = splitFiles(input, allowed: allowed)
    for f in files { Scratch.write(f.bytes, to: dir + "/" + f.name) }
    let names = files.map(\.name)
    let destination = out + "/r.sqlite"
    var imported = false
    expectOnlyInputErrors(target) {
        let summary = try RecordingImporter.run(format: format, paths: paths(dir, names), to: destination,
                                                options: try options(dir, names))
        imported = true
        let r: Recording
        do { r = try RecordingStore.read(path: destination) } catch {
            finding(target, "the import succeeded but the recording does not read back: \(error)")
        }
        if r.rssi.count != summary.rssiSamples || r.truth.count != summary.truthSamples || r.headings.count != summary.headingSamples {
            finding(target, "the recording holds \(r.rssi.count)/\(r.truth.count)/\(r.headings.count) samples, the import reported \(summary.rssiSamples)/\(summary.truthSamples)/\(summary.headingSamples)")
        }
        _ = EpochBuilder(venue: r.venue.venue).epochs(r)
    }
    if !imported {
        let left = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
        if !left.isEmpty { finding(target, "a failed import left files behind: \(left)") }
    }
}
