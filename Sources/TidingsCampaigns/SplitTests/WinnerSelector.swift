import Foundation
import TidingsModel
import TidingsStore

/// Decides the split tests whose decision is due: counts each variant's conversions, picks the winner
/// (``WinnerDecision``) and stores a follow-up message that sends it to the rest of the audience, through the
/// same resolution, fan-out, cancel and stats as any message.
///
/// Run as scheduled work (``ScheduledWork/Job/winnerDecisions(_:)``), on the leader only; and should two
/// instances both run it (a hand-over), the store records one decision and one follow-up per test
/// (``WinnerStore/recordSplitDecision(messageID:decidedAt:decision:followUp:audit:)``).
public final class WinnerSelector: Sendable {
    let store: any Store
    let clock: any TidingsClock
    let logger: Logger

    /// Decisions taken per run; the rest wait for the next.
    static let batch = 50

    public init(store: any Store, clock: any TidingsClock = SystemClock(), logger: Logger = .disabled()) {
        self.store = store
        self.clock = clock
        self.logger = logger
    }

    /// Decides the tests that are due now, up to ``batch`` of them (the next run takes the rest).
    /// - Returns: the ids of the follow-up messages this call stored.
    @discardableResult
    public func runDue() throws -> [String] {
        try store.dueSplitDecisions(now: clock.now.millisecondsSince1970, limit: Self.batch).compactMap(decide)
    }

    /// Decides one test; nil when another instance decided it first, or its message cannot be read.
    func decide(_ pending: SplitDecisionRecord) throws -> String? {
        guard let message = try store.message(appID: pending.appID, messageID: pending.messageID),
            let plan = CampaignPlan.decode(message.plan), let rule = plan.winner, let goal = plan.conversion
        else {
            logger.error(
                "a split test's message cannot be read; no winner is sent", metadata: ["message_id": pending.messageID])
            return nil
        }
        let conversions = try store.conversions(
            appID: message.appID, messageID: message.id, event: goal.event,
            withinMilliseconds: goal.withinSeconds * 1000, from: goal.from,
            openingActions: [message.id: message.openingActionIDs])
        let decision = WinnerDecision(rule: rule, variants: plan.arms.compactMap(\.id), conversions: conversions)
        let now = clock.now.millisecondsSince1970
        let followUp = Self.followUp(of: message, plan: plan, decision: decision, now: now)
        let decided = try store.recordSplitDecision(
            messageID: message.id, decidedAt: now,
            decision: (try? decision.json.serializedString(sortedKeys: true)) ?? "{}",
            followUp: followUp,
            audit: AuditEntry(
                at: now, operatorName: "", action: "decide winner", target: "/v1/messages/\(message.id)",
                appID: message.appID, status: 201, credential: .server))
        guard decided else { return nil }
        logger.notice(
            "split test decided",
            metadata: [
                "message_id": message.id, "variant": decision.variant, "significant": String(decision.isSignificant),
                "follow_up_message_id": followUp.id,
            ])
        return followUp.id
    }

    /// The message that sends `decision`'s variant to the test's audience, read again when it is resolved
    /// (now), less the test share and the control group; with the test's kind, type, priority, collapse id,
    /// night policy, rate and time to live, due at once.
    static func followUp(of message: MessageRecord, plan: CampaignPlan, decision: WinnerDecision, now: Int64)
        -> MessageRecord
    {
        let id = "msg_" + UUID().lowercasedString
        let arm = plan.arms.first { $0.id == decision.variant } ?? plan.arms[0]
        func payload(_ language: String?) -> [UInt8] {
            Self.payload(message.payload(variant: arm.id, language: language), messageID: id)
        }
        var variants: [String: [UInt8]] = [:]
        if arm.isLocalized {
            for language in arm.languages {
                variants[MessageRecord.payloadKey(variant: nil, language: language)] = payload(language)
            }
        }
        // How long the test's pushes lived, from their send time, is how long the winner's do from now.
        let timeToLive =
            plan.schedule.isLocalTime
            ? plan.timeToLive.map { $0 * 1000 }
            : message.expiresAt.map { $0 - (message.resolveAt ?? message.createdAt) }
        let followUpPlan = CampaignPlan(
            target: plan.target, kind: plan.kind, environment: plan.environment, schedule: .now,
            arms: [CampaignPlan.Arm(id: nil, weight: 1, languages: arm.languages, isLocalized: arm.isLocalized)],
            control: 0, conversion: plan.conversion,
            followUp: WinnerFollowUp(
                parentID: message.id, splitKey: message.campaignID ?? message.id, control: plan.control,
                testShare: plan.winner?.testShare ?? 0))
        return MessageRecord(
            id: id, appID: message.appID, state: .scheduled, kind: message.kind, messageType: message.messageType,
            campaignID: message.campaignID, topic: message.topic,
            payload: payload(arm.isLocalized ? LocalizedContent.defaultKey : nil), priority: message.priority,
            expiresAt: timeToLive.map { now + $0 }, collapseID: message.collapseID, nightPolicy: message.nightPolicy,
            createdAt: now, plan: followUpPlan.encoded(), resolveAt: now, payloadVariants: variants,
            ratePerSecond: message.ratePerSecond)
    }

    /// `bytes` (a payload tidingsd built) naming `messageID` as its message (`tidings.id`), so the follow-up's
    /// events count for the follow-up.
    static func payload(_ bytes: [UInt8], messageID: String) -> [UInt8] {
        guard case .object(var object)? = try? JSONValue.parse(bytes), case .object(var tidings)? = object["tidings"]
        else { return bytes }
        tidings["id"] = .string(messageID)
        object["tidings"] = .object(tidings)
        return (try? JSONValue.object(object).serialized(sortedKeys: true)) ?? bytes
    }
}
