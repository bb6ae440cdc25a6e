import Foundation
import TidingsCampaigns
import TidingsHTTP
import TidingsModel
import TidingsStore

/// The Live Activity routes (docs/live-activities.md): the SDK registers and removes each activity's update
/// token and the push-to-start token of each attributes type; a server key starts, updates and ends
/// activities with `POST /v1/live-activities`.
extension APIService {
    func liveActivityRoutes() -> [HTTPRoute] {
        [
            HTTPRoute.immediate("PUT", "/v1/installations/{installation_id}/live-activities/{activity_id}") {
                try self.putLiveActivityToken($0, kind: .update, scopeParameter: "activity_id")
            },
            HTTPRoute.immediate("DELETE", "/v1/installations/{installation_id}/live-activities/{activity_id}") {
                try self.deleteLiveActivityToken($0, kind: .update, scopeParameter: "activity_id")
            },
            HTTPRoute.immediate(
                "PUT", "/v1/installations/{installation_id}/push-to-start-tokens/{attributes_type}"
            ) {
                try self.putLiveActivityToken($0, kind: .pushToStart, scopeParameter: "attributes_type")
            },
            HTTPRoute.immediate(
                "DELETE", "/v1/installations/{installation_id}/push-to-start-tokens/{attributes_type}"
            ) {
                try self.deleteLiveActivityToken($0, kind: .pushToStart, scopeParameter: "attributes_type")
            },
            HTTPRoute.immediate("GET", "/v1/installations/{installation_id}/live-activities") {
                try self.getInstallationLiveActivities($0)
            },
            idempotent(HTTPRoute("POST", "/v1/live-activities") { try await self.postLiveActivity($0) }, .serverKey),
            HTTPRoute("GET", "/v1/live-activities/{activity_id}") { try await self.getLiveActivity($0) },
        ]
    }

    /// `PUT .../live-activities/{activity_id}` and `PUT .../push-to-start-tokens/{attributes_type}`:
    /// registers or refreshes a token (201 when new, 200 when refreshed).
    func putLiveActivityToken(
        _ request: HTTPRequest, kind: LiveActivityToken.Kind, scopeParameter: String
    ) throws -> HTTPResponse {
        let caller = try authenticate(request, .anyKey)
        let installationID = try identifier(request, "installation_id")
        let scope = try identifier(request, scopeParameter)
        let installation = try ownedInstallation(request, caller: caller, installationID: installationID)
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        for key in body.keys.sorted() where !["token", "environment", "attributes_type"].contains(key) {
            throw HTTPError(status: 400, code: "invalid_field", message: "\(key): is not a field of a token")
        }
        guard let raw = body["token"]?.stringValue, Self.isLiveActivityToken(raw) else {
            throw HTTPError(
                status: 400, code: "invalid_token",
                message: "token: must be the push token in hex, an even number of 64 to 512 digits")
        }
        var environment = installation.environment ?? "production"
        if let value = body["environment"], !value.isNull {
            guard let text = value.stringValue, ["sandbox", "production"].contains(text) else {
                throw HTTPError(
                    status: 400, code: "invalid_field", message: "environment: must be sandbox or production")
            }
            environment = text
        }
        let attributesType: String
        switch kind {
        case .pushToStart:
            attributesType = scope
        case .update:
            guard let text = body["attributes_type"]?.stringValue, Self.isIdentifier(text) else {
                throw HTTPError(
                    status: 400, code: "invalid_field",
                    message: "attributes_type: \(ResourceIdentifier.rule)")
            }
            attributesType = text
        }
        let date = now
        let (token, created) = try storeCall {
            try store.upsertLiveActivityToken(
                LiveActivityToken(
                    appID: caller.appID, installationID: installationID, kind: kind,
                    activityID: kind == .update ? scope : nil, attributesType: attributesType,
                    token: raw.lowercased(), environment: environment, createdAt: date, updatedAt: date))
        }
        return json(Self.liveActivityTokenJSON(token), status: created ? 201 : 200)
    }

    /// `DELETE` of either token: the activity ended or was dismissed, or push-to-start was turned off.
    func deleteLiveActivityToken(
        _ request: HTTPRequest, kind: LiveActivityToken.Kind, scopeParameter: String
    ) throws -> HTTPResponse {
        let caller = try authenticate(request, .anyKey)
        let installationID = try identifier(request, "installation_id")
        let scope = try identifier(request, scopeParameter)
        _ = try ownedInstallation(request, caller: caller, installationID: installationID)
        guard
            try store.removeLiveActivityToken(
                appID: caller.appID, installationID: installationID, kind: kind, scope: scope)
        else {
            let what = kind == .update ? "activity \(scope)" : "push-to-start token for \(scope)"
            throw HTTPError(status: 404, code: "not_found", message: "installation \(installationID) has no \(what)")
        }
        return HTTPResponse(status: 204)
    }

