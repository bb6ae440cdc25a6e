import Testing
import TidingsCampaigns

/// The numbers split tests are reported and decided on, against hand-worked values.
@Suite struct SplitTestStatisticsTests {
    @Test func theWilsonIntervalMatchesHandWorkedValues() throws {
        let threeOfTen = try #require(WilsonInterval(successes: 3, trials: 10))
        #expect(abs(threeOfTen.lower - 0.107_789) < 0.000_01)
        #expect(abs(threeOfTen.upper - 0.603_218) < 0.000_01)
        let none = try #require(WilsonInterval(successes: 0, trials: 10))
        #expect(none.lower == 0)
        #expect(abs(none.upper - 0.277_533) < 0.000_01)
        let all = try #require(WilsonInterval(successes: 10, trials: 10))
        #expect(abs(all.lower - 0.722_467) < 0.000_01)
        #expect(all.upper == 1)
        #expect(WilsonInterval(successes: 0, trials: 0) == nil)
    }

    @Test func theQuantileOfAConfidenceIsFoundByBisectionOnErf() {
        #expect(abs(ProportionDifference.quantile(confidence: 0.95) - 1.959_964) < 1e-5)
        #expect(abs(ProportionDifference.quantile(confidence: 0.8) - 1.281_552) < 1e-5)
        #expect(abs(ProportionDifference.quantile(confidence: 0.99) - 2.575_829) < 1e-5)
        #expect(abs(ProportionDifference.quantile(confidence: 0.95) - ProportionDifference.z95) < 1e-9)
    }
}
