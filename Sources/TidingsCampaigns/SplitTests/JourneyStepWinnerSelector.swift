import Foundation
import TidingsModel
import TidingsStore

/// Decides the journey step tests whose decision is due (``JourneyStepTest``): counts each variant's
/// conversions over the messages the test share was sent, picks the winner as a campaign's test does
/// (``WinnerDecision``) and records it with its numbers. The people waiting at the step get the winner when
/// their run is next walked.
///
/// Run as scheduled work on the leader only; should two instances both run it (a hand-over), the store records
/// the first decision and refuses the second
/// (``JourneyStepTestStore/recordJourneyStepDecision(appID:journeyID:version:stepID:decidedAt:winner:decision:)``).
public final class JourneyStepWinnerSelector: Sendable {
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

    /// Decides the tests that are due now, up to ``batch`` of them.
    /// - Returns: the tests this call decided.
    @discardableResult
    public func runDue() throws -> [JourneyStepTestRecord] {
        try store.dueJourneyStepTests(now: clock.now.millisecondsSince1970, limit: Self.batch).compactMap(decide)
    }

    /// Decides one test; nil when another instance decided it first.
    func decide(_ pending: JourneyStepTestRecord) throws -> JourneyStepTestRecord? {
        let now = clock.now.millisecondsSince1970
        guard let test = JourneyStepTest.decode(pending.rule) else {
            // Unreadable, it would hold the step for good: recorded without a winner, the message goes as written.
            logger.error(
                "a journey step's split test cannot be read; its message goes as written",
                metadata: ["journey_id": pending.journeyID, "step": pending.stepID])
            return try record(pending, winner: "", decision: .object(["error": "unreadable test"]), now: now)
        }
        let sends = try store.journeyStepTestSends(
            appID: pending.appID, journeyID: pending.journeyID, version: pending.version, stepID: pending.stepID)
        let conversions = try Self.conversions(store: store, appID: pending.appID, sends: sends, goal: test.goal)
        let decision = test.decide(conversions: conversions)
        var json = decision.json
        if case .object(var object) = json {
            object["sends"] = .integer(Int64(sends.count))
            json = .object(object)
        }
        guard let decided = try record(pending, winner: decision.variant, decision: json, now: now) else { return nil }
        logger.notice(
            "journey step test decided",
            metadata: [
                "journey_id": pending.journeyID, "version": String(pending.version), "step": pending.stepID,
                "variant": decision.variant, "significant": String(decision.isSignificant),
            ])
        return decided
    }

    private func record(_ pending: JourneyStepTestRecord, winner: String, decision: JSONValue, now: Int64) throws
        -> JourneyStepTestRecord?
    {
        let text = (try? decision.serializedString(sortedKeys: true)) ?? "{}"
        guard
            try store.recordJourneyStepDecision(
                appID: pending.appID, journeyID: pending.journeyID, version: pending.version, stepID: pending.stepID,
                decidedAt: now, winner: winner, decision: text)
        else { return nil }
        var decided = pending
        decided.decidedAt = now
        decided.winner = winner
        decided.decision = text
        return decided
    }

    /// Each arm's conversions (by variant id, the control group under ``CampaignVariant/controlID``) over the
    /// test's messages `sends`: one person each, so their counts add up.
    public static func conversions(store: any Store, appID: String, sends: [String], goal: ConversionGoal) throws
        -> [String: ConversionCount]
    {
        var conversions: [String: ConversionCount] = [:]
        for messageID in sends {
            let opening =
                goal.from == .open ? try store.message(appID: appID, messageID: messageID)?.openingActionIDs ?? [] : []
            let counts = try store.conversions(
                appID: appID, messageID: messageID, event: goal.event, withinMilliseconds: goal.withinSeconds * 1000,
                from: goal.from, openingActions: [messageID: opening])
            for (arm, count) in counts {
                conversions[arm, default: ConversionCount()].recipients += count.recipients
                conversions[arm, default: ConversionCount()].converted += count.converted
            }
        }
        return conversions
    }
}
