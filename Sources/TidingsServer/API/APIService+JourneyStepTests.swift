import TidingsCampaigns
import TidingsModel
import TidingsStore

extension APIService {
    /// `winner` of a send step in `GET /v1/journeys/{journey_id}`: the step's split test (of the latest version
    /// that has one) with each arm's numbers: counted now while it tests, as they were decided on after.
    func journeyStepTestJSON(_ test: JourneyStepTestRecord) throws -> JSONValue {
        let readable = JourneyStepTest.decode(test.rule)
        var object: [String: JSONValue] = [
            "version": .integer(Int64(test.version)), "state": .string(test.decidedAt == nil ? "testing" : "decided"),
            "started_at": .integer(test.startedAt), "test_ends_at": .integer(test.testEndsAt),
            "decide_at": .integer(test.decideAt), "decided_at": test.decidedAt.map { .integer($0) } ?? .null,
            "variant": test.winner.flatMap { $0.isEmpty ? nil : .string($0) } ?? .null, "inconclusive": .null,
            "decision": .null,
        ]
        if let readable {
            object["test_share"] = .double(readable.rule.testShare)
            object["confidence"] = .double(readable.rule.confidence)
            object["if_inconclusive"] = .string(readable.rule.ifInconclusive.name)
            object["conversion"] = readable.goal.json
        }
        if let text = test.decision, let decision = try? JSONValue.parse(text), let arms = decision["variants"] {
            object["decision"] = decision
            object["inconclusive"] = .bool(decision["significant"] != .bool(true))
            object["variants"] = .array(
                (arms.arrayValue ?? []).map { arm in
                    [
                        "variant": arm["variant"] ?? .null, "sent": arm["recipients"] ?? .integer(0),
                        "converted": arm["converted"] ?? .integer(0), "rate": arm["rate"] ?? .null,
                    ]
                })
        } else if let readable {
            let sends = try storeCall {
                try store.journeyStepTestSends(
                    appID: test.appID, journeyID: test.journeyID, version: test.version, stepID: test.stepID)
            }
            let conversions = try storeCall {
                try JourneyStepWinnerSelector.conversions(
                    store: store, appID: test.appID, sends: sends, goal: readable.goal)
            }
            let arms =
                readable.variants + (conversions[CampaignVariant.controlID] == nil ? [] : [CampaignVariant.controlID])
            object["variants"] = .array(
                arms.map { id in
                    let count = conversions[id] ?? ConversionCount()
                    return [
                        "variant": .string(id), "sent": .integer(Int64(count.recipients)),
                        "converted": .integer(Int64(count.converted)),
                        "rate": count.recipients == 0
                            ? .null : .double(Double(count.converted) / Double(count.recipients)),
                    ]
                })
        }
        return .object(object)
    }
}
