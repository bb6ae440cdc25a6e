import Foundation
import TidingsCampaigns
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
        let created: UninstallCheck.Created
        do {
            created = try storeCall {
                try UninstallCheck.create(store: store, app: app, environment: environment, now: clock.now)
            }
        } catch let error as MessageError {
            throw HTTPError(status: error.status, code: error.code, message: error.message)
        }
        fanoutCounters.messagesAccepted?.increment()
        logger.info(
            "uninstall check accepted",
            metadata: ["message_id": created.messageID, "app_id": caller.appID, "targets": "\(created.targets)"])
        return json(
            [
                "uninstall_check_id": .string(created.messageID), "message_id": .string(created.messageID),
                "targets": .integer(Int64(created.targets)),
            ], status: 202)
    }
}
