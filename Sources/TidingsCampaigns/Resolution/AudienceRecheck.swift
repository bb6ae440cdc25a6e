import Foundation
import TidingsModel
import TidingsStore

/// A local-time message's audience, checked again when each installation's own due time comes.
///
/// Such a message is resolved an hour before its time comes in UTC+14, up to 27 hours before it comes in
/// UTC−12: an installation that left the audience meanwhile (a tag removed, an attribute or a consent changed)
/// is skipped as `left_audience` rather than sent what it no longer asked for. Messages with one send time are
/// resolved at that time and are not checked again.
public struct AudienceRecheck {
    let store: any Store

    public init(store: any Store) {
        self.store = store
    }

    /// The installation ids among `deliveries` (claimed now, all of `message`) that no longer belong to its
    /// audience; empty for anything but a local-time message to tags or an audience expression.
    public func leavers(
        of message: MessageRecord, deliveries: [MessageDelivery], installations: [String: Installation], now: Date
    ) throws -> Set<String> {
        guard let plan = CampaignPlan.decode(message.plan), plan.schedule.isLocalTime,
            let target = try? MessageRequest.target(plan.target)
        else { return [] }
        let ids = deliveries.map(\.installationID)
        switch target {
        case .audience(let expression):
            let members = try store.installationIDs(
                appID: message.appID, audience: expression, among: ids, now: now.millisecondsSince1970)
            return Set(ids).subtracting(members)
        case .tags(let expression):
            var tagsByUser: [String: Set<String>] = [:]
            var leavers = Set<String>()
            for id in ids {
                // Gone altogether is the policy's `unregistered`, not a leaver.
                guard let installation = installations[id] else { continue }
                var tags = Set<String>()
                if let userID = installation.userID {
                    if let cached = tagsByUser[userID] {
                        tags = cached
                    } else {
                        tags = Set(try store.tags(appID: message.appID, userID: userID))
                        tagsByUser[userID] = tags
                    }
                }
                if !expression.matches(tags) { leavers.insert(id) }
            }
            return leavers
        case .installations, .users, .all:
            // Named installations and users are checked by the policy (gone, or now someone else's).
            return []
        }
    }
}
