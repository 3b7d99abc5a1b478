import Foundation
import Testing
import LabCore
@testable import LabEstimators

/// The registry is the one list of estimators: these tests catch an entry that is missing, repeated or
/// does not describe itself.
@Suite struct EstimatorRegistryTests {
    @Test func namesAreUniqueKebabCaseWithASummary() {
        let names = EstimatorRegistry.all.map { $0.name }
        #expect(Set(names).count == names.count, "names repeat: \(names)")
        for t in EstimatorRegistry.all {
            #expect(t.name.range(of: "^[a-z]+(-[a-z]+)*$", options: .regularExpression) != nil, "\(t.name) is not kebab-case")
            #expect(!t.summary.isEmpty && !t.summary.hasSuffix("."), "\(t.name): a one-line summary without a final period")
            #expect(!t.inputs.uses.isEmpty, "\(t.name) uses no input")
            #expect(t.inputs.minimumBeacons > 0 || t.inputs.minimumHeadings != nil, "\(t.name) can never fix")
        }
    }

    @Test(arguments: EstimatorKind.allCases)
    func everyKindBuildsItsOwnType(kind: EstimatorKind) {
        let est = kind.make(venue: makeVenue(square, friezes: friezePositions))
        #expect(type(of: est) == kind.type)
        #expect(est.kind == kind)
        #expect(EstimatorKind(rawValue: kind.rawValue) == kind)
    }

    @Test func kindsEncodeAsTheirNamesAndRejectUnknownOnes() throws {
        let data = try JSONEncoder().encode(EstimatorKind.allCases)
        #expect(String(decoding: data, as: UTF8.self) == "[" + EstimatorKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]")
        #expect(try JSONDecoder().decode([EstimatorKind].self, from: data) == EstimatorKind.allCases)
        let unknown = try #require(throws: DecodingError.self) { try JSONDecoder().decode([EstimatorKind].self, from: Data("[\"kalman\"]".utf8)) }
        if case .dataCorrupted(let context) = unknown {
            #expect(context.debugDescription == "unknown estimator 'kalman'; known: \(EstimatorKind.allCases.map(\.rawValue).joined(separator: ", "))")
        } else {
            Issue.record("not a corrupted-data error: \(unknown)")
        }
        #expect(EstimatorKind(rawValue: "kalman") == nil)
    }

    @Test func theShippedEstimatorIsRegisteredAndOrderFollowsTheList() {
        #expect(EstimatorKind.allCases.contains(.shipped))
        #expect(EstimatorKind.allCases == EstimatorKind.allCases.sorted())
        #expect(EstimatorKind.allCases.map(\.index) == Array(EstimatorRegistry.all.indices))
    }
}
