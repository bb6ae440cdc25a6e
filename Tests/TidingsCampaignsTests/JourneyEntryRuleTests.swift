import Testing

@testable import TidingsCampaigns

@Suite struct JourneyEntryRuleTests {
    @Test func onceAdmitsOnlyAFirstEntry() {
        #expect(JourneyEntryRule.once.admits(lastEntered: nil, now: 1_000))
        #expect(!JourneyEntryRule.once.admits(lastEntered: 0, now: 365 * 86_400_000))
    }

    @Test func onceEveryCountsWholeDaysFromThePreviousEntry() {
        let rule = JourneyEntryRule.onceEvery(days: 7)
        #expect(!rule.admits(lastEntered: 0, now: 7 * 86_400_000 - 1))
        #expect(rule.admits(lastEntered: 0, now: 7 * 86_400_000))
    }

    @Test func everyTimeAlwaysAdmits() {
        #expect(JourneyEntryRule.everyTime.admits(lastEntered: 5, now: 5))
    }
}
