import Testing
import TidingsCampaigns
import TidingsStore

/// Who a winner test tests, and what it decides on given conversions.
@Suite struct WinnerDecisionTests {
    @Test func theTestShareIsItsShareOfPeopleStableAndIndependentOfTheVariant() {
        let rule = WinnerRule(testShare: 0.2, afterSeconds: 3600, confidence: 0.95, ifInconclusive: .best)
        let assignment = VariantAssignment(variants: [("a", 1), ("b", 1)], control: 0.25)
        let people = 4000
        var tested = 0
        var testedControl = 0
        for index in 0..<people {
            let subject = VariantAssignment.Subject.user("user-\(index)")
            guard rule.isTested(splitKey: "spring", subject: subject) else { continue }
            tested += 1
            if assignment.variant(splitKey: "spring", subject: subject) == CampaignVariant.controlID {
                testedControl += 1
            }
        }
        // 800 expected; four standard deviations of a binomial of 4,000 at 0.2 is about 101.
        #expect(abs(tested - 800) <= 101, "\(tested)")
        // A quarter of the tested are in the control group: the draws are independent (4 sd of 800 at 0.25: 49).
        #expect(abs(testedControl - 200) <= 49, "\(testedControl)")
        // The same inputs, the same answer; another campaign tests other people.
        let subjects = (0..<200).map { VariantAssignment.Subject.user("user-\($0)") }
        #expect(
            subjects.map { rule.isTested(splitKey: "spring", subject: $0) }
                == subjects.map { rule.isTested(splitKey: "spring", subject: $0) })
        #expect(
            subjects.map { rule.isTested(splitKey: "spring", subject: $0) }
                != subjects.map { rule.isTested(splitKey: "autumn", subject: $0) })
        // The documented scheme: the variant's SHA-256 draw under its own label.
        let point = VariantAssignment.point(label: WinnerRule.drawLabel, splitKey: "spring", subject: subjects[0])
        #expect(rule.isTested(splitKey: "spring", subject: subjects[0]) == (point < 0.2))
        #expect(point != VariantAssignment.point(splitKey: "spring", subject: subjects[0]))
    }

    @Test func aDecisionPicksTheBestRateAndCallsItSignificantOnlyWhenItsLeadHolds() throws {
        let rule = WinnerRule(testShare: 0.2, afterSeconds: 3600, confidence: 0.95, ifInconclusive: .best)
        let clear = WinnerDecision(
            rule: rule, variants: ["a", "b", "c"],
            conversions: [
                "a": ConversionCount(recipients: 1000, converted: 100),
                "b": ConversionCount(recipients: 1000, converted: 160),
                "c": ConversionCount(recipients: 1000, converted: 20),
                "control": ConversionCount(recipients: 300, converted: 12),
            ])
        #expect(clear.variant == "b")
        #expect(clear.best == "b" && clear.runnerUp == "a")
        #expect(clear.isSignificant)
        // 0.16 - 0.10 = 0.06, standard error sqrt(0.16*0.84/1000 + 0.1*0.9/1000) = 0.014980.
        let lead = try #require(clear.lead)
        #expect(abs(lead.difference - 0.06) < 1e-9)
        #expect(abs(lead.lower - (0.06 - 1.959_964 * 0.014_980)) < 1e-5)
        #expect(clear.arms.map(\.id) == ["a", "b", "c", "control"])
        #expect(clear.arms[3].recipients == 300 && clear.arms[3].converted == 12)

        let close: [String: ConversionCount] = [
            "a": ConversionCount(recipients: 100, converted: 10), "b": ConversionCount(recipients: 100, converted: 12),
        ]
        let best = WinnerDecision(rule: rule, variants: ["a", "b"], conversions: close)
        #expect(!best.isSignificant)
        #expect(best.variant == "b", "inconclusive, best: the best rate anyway")
        var fallback = rule
        fallback.ifInconclusive = .variant("a")
        let named = WinnerDecision(rule: fallback, variants: ["a", "b"], conversions: close)
        #expect(named.variant == "a", "inconclusive: the variant the rule names")
        // At 80% a lead that is not significant at 95% can be: 0.16 vs 0.10 on 200 each.
        let small: [String: ConversionCount] = [
            "a": ConversionCount(recipients: 200, converted: 20), "b": ConversionCount(recipients: 200, converted: 32),
        ]
        #expect(!WinnerDecision(rule: rule, variants: ["a", "b"], conversions: small).isSignificant)
        var lenient = rule
        lenient.confidence = 0.8
        #expect(WinnerDecision(rule: lenient, variants: ["a", "b"], conversions: small).isSignificant)
        // Nobody tested: nothing is significant, and the first variant is the best among equals.
        let empty = WinnerDecision(rule: rule, variants: ["a", "b"], conversions: [:])
        #expect(empty.variant == "a" && !empty.isSignificant && empty.lead == nil)
    }
}
