import Foundation
import LabCore
import Testing
@testable import LabEvaluation

/// The walks' posterior bound carries a state per beacon under the field condition: its work (windows × states³) is
/// bounded before anything runs, with the walk and what would fit named.
@Suite struct BoundWorkTests {
    /// open-hall with `count` beacons in all, spread over the hall.
    func crowded(_ count: Int) throws -> Scenario {
        var s = try scenario("open-hall")
        let b = s.bounds
        for k in s.beacons.count..<count {
            let x = b.minX + 0.5 + Double(k % 40) / 40 * (b.width - 1), y = b.minY + 0.5 + Double(k / 40) / Double(count / 40 + 1) * (b.height - 1)
            s.beacons.append(Beacon(id: "X\(k)", position: Point(x, y)))
        }
        return s
    }

    @Test func aFieldBoundOverTheBudgetIsRefusedBeforeTheRun() throws {
        let s = try crowded(WorkBudget.maximumBeacons)
        #expect(WorkBudget.problems(s).isEmpty, "within the scenario budget: \(WorkBudget.problems(s))")
        #expect(PosteriorBound.workProblems(s, conditions: [.ideal]).isEmpty, "the ideal bound carries no beacon states")
        let field = PosteriorBound.workProblems(s, conditions: [.field])
        #expect(field.count == s.walks.count, "\(field)")
        #expect(field.first.map { $0.field == "walks[0]" && $0.message.contains("under the field condition: its posterior bound carries 1005 states") && $0.message.contains("the budget is 10000000000") } == true, "\(field)")
        #expect(throws: InputErrors.self, "refused before any job runs") {
            try Tournament(scenarios: [s], seeds: [1], estimators: [.proximity], conditions: [.ideal, .field]).run()
        }
    }

    @Test func theBundledScenariosAreWithinTheBoundsBudget() throws {
        for name in ["open-hall", "museum-gallery", "killian-court", "esoc-office", "smart-home"] {
            let s = try scenario(name)
            #expect(PosteriorBound.workProblems(s, conditions: [.ideal, .field]).isEmpty, "\(name)")
        }
    }
}
