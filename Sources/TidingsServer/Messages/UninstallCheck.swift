import Foundation
import TidingsCampaigns
import TidingsModel
import TidingsPush
import TidingsStore

/// Tidings' silent push to every installation of an app that has a token, to find the apps that were
/// uninstalled (APNs answers 410, FCM `UNREGISTERED`), as MoEngage and Braze do.
///
/// The check is a message of kind `uninstall_check`: background, priority 5, `tidings.internal`, so the SDK
/// neither wakes the app's own work nor records a delivery. Spread over a period, its deliveries become due
/// one after another across it rather than all at once, so a scheduled check never competes with campaigns.
public enum UninstallCheck {
    /// What was created.
    public struct Created: Sendable, Hashable {
        public var messageID: String
        public var targets: Int
    }

    /// Creates the check for `app` (optionally only one APNs environment), its deliveries due evenly over
    /// `spread` from `now`.
    public static func create(
        store: any Store, app: AppRecord, environment: OutgoingPush.Environment? = nil, now: Date,
        spread: Duration = .zero
    ) throws -> Created {
        let messageID = "msg_" + UUID().lowercasedString
        let built = try MessagePayloadBuilder().build(content: [:], kind: .uninstallCheck, messageID: messageID)
        var deliveries: [MessageDelivery] = []
        var after: String?
        while true {
            let page = try store.installations(
                appID: app.id, query: InstallationQuery(afterInstallationID: after, limit: 1000))
            for installation in page {
                // Only installations with a token are targets: the others have nothing to check.
                guard DeliveryPolicy.token(for: .uninstallCheck, of: installation) != nil else { continue }
                let delivery = MessageDelivery.target(
                    installation, messageID: messageID, kind: .uninstallCheck, environment: environment)
                if delivery.state == .pending { deliveries.append(delivery) }
            }
            guard page.count == 1000, let last = page.last else { break }
            after = last.installationID
        }
        let start = now.millisecondsSince1970
        let spreadMilliseconds = Int64(spread.seconds * 1000)
        if spreadMilliseconds > 0, !deliveries.isEmpty {
            let step = spreadMilliseconds / Int64(deliveries.count)
            for index in deliveries.indices { deliveries[index].notBefore = start + Int64(index) * step }
        }
        let record = MessageRecord(
            id: messageID, appID: app.id, kind: .uninstallCheck, topic: app.bundleID, payload: built.bytes,
            priority: 5, createdAt: start)
        try store.createMessage(record, deliveries: deliveries)
        return Created(messageID: messageID, targets: deliveries.count)
    }
}
