import Foundation
import LabCore
import LabEstimators

/// A recording's baselines as a reviewable text file beside it: `NAME.baselines.json` next to `NAME.sqlite`,
/// so a pull request that moves a baseline shows the change line by line.
///
///     {
///       "baselines" : {
///         "centroid" : {
///           "mean" : { "tolerance" : 0.16, "value" : 1.61 },
///           …
///       "recording" : "open-hall-loop-seed1"
///     }
///
/// Keys are sorted, numbers are printed in their shortest exact form, so the same baselines give the same
/// bytes. When the file exists, `replay` checks against it rather than the baselines inside the recording;
/// `replay --update-baseline` writes both.
public enum BaselineFile {
    /// `dir/NAME.baselines.json` for `dir/NAME.sqlite` (any other extension is kept in the name).
    public static func path(forRecording recording: String) -> String {
        let url = URL(fileURLWithPath: recording)
        let base = url.pathExtension == "sqlite" ? url.deletingPathExtension() : url
        return base.path + ".baselines.json"
    }

    struct Entry: Codable { var value: Double; var tolerance: Double }
    struct Document: Codable {
        var recording: String
        var baselines: [String: [String: Entry]]
    }

    /// The baselines in `path`, or nil when there is no such file.
    /// - Parameter recording: the name of the recording beside it; a file naming another recording is refused
    ///   (a baselines file copied from elsewhere would gate the wrong figures).
    /// - Throws: ``InputError`` naming the file and the field for anything that is not a baseline.
    public static func read(path: String, recording: String? = nil) throws -> [Baseline]? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { throw InputError(file: path, "is a directory, not a baselines file") }
        guard let data = FileManager.default.contents(atPath: path) else { throw InputError(file: path, "cannot read the baselines file") }
        let doc: Document
        doc = try LabJSON.decode(Document.self, from: data, file: path, as: "a baselines file", decoder: JSONDecoder())
        if let recording, doc.recording != recording {
            throw InputError(file: path, field: "recording", "these baselines are of recording '\(abbreviated(doc.recording))', not of '\(abbreviated(recording))' beside them")
        }
        var out: [Baseline] = []
        for (e, metrics) in doc.baselines.sorted(by: { $0.key < $1.key }) {
            guard let estimator = EstimatorKind(rawValue: e) else {
                throw InputError(file: path, field: "baselines.\(abbreviated(e))", "unknown estimator '\(abbreviated(e))'\(didYouMean(e, among: EstimatorKind.allCases.map(\.rawValue)))")
            }
            for (m, entry) in metrics.sorted(by: { $0.key < $1.key }) {
                guard let metric = BaselineMetric(rawValue: m) else {
                    throw InputError(file: path, field: "baselines.\(e).\(abbreviated(m))", "unknown metric '\(abbreviated(m))'; known: \(BaselineMetric.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                let baseline = Baseline(estimator: estimator, metric: metric, value: entry.value, tolerance: entry.tolerance)
                if let problem = baseline.problem { throw InputError(file: path, field: "baselines.\(e).\(m)", problem) }
                out.append(baseline)
            }
        }
        return out
    }

    /// The file's text for `baselines` of the recording named `recording` (stable: sorted keys).
    public static func encode(_ baselines: [Baseline], recording: String) throws -> Data {
        var doc = Document(recording: recording, baselines: [:])
        for b in baselines { doc.baselines[b.estimator.rawValue, default: [:]][b.metric.rawValue] = Entry(value: b.value, tolerance: b.tolerance) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(doc) + Data("\n".utf8)
    }

    /// Writes `baselines` to `path` (atomically, through links).
    public static func write(_ baselines: [Baseline], recording: String, to path: String) throws {
        try OutputFile.write(try encode(baselines, recording: recording), to: path)
    }
}
