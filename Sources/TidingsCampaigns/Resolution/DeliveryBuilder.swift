import Foundation
import TidingsModel
import TidingsStore

/// Turns a resolved installation into its delivery row: due at its own time, in its variant, with its
/// language's content, or skipped for a reason known at resolution; or no row at all for someone a split test
/// keeps for its winner (outside the test share) or whom a winner's follow-up leaves out (tested or held back).
public struct DeliveryBuilder {
    let message: MessageRecord
    let plan: CampaignPlan
    let now: Date
    let assignment: VariantAssignment
    /// The content key of each (variant, language tag) met so far: an audience has few distinct tags, and
    /// matching one builds the arm's language table (a million times over, for a million installations).
    private var languageKeys: [LanguageKey: String?] = [:]

    private struct LanguageKey: Hashable {
        var variant: String?
        var tag: String?
    }

    public init(message: MessageRecord, plan: CampaignPlan, now: Date) {
        self.message = message
        self.plan = plan
        self.now = now
        assignment = plan.assignment
    }

    public mutating func delivery(for installation: Installation, targetUserID: String?) -> MessageDelivery? {
        let subject = VariantAssignment.Subject(
            userID: installation.userID, installationID: installation.installationID)
        if let followUp = plan.followUp, followUp.excludes(subject) { return nil }
        var delivery = MessageDelivery.target(
            installation, messageID: message.id, kind: plan.kind, environment: plan.environment,
            targetUserID: targetUserID)
        var arm = plan.arms.first
        if plan.hasVariants {
            let variant: String
            if plan.splitsByPerson {
                variant = assignment.variant(splitKey: message.campaignID ?? message.id, subject: subject)
                if case .user(let userID) = subject { delivery.splitUserID = userID }
            } else {
                variant = assignment.variant(messageID: message.id, installationID: installation.installationID)
            }
            delivery.variant = variant
            arm = plan.arms.first { $0.id == variant }
            // The control group is held back (and counted) across the whole audience; the variants reach the
            // test share only, and the winner the rest later.
            if let winner = plan.winner, variant != CampaignVariant.controlID,
                !winner.isTested(splitKey: message.campaignID ?? message.id, subject: subject)
            {
                return nil
            }
        }
        let tag = installation.language ?? installation.locale
        let key = LanguageKey(variant: arm?.id, tag: tag)
        if let known = languageKeys[key] {
            delivery.language = known
        } else {
            delivery.language = arm?.language(for: tag)
            languageKeys[key] = .some(delivery.language)
        }
        guard delivery.state == .pending else { return delivery }
        switch plan.schedule.due(timeZone: installation.timezone, now: now) {
        case .at(let milliseconds):
            // The control group keeps the time it would have been sent: its conversion window opens then.
            delivery.notBefore =
                delivery.variant == CampaignVariant.controlID
                ? max(milliseconds, now.millisecondsSince1970) : milliseconds
        case .skip(let reason): return skipped(delivery, reason)
        }
        if delivery.variant == CampaignVariant.controlID {
            return skipped(delivery, .control)
        }
        // Each zone's due time is its own: kept for the schedule, and what its time to live counts from.
        if plan.schedule.isLocalTime {
            delivery.dueAt = delivery.notBefore
            delivery.expiresAt = plan.timeToLive.map { delivery.notBefore + $0 * 1000 }
        }
        return delivery
    }

    /// A named installation the app does not have.
    func unknown(_ installationID: String) -> MessageDelivery {
        MessageDelivery(
            messageID: message.id, appID: message.appID, installationID: installationID, token: "", state: .skipped,
            reason: DeliveryPolicy.SkipReason.unknownInstallation.rawValue)
    }

    private func skipped(_ delivery: MessageDelivery, _ reason: ResolutionSkipReason) -> MessageDelivery {
        var skipped = delivery
        skipped.state = .skipped
        skipped.reason = reason.rawValue
        return skipped
    }
}
