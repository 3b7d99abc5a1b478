import Foundation
import LabCore
import LabStore

/// Replay verdicts as JUnit XML, the format CI systems (GitLab, Jenkins, GitHub test reporters) display:
/// one `<testsuite>` per recording, one `<testcase>` per estimator × metric baseline (a `<failure>` when it
/// regressed), and in strict mode one `strict` test case per recording.
public enum JUnitReport {
    public struct Suite: Sendable {
        public var file: String
        public var result: RecordingReplay.Result
        /// Strict-mode problems (empty when strict mode is off or nothing is wrong).
        public var strictProblems: [String]
        public var strict: Bool
        public init(file: String, result: RecordingReplay.Result, strict: Bool, strictProblems: [String]) {
            self.file = file; self.result = result; self.strict = strict; self.strictProblems = strictProblems
        }
    }

    public static func xml(_ suites: [Suite]) -> String {
        var body = ""
        var totalTests = 0, totalFailures = 0
        for s in suites {
            var cases = ""
            var tests = 0, failures = 0
            for c in s.result.checks {
                tests += 1
                let name = "\(c.estimator.rawValue) \(c.metric.rawValue)"
                let now = c.now.map { Format.number($0) } ?? "none"
                cases += "    <testcase classname=\"\(escape(s.result.recording.name))\" name=\"\(escape(name))\">\n"
                if c.status == .regression {
                    failures += 1
                    let message = "\(c.metric.rawValue) \(now) against baseline \(Format.number(c.baseline)) ± \(Format.number(c.tolerance))"
                    cases += "      <failure message=\"\(escape(message))\" type=\"regression\">\(escape(message))</failure>\n"
                }
                cases += "    </testcase>\n"
            }
            if s.strict {
                tests += 1
                cases += "    <testcase classname=\"\(escape(s.result.recording.name))\" name=\"strict: baselines checked, the shipped estimators among them\">\n"
                if !s.strictProblems.isEmpty {
                    failures += 1
                    let message = s.strictProblems.joined(separator: "; ")
                    cases += "      <failure message=\"\(escape(message))\" type=\"strict\">\(escape(message))</failure>\n"
                }
                cases += "    </testcase>\n"
            }
            totalTests += tests; totalFailures += failures
            body += "  <testsuite name=\"\(escape(s.file))\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\">\n" + cases + "  </testsuite>\n"
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuites name=\"indoorlab replay\" tests=\"\(totalTests)\" failures=\"\(totalFailures)\" errors=\"0\">\n" + body + "</testsuites>\n"
    }

    /// XML text and attribute escaping; control characters XML 1.0 cannot carry become U+FFFD.
    static func escape(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(u)
            default: out.unicodeScalars.append(u.value < 0x20 ? "\u{FFFD}" : u)
            }
        }
        return out
    }
}
