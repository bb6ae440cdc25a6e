import TidingsPush
import TidingsStore

extension MessageDelivery {
    /// The row audience resolution writes for `installation`: pending, with everything that can change before
    /// sending left to ``DeliveryPolicy`` at send time. Only the message's own environment filter is applied
    /// here (`environment`). The token recorded is the one the installation has now, for reading; the send uses
    /// whichever it has then.
    public static func target(
        _ installation: Installation, messageID: String, kind: MessageKind, environment: OutgoingPush.Environment?,
        targetUserID: String? = nil
    ) -> MessageDelivery {
        let installationEnvironment = installation.environment ?? OutgoingPush.Environment.production.rawValue
        let token = DeliveryPolicy.token(for: kind, of: installation)
        var delivery = MessageDelivery(
            messageID: messageID, appID: installation.appID, installationID: installation.installationID,
            token: token?.token ?? "", tokenType: token?.type ?? .apns, environment: installationEnvironment,
            targetUserID: targetUserID)
        if let environment, installationEnvironment != environment.rawValue {
            delivery.state = .skipped
            delivery.reason = DeliveryPolicy.SkipReason.environment.rawValue
        }
        return delivery
    }
}
