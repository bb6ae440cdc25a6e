import Foundation
import TidingsCampaigns
import TidingsHTTP
import TidingsModel
import TidingsStore

/// Read-only routes the console's pages need beyond the rest of the API: the payload linter, an audience's
/// size, an app's overview, its recent messages, device search and a device's timeline. Server keys may
/// call them too.
extension APIService {
    func consoleRoutes() -> [HTTPRoute] {
        [
            HTTPRoute("POST", "/v1/lint") { try await self.lintMessage($0) },
            HTTPRoute("POST", "/v1/audience") { try await self.audienceSize($0) },
            HTTPRoute("GET", "/v1/stats/overview") { try await self.overview($0) },
            HTTPRoute("GET", "/v1/stats/messages") { try await self.recentMessages($0) },
            HTTPRoute("GET", "/v1/devices/search") { try await self.searchDevices($0) },
            HTTPRoute("GET", "/v1/installations/{installation_id}/timeline") { try await self.timeline($0) },
        ]
    }

    /// `POST /v1/lint`: a `POST /v1/messages` body (its `target` optional) built into the canonical payload
    /// the server would send, and that payload run through the project's payload linter.
    func lintMessage(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        var body = try expandingSegments(
            inBody: jsonObject(request, maximumBytes: configuration.maximumMessageBodyBytes), appID: caller.appID)
        if body["target"] == nil && body["audience"] == nil { body["target"] = .object(["all": .bool(true)]) }
        let date = clock.now
        let built: MessagePayloadBuilder.Built
        let messageRequest: MessageRequest
        do {
            messageRequest = try MessageRequest.parse(
                body, now: date, defaultTimeToLive: configuration.defaultTimeToLive)
            built = try MessagePayloadBuilder(insecureMediaHosts: configuration.insecureMediaHosts).build(
                content: messageRequest.content, kind: messageRequest.kind, messageID: "msg_preview",
                campaignID: messageRequest.campaignID)
        } catch {
            throw HTTPError(status: error.status, code: error.code, message: error.message)
        }
        let report: PayloadReport
        do {
            report = try PayloadReport.analyze(built.bytes, now: date, isVoIP: messageRequest.kind == .voip)
        } catch {
            throw HTTPError(status: 400, code: "invalid_payload", message: error.message)
        }
        let payload = (try? JSONValue.parse(built.bytes)) ?? .null
        return json(["payload": payload, "report": report.json])
    }

    /// `POST /v1/audience`: `{"target": ...}` as `POST /v1/messages` takes it; how many installations it
    /// reaches now (named installation ids the app does not have are not counted).
    func audienceSize(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let body = try expandingSegments(
            inBody: jsonObject(request, maximumBytes: configuration.maximumMessageBodyBytes), appID: caller.appID)
        try Self.allowOnly(body, ["target", "audience"])
        let target: MessageTarget
        do {
            var fields: [String: JSONValue] = ["content": .object([:])]
            fields["target"] = body["target"]
            fields["audience"] = body["audience"]
            target = try MessageRequest.parse(
                fields, now: clock.now,
                defaultTimeToLive: configuration.defaultTimeToLive
            ).target
        } catch {
            throw HTTPError(status: error.status, code: error.code, message: error.message)
        }
        var count = 0
        switch target {
        case .installations(let ids):
            count = try store.installations(appID: caller.appID, installationIDs: Array(Set(ids))).count
        case .users(let userIDs):
            for userID in Set(userIDs) {
                try forEachInstallation(appID: caller.appID, userID: userID) { _ in count += 1 }
            }
        case .tags(let expression):
            var tagsByUser: [String: Set<String>] = [:]
            try forEachInstallation(appID: caller.appID, userID: nil) { installation in
                var tags = Set<String>()
                if let userID = installation.userID {
                    if let known = tagsByUser[userID] {
                        tags = known
                    } else {
                        tags = Set(try store.tags(appID: caller.appID, userID: userID))
                        tagsByUser[userID] = tags
                    }
                }
                if expression.matches(tags) { count += 1 }
            }
        case .audience(let expression):
            count = try store.countInstallations(
                appID: caller.appID, audience: expression, now: clock.now.millisecondsSince1970)
        case .all:
            count = try store.installationBreakdown(appID: caller.appID).total
        }
        return json(["installations": .integer(Int64(count))])
    }