    /// `GET /v1/installations/{installation_id}/live-activities`: the installation's tokens of both kinds.
    func getInstallationLiveActivities(_ request: HTTPRequest) throws -> HTTPResponse {
        let caller = try authenticate(request, .anyKey)
        let installationID = try identifier(request, "installation_id")
        _ = try ownedInstallation(request, caller: caller, installationID: installationID)
        let updates = try store.liveActivityTokens(
            appID: caller.appID, installationIDs: [installationID], kind: .update)
        let starts = try store.liveActivityTokens(
            appID: caller.appID, installationIDs: [installationID], kind: .pushToStart)
        return json([
            "activities": .array(updates.map(Self.liveActivityTokenJSON)),
            "push_to_start_tokens": .array(starts.map(Self.liveActivityTokenJSON)),
        ])
    }

    /// `GET /v1/live-activities/{activity_id}`: the installations that registered the activity, with the
    /// outcome of the last push to each.
    func getLiveActivity(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let activityID = try identifier(request, "activity_id")
        let tokens = try store.liveActivityTokens(appID: caller.appID, activityID: activityID)
        guard !tokens.isEmpty else {
            throw HTTPError(status: 404, code: "not_found", message: "no installation has the activity \(activityID)")
        }
        return json([
            "activity_id": .string(activityID), "installations": .array(tokens.map(Self.liveActivityTokenJSON)),
        ])
    }

