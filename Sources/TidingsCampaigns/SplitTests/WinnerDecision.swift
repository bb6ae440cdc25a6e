import Foundation
import TidingsModel
import TidingsStore

/// What a split test decided, and on which numbers: the variant with the highest conversion rate wins; the win
/// is significant when the interval (at the rule's confidence) of its lead over the runner-up leaves out 0.
/// An inconclusive test sends what the rule's ``WinnerRule/ifInconclusive`` says.
public struct WinnerDecision: Sendable, Hashable {
    /// One arm's conversions when the test was decided, with the Wilson interval at the rule's confidence.
    public struct Arm: Sendable, Hashable {
        public var id: String
        public var recipients: Int
        public var converted: Int
        /// Nil without recipients.
        public var interval: WilsonInterval?
    }

    /// The variant the follow-up sends.
    public var variant: String
    /// Whether the best variant's lead over the runner-up is significant at the rule's confidence.
    public var isSignificant: Bool
    /// The variant with the highest rate (the first in the message's order among equals).
    public var best: String
    public var runnerUp: String
    /// The best's rate minus the runner-up's, with its interval at the rule's confidence; nil when either had no
    /// recipients.
    public var lead: ProportionDifference?
    /// The variants in the message's order, then the control group when there is one.
    public var arms: [Arm]
    public var rule: WinnerRule
    /// The two-sided normal quantile of the rule's confidence.
    public var quantile: Double

    /// Decides between `variants` (in the message's order, at least two) on `conversions` (by variant id, the
    /// control group under ``CampaignVariant/controlID``).
    public init(rule: WinnerRule, variants: [String], conversions: [String: ConversionCount]) {
        let quantile = ProportionDifference.quantile(confidence: rule.confidence)
        func arm(_ id: String) -> Arm {
            let count = conversions[id] ?? ConversionCount()
            return Arm(
                id: id, recipients: count.recipients, converted: count.converted,
                interval: WilsonInterval(successes: count.converted, trials: count.recipients, quantile: quantile))
        }
        let tested = variants.map(arm)
        // Highest rate first; an arm nobody got ranks last; equals keep the message's order.
        let ranked = tested.enumerated().sorted { left, right in
            let a = left.element.interval?.rate ?? -1
            let b = right.element.interval?.rate ?? -1
            return a != b ? a > b : left.offset < right.offset
        }.map(\.element)
        let best = ranked[0]
        let runnerUp = ranked.count > 1 ? ranked[1] : ranked[0]
        let lead = ProportionDifference(
            successesA: runnerUp.converted, trialsA: runnerUp.recipients, successesB: best.converted,
            trialsB: best.recipients, quantile: quantile)
        let significant = lead?.isSignificant ?? false
        self.best = best.id
        self.runnerUp = runnerUp.id
        self.lead = lead
        isSignificant = significant
        self.quantile = quantile
        self.rule = rule
        switch (significant, rule.ifInconclusive) {
        case (true, _), (false, .best): variant = best.id
        case (false, .variant(let id)): variant = id
        }
        arms = tested + (conversions[CampaignVariant.controlID].map { _ in [arm(CampaignVariant.controlID)] } ?? [])
    }

    /// The rule in words, as it was applied.
    public var ruleText: String {
        let tenths = (rule.confidence * 1000).rounded() / 10
        // Without a trailing `.0`: 95, 97.5.
        let percent = tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
        let fallback =
            switch rule.ifInconclusive {
            case .best: "the best rate anyway"
            case .variant(let id): "variant \(id)"
            }
        return "the highest conversion rate wins; significant when the \(percent)% interval of its lead over the "
            + "runner-up leaves out 0 (z = \(quantile.roundedToFourPlaces)); when not, \(fallback)"
    }

    /// The decision as stored and shown (`winner` of `GET /v1/messages/{id}`, after the state and the rule).
    var json: JSONValue {
        var object: [String: JSONValue] = [
            "variant": .string(variant), "significant": .bool(isSignificant), "best": .string(best),
            "runner_up": .string(runnerUp), "rule": .string(ruleText), "z": .double(quantile.roundedToFourPlaces),
            "lead": .null,
            "variants": .array(
                arms.map { arm in
                    [
                        "variant": .string(arm.id), "recipients": .integer(Int64(arm.recipients)),
                        "converted": .integer(Int64(arm.converted)),
                        "rate": arm.interval.map { .double($0.rate.roundedToFourPlaces) } ?? .null,
                        "low": arm.interval.map { .double($0.lower.roundedToFourPlaces) } ?? .null,
                        "high": arm.interval.map { .double($0.upper.roundedToFourPlaces) } ?? .null,
                    ]
                }),
        ]
        if let lead {
            object["lead"] = [
                "versus": .string(runnerUp), "difference": .double(lead.difference.roundedToFourPlaces),
                "low": .double(lead.lower.roundedToFourPlaces), "high": .double(lead.upper.roundedToFourPlaces),
                "z": .double(lead.z.roundedToFourPlaces),
            ]
        }
        return .object(object)
    }
}
