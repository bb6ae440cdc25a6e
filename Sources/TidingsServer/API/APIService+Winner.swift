import Foundation
import TidingsCampaigns
import TidingsModel
import TidingsStore

extension APIService {
    /// The `winner` of a split test that picks one: its rule, where it stands, and once decided, what was
    /// decided on which numbers; nil for any other message.
    func winnerJSON(_ message: MessageRecord) throws -> JSONValue? {
        guard let rule = CampaignPlan.decode(message.plan)?.winner,
            let pending = try store.splitDecision(messageID: message.id)
        else { return nil }
        var object: [String: JSONValue] = [
            "state": .string(pending.state.rawValue), "test_share": .double(rule.testShare),
            "after_seconds": .integer(rule.afterSeconds), "confidence": .double(rule.confidence),
            "if_inconclusive": .string(rule.ifInconclusive.name),
            "decide_at": pending.decideAt.map(JSONValue.integer) ?? .null,
            "decided_at": pending.decidedAt.map(JSONValue.integer) ?? .null,
            "follow_up_message_id": pending.followUpMessageID.map(JSONValue.string) ?? .null,
        ]
        if let text = pending.decision, let decision = (try? JSONValue.parse(text))?.objectValue {
            object.merge(decision) { current, _ in current }
        }
        return .object(object)
    }
}