    /// `GET /v1/stats/overview?days=14`: installations by platform, permission and consent; sends,
    /// deliveries and opens per UTC day (every day present) and over the window, with the open rate: opens of
    /// the messages delivered in the window over those deliveries; failures in the window by reason.
    func overview(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        var days = 14
        if let text = request.queryValue("days") {
            guard let value = Int(text), (1...90).contains(value) else {
                throw HTTPError(status: 400, code: "invalid_parameter", message: "days must be an integer from 1 to 90")
            }
            days = value
        }
        let dayLength = DailyActivity.dayMilliseconds
        let today = now - now % dayLength
        let since = today - Int64(days - 1) * dayLength
        let breakdown = try store.installationBreakdown(appID: caller.appID)
        let activity = Dictionary(
            try store.dailyActivity(appID: caller.appID, since: since).map { ($0.day, $0) },
            uniquingKeysWith: { first, _ in first })
        func figures(_ entry: DailyActivity) -> [String: JSONValue] {
            [
                "sent": .integer(Int64(entry.sent)), "failed": .integer(Int64(entry.failed)),
                "delivered": .integer(Int64(entry.delivered)), "opened": .integer(Int64(entry.opened)),
                "open_rate": entry.delivered > 0
                    ? .double(Self.rounded(Double(entry.opened) / Double(entry.delivered))) : .null,
            ]
        }
        var total = DailyActivity(day: since)
        let series: [JSONValue] = (0..<days).map { index in
            let day = since + Int64(index) * dayLength
            let entry = activity[day] ?? DailyActivity(day: day)
            total.sent += entry.sent
            total.failed += entry.failed
            total.delivered += entry.delivered
            total.opened += entry.opened
            return .object(figures(entry).merging(["day": .integer(day)]) { _, new in new })
        }
        func counts(_ values: [String: Int]) -> JSONValue { .object(values.mapValues { .integer(Int64($0)) }) }
        return json([
            "installations": .object([
                "total": .integer(Int64(breakdown.total)), "with_token": .integer(Int64(breakdown.withToken)),
                "by_platform": counts(breakdown.byPlatform), "by_permission": counts(breakdown.byPermission),
                "notification_consent": .integer(Int64(breakdown.notificationConsent)),
                "ad_consent": .integer(Int64(breakdown.adConsent)),
            ]),
            "days": .array(series), "totals": .object(figures(total)),
            "failures_by_reason": counts(try store.failuresByReason(appID: caller.appID, since: since)),
        ])
    }

    /// `GET /v1/stats/messages`: the app's messages newest first with their counts; `cursor` pages back.
    func recentMessages(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let limit = try pageLimit(request, maximum: 100)
        let before = try position(request, kind: "m").map { text -> Int64 in
            guard let value = Int64(text) else {
                throw HTTPError(
                    status: 400, code: "invalid_cursor", message: "cursor is not one this endpoint gave out")
            }
            return value
        }
        let messages = try store.recentMessages(appID: caller.appID, createdBefore: before, limit: limit)
        var items: [JSONValue] = []
        for message in messages {
            let counts = try store.messageCounts(messageID: message.id)
            let payload = (try? JSONValue.parse(message.payload)) ?? .null
            let alert = payload["aps"]?["alert"]
            var object: [String: JSONValue] = [
                "message_id": .string(message.id), "state": .string(message.state.rawValue),
                "kind": .string(message.kind.rawValue), "created_at": .integer(message.createdAt),
                "campaign_id": message.campaignID.map(JSONValue.string) ?? .null,
                "title": alert?["title"] ?? alert?.stringValue.map(JSONValue.string) ?? .null,
                "body": alert?["body"] ?? .null, "payload": payload,
                "counts": .object([
                    "targets": .integer(Int64(counts.targets)), "queued": .integer(Int64(counts.queued)),
                    "sent": .integer(Int64(counts.sent)), "failed": .integer(Int64(counts.failed)),
                    "skipped": .integer(Int64(counts.skipped)), "cancelled": .integer(Int64(counts.cancelled)),
                ]),
            ]
            if let finishedAt = message.finishedAt { object["finished_at"] = .integer(finishedAt) }
            if message.state == .scheduled, let resolveAt = message.resolveAt {
                object["resolve_at"] = .integer(resolveAt)
            }
            items.append(.object(object))
        }
        let next: JSONValue =
            messages.count == limit ? .string(cursor(kind: "m", position: String(messages.last!.createdAt))) : .null
        return json(["messages": .array(items), "next_cursor": next])
    }

