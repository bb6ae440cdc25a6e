import Foundation
import TidingsHTTP
import TidingsModel
import TidingsStore

extension APIService {
    /// `POST /v1/messages`: validates, builds the payload, resolves the target into a persistent job.
    ///
    /// Answers 202 with the message id and the target counts; the ``FanoutService`` sends it.
    func postMessage(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        guard provider != nil else {
            throw HTTPError(
                status: 503, code: "no_provider",
                message: "this server has no push provider configured (APNs credentials); it cannot send messages")
        }
        let body = try jsonObject(request, maximumBytes: configuration.maximumMessageBodyBytes)
        let date = clock.now
        let messageRequest: MessageRequest
        let built: MessagePayloadBuilder.Built
        let messageID = "msg_" + UUID().lowercasedString
        // The app's own default time to live, when it set one, replaces the server's.
        let appTTL = try storeCall { try store.sendSettings(appID: caller.appID) }.defaultTTLSeconds
        do {
            messageRequest = try MessageRequest.parse(
                body, now: date, defaultTimeToLive: appTTL.map { .seconds($0) } ?? configuration.defaultTimeToLive)
            built = try MessagePayloadBuilder(insecureMediaHosts: configuration.insecureMediaHosts).build(
                content: messageRequest.content, kind: messageRequest.kind, messageID: messageID,
                campaignID: messageRequest.campaignID)
        } catch {
            throw HTTPError(status: error.status, code: error.code, message: error.message)
        }
        guard let app = try store.app(id: caller.appID) else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no app \(caller.appID)")
        }
        var deliveries: [MessageDelivery] = []
        var seen = Set<String>()
        try resolveTargets(messageRequest.target, appID: caller.appID) { installation, targetUserID in
            guard seen.insert(installation.installationID).inserted else { return }
            deliveries.append(
                .target(
                    installation, messageID: messageID, kind: messageRequest.kind,
                    environment: messageRequest.environment, targetUserID: targetUserID))
        } unknown: { installationID in
            guard seen.insert(installationID).inserted else { return }
            deliveries.append(
                MessageDelivery(
                    messageID: messageID, appID: caller.appID, installationID: installationID, token: "",
                    state: .skipped, reason: DeliveryPolicy.SkipReason.unknownInstallation.rawValue))
        }
        let record = MessageRecord(
            id: messageID, appID: caller.appID, kind: messageRequest.kind, messageType: messageRequest.messageType,
            campaignID: messageRequest.campaignID, topic: app.bundleID, payload: built.bytes,
            priority: messageRequest.priority, expiresAt: messageRequest.expiration?.millisecondsSince1970,
            collapseID: messageRequest.collapseID, nightPolicy: messageRequest.nightPolicy,
            createdAt: date.millisecondsSince1970, ratePerSecond: messageRequest.ratePerSecond)
        try storeCall { try store.createMessage(record, deliveries: deliveries) }
        var skipped: [String: Int] = [:]
        for delivery in deliveries where delivery.state == .skipped {
            skipped[delivery.reason ?? "unknown", default: 0] += 1
        }
        let queued = deliveries.count - skipped.values.reduce(0, +)
        fanoutCounters.messagesAccepted?.increment()
        fanoutCounters.skipped?.increment(by: deliveries.count - queued)
        logger.info(
            "message accepted",
            metadata: ["message_id": messageID, "app_id": caller.appID, "targets": "\(deliveries.count)"])
        return json(
            [
                "message_id": .string(messageID), "targets": .integer(Int64(deliveries.count)),
                "queued": .integer(Int64(queued)), "skipped": .object(skipped.mapValues { .integer(Int64($0)) }),
            ], status: 202)
    }

    /// `GET /v1/messages/{message_id}`: state, delivery counts and the event funnel.
    func getMessage(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let messageID = try identifier(request, "message_id")
        guard let message = try store.message(appID: caller.appID, messageID: messageID) else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no message \(messageID)")
        }
        return json(try messageJSON(message))
    }

    /// `DELETE /v1/messages/{message_id}`: cancels what is not sent yet and answers the counts.
    func cancelMessage(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let messageID = try identifier(request, "message_id")
        guard let message = try store.cancelMessage(appID: caller.appID, messageID: messageID, now: now) else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no message \(messageID)")
        }
        if message.state == .done {
            throw HTTPError(
                status: 409, code: "already_finished", message: "message \(messageID) was already sent to every target")
        }
        return json(try messageJSON(message))
    }

    private func messageJSON(_ message: MessageRecord) throws -> JSONValue {
        let counts = try store.messageCounts(messageID: message.id)
        let funnel = try store.funnel(appID: message.appID, scope: .message(message.id))
        func reasons(_ byReason: [String: Int]) -> JSONValue { .object(byReason.mapValues { .integer(Int64($0)) }) }
        var object: [String: JSONValue] = [
            "message_id": .string(message.id), "state": .string(message.state.rawValue),
            "kind": .string(message.kind.rawValue), "message_type": .string(message.messageType.rawValue),
            "created_at": .integer(message.createdAt),
            "counts": [
                "targets": .integer(Int64(counts.targets)), "queued": .integer(Int64(counts.queued)),
                "in_flight": .integer(Int64(counts.inFlight)), "sent": .integer(Int64(counts.sent)),
                "failed": .integer(Int64(counts.failed)), "skipped": .integer(Int64(counts.skipped)),
                "failed_by_reason": reasons(counts.failedByReason),
                "skipped_by_reason": reasons(counts.skippedByReason),
            ],
            "funnel": Self.statsJSON(funnel, counts: counts, idKey: "message_id", id: message.id),
        ]
        if let campaignID = message.campaignID { object["campaign_id"] = .string(campaignID) }
        if let rate = message.ratePerSecond { object["rate_per_second"] = .integer(Int64(rate)) }
        if let finishedAt = message.finishedAt { object["finished_at"] = .integer(finishedAt) }
        return .object(object)
    }

    /// Calls `found` for every installation `target` names (in pages, so memory stays bounded by the
    /// result), with the user it was reached as for a message to users, and `unknown` for a named installation
    /// id the app does not have.
    private func resolveTargets(
        _ target: MessageTarget, appID: String, found: (Installation, _ targetUserID: String?) throws -> Void,
        unknown: (String) -> Void
    ) throws {
        switch target {
        case .installations(let ids):
            for id in ids {
                if let installation = try store.installation(appID: appID, installationID: id) {
                    try found(installation, nil)
                } else {
                    unknown(id)
                }
            }
        case .users(let userIDs):
            for userID in Set(userIDs).sorted() {
                try forEachInstallation(appID: appID, userID: userID) { try found($0, userID) }
            }
        case .tags(let expression):
            var tagsByUser: [String: Set<String>] = [:]
            try forEachInstallation(appID: appID, userID: nil) { installation in
                var tags = Set<String>()
                if let userID = installation.userID {
                    if let cached = tagsByUser[userID] {
                        tags = cached
                    } else {
                        tags = Set(try store.tags(appID: appID, userID: userID))
                        tagsByUser[userID] = tags
                    }
                }
                // Matched by its user's tags: at send time it must still belong to that user.
                if expression.matches(tags) { try found(installation, installation.userID) }
            }
        case .all:
            try forEachInstallation(appID: appID, userID: nil) { try found($0, nil) }
        }
    }

    func forEachInstallation(appID: String, userID: String?, _ body: (Installation) throws -> Void) throws {
        var after: String?
        while true {
            let page = try store.installations(
                appID: appID, query: InstallationQuery(userID: userID, afterInstallationID: after, limit: 1000))
            for installation in page { try body(installation) }
            guard page.count == 1000, let last = page.last else { return }
            after = last.installationID
        }
    }
}
