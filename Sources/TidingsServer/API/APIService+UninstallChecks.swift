import Foundation
import TidingsHTTP
import TidingsModel
import TidingsPush
import TidingsStore

extension APIService {
    /// The largest body `POST /v1/uninstall-checks` reads (it holds one optional field).
    static let maximumUninstallCheckBodyBytes = 4096

    /// `POST /v1/uninstall-checks`: a silent internal push to every installation of the app that has a
    /// token (optionally of one `environment`), sent as a message of kind `uninstall_check`.
    ///
    /// Answers 202 `{"uninstall_check_id","message_id","targets"}`; progress is `GET /v1/messages/{id}`.
    /// A token APNs answers 410 for (FCM: `UNREGISTERED`) gets an `uninstall` event at APNs' timestamp and is
    /// deactivated as for any message. The push is `background`, priority 5, with `tidings.internal`, so the
    /// SDK neither wakes the app's own work nor records a delivery.
    func postUninstallCheck(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        guard provider != nil else {
            throw HTTPError(
                status: 503, code: "no_provider",
                message: "this server has no push provider configured (APNs credentials); it cannot send checks")
        }
        let body =
            request.body.isEmpty ? [:] : try jsonObject(request, maximumBytes: Self.maximumUninstallCheckBodyBytes)
        for key in body.keys.sorted() where key != "environment" {
            throw HTTPError(status: 400, code: "invalid_field", message: "\(key) is not a field of an uninstall check")
        }
        var environment: OutgoingPush.Environment?
        if let value = body["environment"], !value.isNull {
            guard let name = value.stringValue, let parsed = OutgoingPush.Environment(rawValue: name) else {
                throw HTTPError(
                    status: 400, code: "invalid_field", message: "environment must be sandbox or production")
            }
            environment = parsed
        }
        guard let app = try store.app(id: caller.appID) else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no app \(caller.appID)")
        }
        let date = clock.now
        let messageID = "msg_" + UUID().lowercasedString
        let built: MessagePayloadBuilder.Built
        do {
            built = try MessagePayloadBuilder().build(content: [:], kind: .uninstallCheck, messageID: messageID)
        } catch {
            throw HTTPError(status: error.status, code: error.code, message: error.message)
        }
        let policy = DeliveryPolicy(requireNotificationConsent: configuration.requireNotificationConsent)
        var deliveries: [MessageDelivery] = []
        try forEachInstallation(appID: caller.appID, userID: nil) { installation in
            let delivery = policy.delivery(
                for: installation, messageID: messageID, kind: .uninstallCheck, messageType: .notification,
                environment: environment, now: date)
            // Only installations with a token are targets: the others have nothing to check.
            if delivery.state == .pending { deliveries.append(delivery) }
        }
        let record = MessageRecord(
            id: messageID, appID: caller.appID, kind: .uninstallCheck, topic: app.bundleID, payload: built.bytes,
            priority: 5, createdAt: date.millisecondsSince1970)
        try storeCall { try store.createMessage(record, deliveries: deliveries) }
        fanoutCounters.messagesAccepted?.increment()
        logger.info(
            "uninstall check accepted",
            metadata: ["message_id": messageID, "app_id": caller.appID, "targets": "\(deliveries.count)"])
        return json(
            [
                "uninstall_check_id": .string(messageID), "message_id": .string(messageID),
                "targets": .integer(Int64(deliveries.count)),
            ], status: 202)
    }
}