    /// `GET /v1/devices/search?q=`: installations whose id is `q`, whose user id is `q`, whose user has the
    /// tag `q`, or with a token starting with `q` (four characters or more); tokens masked, at most 50.
    func searchDevices(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        guard let query = request.queryValue("q"), (1...256).contains(query.utf8.count) else {
            throw HTTPError(status: 400, code: "invalid_parameter", message: "q must be 1 to 256 bytes")
        }
        let limit = 50
        var found: [String: (Installation, String)] = [:]
        func add(_ installations: [Installation], _ match: String) {
            for installation in installations where found[installation.installationID] == nil {
                found[installation.installationID] = (installation, match)
            }
        }
        if let installation = try store.installation(appID: caller.appID, installationID: query) {
            add([installation], "installation_id")
        }
        add(
            try store.installations(appID: caller.appID, query: InstallationQuery(userID: query, limit: limit)),
            "user_id")
        if configuration.tagLimits.isValid(query) {
            add(try store.installations(appID: caller.appID, query: InstallationQuery(tag: query, limit: limit)), "tag")
        }
        if query.count >= 4 {
            add(try store.installations(appID: caller.appID, tokenPrefix: query, limit: limit), "token")
        }
        let results = found.values.sorted { $0.0.installationID < $1.0.installationID }.prefix(limit)
        return json([
            "installations": .array(
                results.map { installation, match in
                    var object = Self.maskedInstallation(installation)
                    object["matched"] = .string(match)
                    return .object(object)
                })
        ])
    }

    /// `GET /v1/installations/{installation_id}/timeline`: the installation (tokens masked), its user's
    /// tags, and its latest events and deliveries, newest first.
    func timeline(_ request: HTTPRequest) async throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let installationID = try identifier(request, "installation_id")
        guard let installation = try store.installation(appID: caller.appID, installationID: installationID) else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no installation \(installationID)")
        }
        let limit = try pageLimit(request, maximum: 200)
        let tags = try installation.userID.map { try store.tags(appID: caller.appID, userID: $0) } ?? []
        let events = try store.events(appID: caller.appID, installationID: installationID, limit: limit)
        let deliveries = try store.deliveries(appID: caller.appID, installationID: installationID, limit: limit)
        return json([
            "installation": .object(Self.maskedInstallation(installation)),
            "tags": .array(tags.map(JSONValue.string)),
            "events": .array(events.map(Self.eventJSON)),
            "deliveries": .array(
                deliveries.map { delivery, updatedAt in
                    .object([
                        "message_id": .string(delivery.messageID), "state": .string(delivery.state.rawValue),
                        "reason": delivery.reason.map(JSONValue.string) ?? .null,
                        "token_type": .string(delivery.tokenType.rawValue),
                        "attempts": .integer(Int64(delivery.attempts)), "updated_at": .integer(updatedAt),
                    ])
                }),
        ])
    }

    /// The installation's JSON with each token cut to its first six and last four characters.
    static func maskedInstallation(_ installation: Installation) -> [String: JSONValue] {
        var object = InstallationJSON.json(installation).objectValue ?? [:]
        for key in ["apns_token", "voip_token", "fcm_token"] {
            guard let token = object[key]?.stringValue else { continue }
            object[key] = .string(token.count > 12 ? "\(token.prefix(6))…\(token.suffix(4))" : "…")
        }
        return object
    }
}
