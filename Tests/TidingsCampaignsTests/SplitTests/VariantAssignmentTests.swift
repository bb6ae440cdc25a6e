import Testing
import TidingsCampaigns

/// Who gets which arm: the documented draw by person and split key, in proportion to the weights.
@Suite struct VariantAssignmentTests {
    @Test func acrossAThousandUsersTheSplitFollowsTheWeights() {
        let assignment = VariantAssignment(variants: [("a", 1), ("b", 3)], control: 0.2)
        var counts: [String: Int] = [:]
        for user in 0..<1000 {
            counts[assignment.variant(splitKey: "spring", subject: .user("user-\(user)")), default: 0] += 1
        }
        // 200, 200 and 600 expected; four standard deviations of a binomial of 1,000 is about 50.
        #expect(abs((counts["control"] ?? 0) - 200) <= 50, "\(counts)")
        #expect(abs((counts["a"] ?? 0) - 200) <= 50, "\(counts)")
        #expect(abs((counts["b"] ?? 0) - 600) <= 60, "\(counts)")
        // A user and an installation of the same id are different people.
        let byUser = (0..<200).map { assignment.variant(splitKey: "spring", subject: .user("id-\($0)")) }
        let byInstallation = (0..<200).map {
            assignment.variant(splitKey: "spring", subject: .installation("id-\($0)"))
        }
        #expect(byUser != byInstallation)
        // The point is the documented SHA-256 prefix: uniform in 0..<1.
        let point = VariantAssignment.point(splitKey: "spring", subject: .user("user-1"))
        #expect(point >= 0 && point < 1)
    }
}