    /// `POST /v1/live-activities`: validates, picks the tokens, applies the priority budget and sends, then
    /// answers what became of each push (200).
    func postLiveActivity(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        guard let provider else {
            throw HTTPError(
                status: 503, code: "no_provider",
                message: "this server has no push provider configured (APNs credentials); it cannot send")
        }
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        let date = clock.now
        let parsed: LiveActivityRequest
        let payload: [UInt8]
        do {
            parsed = try LiveActivityRequest.parse(body, now: date)
            payload = try LiveActivityPayload.build(parsed)
        } catch {
            throw HTTPError(status: error.status, code: error.code.rawValue, message: error.message)
        }
        guard let app = try store.app(id: caller.appID) else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no app \(caller.appID)")
        }
        let limits = configuration.liveActivities
        let milliseconds = date.millisecondsSince1970
        try store.pruneLiveActivityTokens(
            appID: app.id, updatedBefore: milliseconds - Int64(limits.maximumActivityAge.seconds * 1000))
        var summary = LiveActivitySender.Summary()
        var tokens: [LiveActivityToken]
        switch parsed.selector {
        case .activity(let activityID):
            tokens = try store.liveActivityTokens(appID: app.id, activityID: activityID)
        case .audience(let target):
            let (installationIDs, unknown) = try liveActivityAudience(target, appID: app.id)
            if unknown > 0 { summary.skippedByReason["unknown_installation"] = unknown }
            let kind: LiveActivityToken.Kind = parsed.event == .start ? .pushToStart : .update
            tokens = try store.liveActivityTokens(appID: app.id, installationIDs: installationIDs, kind: kind)
            if let attributesType = parsed.attributesType {
                tokens.removeAll { $0.attributesType != attributesType }
            }
            let reached = Set(tokens.map(\.installationID)).count
            if installationIDs.count > reached {
                summary.skippedByReason["no_live_activity_token"] = installationIDs.count - reached
            }
        }
        guard tokens.count <= limits.maximumRecipients else {
            throw HTTPError(
                status: 422, code: "too_many_recipients",
                message:
                    "the request reaches \(tokens.count) Live Activity tokens; the limit is \(limits.maximumRecipients) per request"
            )
        }
        summary.targets = tokens.count
        let recipients = try prioritised(tokens, request: parsed, appID: app.id, now: date, summary: &summary)
        let sender = LiveActivitySender(
            store: store, provider: provider, configuration: limits, clock: clock, logger: logger)
        let expiration = date.addingTimeInterval(Double(parsed.timeToLive))
        await sender.send(
            recipients, payload: payload, topic: app.bundleID, expiration: parsed.timeToLive == 0 ? nil : expiration,
            into: &summary)
        logger.info(
            "live activity push",
            metadata: ["app_id": app.id, "event": parsed.event.rawValue, "targets": "\(summary.targets)"])
        func counts(_ byReason: [String: Int]) -> JSONValue { .object(byReason.mapValues { .integer(Int64($0)) }) }
        var answer: [String: JSONValue] = [
            "event": .string(parsed.event.rawValue), "targets": .integer(Int64(summary.targets)),
            "sent": .integer(Int64(summary.sent)), "removed": .integer(Int64(summary.removed)),
            "downgraded": .integer(Int64(summary.downgraded)), "failed": counts(summary.failedByReason),
            "skipped": counts(summary.skippedByReason), "priority": .integer(Int64(parsed.priority)),
        ]
        if let activityID = parsed.activityID { answer["activity_id"] = .string(activityID) }
        return json(.object(answer))
    }

    /// The priority of each push: 5, or 10 while the activity's budget lasts. One request takes one unit of
    /// each activity it reaches (Apple counts per activity, not per device). Starting an activity takes none.
    private func prioritised(
        _ tokens: [LiveActivityToken], request: LiveActivityRequest, appID: String, now: Date,
        summary: inout LiveActivitySender.Summary
    ) throws -> [LiveActivitySender.Recipient] {
        guard request.priority == 10, request.event != .start else {
            return tokens.map { .init(token: $0, priority: request.priority) }
        }
        let limits = configuration.liveActivities
        let window = max(1, Int64(limits.budgetWindow.seconds * 1000))
        let windowStart = now.millisecondsSince1970 / window * window
        var allowed: [String: Bool] = [:]
        var recipients: [LiveActivitySender.Recipient] = []
        for token in tokens {
            let activityID = token.activityID ?? ""
            let granted: Bool
            if let known = allowed[activityID] {
                granted = known
            } else {
                granted = try store.takeLiveActivityBudget(
                    appID: appID, activityID: activityID, windowStart: windowStart, limit: limits.priorityBudget)
                allowed[activityID] = granted
            }
            if granted {
                recipients.append(.init(token: token, priority: 10))
            } else if request.refusesOverBudget {
                if case .activity = request.selector {
                    let retry = max(1, (windowStart + window - now.millisecondsSince1970 + 999) / 1000)
                    throw HTTPError(
                        status: 429, code: "priority_budget_exhausted",
                        message:
                            "activity \(activityID) has had its \(limits.priorityBudget) priority-10 pushes of this window; send at priority 5 or retry in \(retry) s",
                        headers: ["Retry-After": String(retry)])
                }
                summary.skippedByReason["priority_budget_exhausted", default: 0] += 1
            } else {
                summary.downgraded += 1
                recipients.append(.init(token: token, priority: 5))
            }
        }
        return recipients
    }

    /// The app's installation `installationID`, which an app key must own (its installation secret).
    /// - Throws: 404 when the app has no such installation, 403 for a missing or wrong secret.
    private func ownedInstallation(
        _ request: HTTPRequest, caller: APICaller, installationID: String
    ) throws -> Installation {
        let installation = try store.installation(appID: caller.appID, installationID: installationID)
        try requireOwnership(of: installation, request, caller: caller)
        guard let installation else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no installation \(installationID)")
        }
        return installation
    }

    /// The installation ids `target` names (each once), and how many named installations do not exist.
    private func liveActivityAudience(_ target: MessageTarget, appID: String) throws -> ([String], Int) {
        var ids: [String] = []
        var seen = Set<String>()
        var unknown = 0
        func each(userID: String?, _ body: (Installation) throws -> Void) throws {
            var after: String?
            while true {
                let page = try store.installations(
                    appID: appID, query: InstallationQuery(userID: userID, afterInstallationID: after, limit: 1000))
                for installation in page { try body(installation) }
                guard page.count == 1000, let last = page.last else { return }
                after = last.installationID
            }
        }
        func add(_ id: String) { if seen.insert(id).inserted { ids.append(id) } }
        switch target {
        case .installations(let named):
            for id in named {
                if try store.installation(appID: appID, installationID: id) != nil { add(id) } else { unknown += 1 }
            }
        case .users(let userIDs):
            for userID in Set(userIDs).sorted() { try each(userID: userID) { add($0.installationID) } }
        case .tags(let expression):
            var tagsByUser: [String: Set<String>] = [:]
            try each(userID: nil) { installation in
                guard let userID = installation.userID else {
                    if expression.matches([]) { add(installation.installationID) }
                    return
                }
                let tags = try tagsByUser[userID] ?? Set(store.tags(appID: appID, userID: userID))
                tagsByUser[userID] = tags
                if expression.matches(tags) { add(installation.installationID) }
            }
        case .audience(let expression):
            var after: String?
            while true {
                let page = try store.installations(
                    appID: appID, audience: expression, afterInstallationID: after, limit: 1000,
                    now: clock.now.millisecondsSince1970)
                for installation in page { add(installation.installationID) }
                guard page.count == 1000, let last = page.last else { break }
                after = last.installationID
            }
        case .all:
            try each(userID: nil) { add($0.installationID) }
        }
        return (ids, unknown)
    }

    /// Hex, an even number of digits, 64 to 512 of them: ActivityKit's tokens are longer than device tokens.
    static func isLiveActivityToken(_ token: String) -> Bool {
        let bytes = token.utf8
        return (64...512).contains(bytes.count) && bytes.count % 2 == 0
            && bytes.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0)
            }
    }

    static func liveActivityTokenJSON(_ token: LiveActivityToken) -> JSONValue {
        var object: [String: JSONValue] = [
            "installation_id": .string(token.installationID), "kind": .string(token.kind.rawValue),
            "attributes_type": .string(token.attributesType), "token": .string(token.token),
            "environment": .string(token.environment), "created_at": .integer(token.createdAt),
            "updated_at": .integer(token.updatedAt),
        ]
        if let activityID = token.activityID { object["activity_id"] = .string(activityID) }
        if let lastSentAt = token.lastSentAt { object["last_sent_at"] = .integer(lastSentAt) }
        if let lastOutcome = token.lastOutcome { object["last_outcome"] = .string(lastOutcome) }
        return .object(object)
    }
}
