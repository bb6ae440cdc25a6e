import Foundation
import TidingsForwarding
import TidingsHTTP
import TidingsModel
import TidingsStore

/// The administration API of event forwarding (docs/forwarding.md): an app's destinations, their state,
/// backfills and dead letters, for an admin key. Secrets (a Treasure Data write key, a webhook's signing
/// secret) go in once; a generated signing secret is in the creating answer only, and no answer or log
/// line carries one again.
extension APIService {
    func forwarderRoutes() -> [HTTPRoute] {
        let base = "/v1/admin/apps/{app}/forwarders"
        let one = base + "/{forwarder_id}"
        return [
            HTTPRoute("GET", base) { try await self.adminListForwarders($0) },
            idempotent(
                HTTPRoute("POST", base) { try await self.adminCreateForwarder($0) }, .adminKey, secretFields: ["secret"]
            ),
            HTTPRoute("GET", one) { try await self.adminGetForwarder($0) },
            HTTPRoute("DELETE", one) { try await self.adminRemoveForwarder($0) },
            HTTPRoute("POST", one + "/pause") { try await self.adminSetForwarderState($0, .paused) },
            HTTPRoute("POST", one + "/resume") { try await self.adminSetForwarderState($0, .active) },
            HTTPRoute("POST", one + "/backfill") { try await self.adminBackfillForwarder($0) },
            HTTPRoute("GET", one + "/dead-letters") { try await self.adminListDeadLetters($0) },
            HTTPRoute("POST", one + "/dead-letters/replay") { try await self.adminReplayDeadLetters($0) },
            HTTPRoute("DELETE", one + "/dead-letters") { try await self.adminPurgeDeadLetters($0) },
        ]
    }

    func adminListForwarders(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let app = try forwardingApp(request)
        let forwarders = try storeCall { try store.forwarders(appID: app.id) }
        return json(["forwarders": .array(try forwarders.map(forwarderJSON))])
    }

    /// `POST /v1/admin/apps/{app}/forwarders`
    /// `{"kind", "settings": {...}, "filter": {...}, "start": "now"|"beginning", "state": "active"|"paused"}`.
    func adminCreateForwarder(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let app = try forwardingApp(request)
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        try Self.allowOnly(body, ["kind", "settings", "filter", "start", "state"])
        guard let kindText = body["kind"]?.stringValue, let kind = ForwarderRecord.Kind(rawValue: kindText) else {
            throw HTTPError(
                status: 400, code: "invalid_field",
                message: "kind must be one of \(ForwarderRecord.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let input = body["settings"]?.objectValue else {
            throw HTTPError(status: 400, code: "invalid_field", message: "settings must be an object")
        }
        let settings: [String: JSONValue]
        let filter: ForwarderRecord.Filter
        do {
            settings = try ForwarderSettings.validated(kind: kind, input)
            filter = try ForwarderSettings.filter(body["filter"])
        } catch {
            throw HTTPError(status: 400, code: "invalid_field", message: error.message)
        }
        var state = ForwarderRecord.State.active
        if let text = body["state"] {
            guard let parsed = text.stringValue.flatMap(ForwarderRecord.State.init(rawValue:)) else {
                throw HTTPError(status: 400, code: "invalid_field", message: "state must be active or paused")
            }
            state = parsed
        }
        let cursor: Int64
        switch body["start"]?.stringValue ?? (body["start"] == nil ? "now" : "") {
        case "now": cursor = try storeCall { try store.latestEventSequence(appID: app.id) }
        case "beginning": cursor = 0
        default:
            throw HTTPError(
                status: 400, code: "invalid_field",
                message: "start must be now (events stored from now on) or beginning (every stored event)")
        }
        let record = ForwarderRecord(
            id: "fwd_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20),
            appID: app.id, kind: kind, settings: settings, filter: filter, state: state, cursor: cursor,
            createdAt: now)
        try storeCall { try store.createForwarder(record) }
        logger.info(
            "forwarder added", metadata: ["app_id": app.id, "forwarder_id": record.id, "kind": kind.rawValue])
        guard case .object(var answer) = try forwarderJSON(record) else { return json(.null, status: 500) }
        if kind == .webhook, let secret = settings["secret"] {
            // The one time the signing secret is shown: receivers need it to verify.
            answer["secret"] = secret
        }
        return json(.object(answer), status: 201)
    }

    func adminGetForwarder(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let (_, forwarder) = try requestedForwarder(request)
        return json(try forwarderJSON(forwarder))
    }

    func adminRemoveForwarder(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let (app, forwarder) = try requestedForwarder(request)
        try storeCall { _ = try store.removeForwarder(appID: app.id, id: forwarder.id) }
        logger.info("forwarder removed", metadata: ["app_id": app.id, "forwarder_id": forwarder.id])
        return HTTPResponse(status: 204)
    }

    func adminSetForwarderState(_ request: HTTPRequest, _ state: ForwarderRecord.State) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let (app, forwarder) = try requestedForwarder(request)
        let updated = try storeCall { try store.setForwarderState(appID: app.id, id: forwarder.id, state: state) }
        logger.info(
            state == .active ? "forwarder resumed" : "forwarder paused",
            metadata: ["app_id": app.id, "forwarder_id": forwarder.id])
        return json(try forwarderJSON(updated))
    }

    /// `POST .../backfill` `{"since", "until"}`: unix milliseconds or ISO 8601 date-times of `occurred_at`.
    func adminBackfillForwarder(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let (app, forwarder) = try requestedForwarder(request)
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        try Self.allowOnly(body, ["since", "until"])
        let since = try Self.forwardingTime(body, "since")
        let until = try Self.forwardingTime(body, "until")
        guard since < until else {
            throw HTTPError(status: 400, code: "invalid_field", message: "since must be before until")
        }
        let updated = try storeCall {
            try store.startForwarderBackfill(appID: app.id, id: forwarder.id, since: since, until: until)
        }
        logger.info("forwarder backfill started", metadata: ["app_id": app.id, "forwarder_id": forwarder.id])
        return json(try forwarderJSON(updated), status: 202)
    }

    func adminListDeadLetters(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let (app, forwarder) = try requestedForwarder(request)
        let letters = try storeCall { try store.deadLetters(appID: app.id, forwarderID: forwarder.id) }
        return json(["dead_letters": .array(letters.map(Self.deadLetterJSON))])
    }

    /// `POST .../dead-letters/replay` `{"ids": [...]}` (every parked one when left out).
    func adminReplayDeadLetters(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let (app, forwarder) = try requestedForwarder(request)
        let body = request.body.isEmpty ? [:] : try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        try Self.allowOnly(body, ["ids"])
        let ids = try Self.deadLetterIDs(body["ids"])
        let count = try storeCall {
            try store.requestDeadLetterReplay(appID: app.id, forwarderID: forwarder.id, ids: ids, now: now)
        }
        logger.info(
            "dead letters queued for replay",
            metadata: ["app_id": app.id, "forwarder_id": forwarder.id, "count": String(count)])
        return json(["replaying": .integer(Int64(count))], status: 202)
    }

    /// `DELETE .../dead-letters?ids=a,b` (every one when `ids` is left out).
    func adminPurgeDeadLetters(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let (app, forwarder) = try requestedForwarder(request)
        let ids = request.queryValue("ids").map { $0.split(separator: ",").map(String.init) }
        if let ids, ids.isEmpty || ids.count > 1000 {
            throw HTTPError(status: 400, code: "invalid_parameter", message: "ids must list 1 to 1000 dead letter ids")
        }
        let count = try storeCall { try store.purgeDeadLetters(appID: app.id, forwarderID: forwarder.id, ids: ids) }
        logger.info(
            "dead letters purged", metadata: ["app_id": app.id, "forwarder_id": forwarder.id, "count": String(count)])
        return json(["purged": .integer(Int64(count))])
    }

    // MARK: Helpers

    private func forwardingApp(_ request: HTTPRequest) throws -> AppRecord {
        let reference = try identifier(request, "app")
        return try storeCall { try AppAdministration(store: store, clock: clock).app(reference) }
    }

    private func requestedForwarder(_ request: HTTPRequest) throws -> (AppRecord, ForwarderRecord) {
        let app = try forwardingApp(request)
        let id = try identifier(request, "forwarder_id")
        guard let forwarder = try storeCall({ try store.forwarder(appID: app.id, id: id) }) else {
            throw HTTPError(status: 404, code: "not_found", message: "the app has no forwarder \(id)")
        }
        return (app, forwarder)
    }

    /// A forwarder as the administration API shows it: secrets left out, health and lag added.
    private func forwarderJSON(_ forwarder: ForwarderRecord) throws -> JSONValue {
        let backlog = try storeCall { try store.eventBacklog(appID: forwarder.appID, afterSequence: forwarder.cursor) }
        func optional(_ value: Int64?) -> JSONValue { value.map(JSONValue.integer) ?? .null }
        return [
            "forwarder_id": .string(forwarder.id), "app_id": .string(forwarder.appID),
            "kind": .string(forwarder.kind.rawValue), "state": .string(forwarder.state.rawValue),
            "settings": .object(ForwarderSettings.redacted(forwarder.settings)),
            "filter": [
                "event_types": .array(forwarder.filter.eventTypes.map(JSONValue.string)),
                "campaigns": .array(forwarder.filter.campaigns.map(JSONValue.string)),
                "drop_fields": .array(forwarder.filter.droppedFields.map(JSONValue.string)),
            ],
            "cursor": .integer(forwarder.cursor), "created_at": .integer(forwarder.createdAt),
            "failing_since": optional(forwarder.failingSince),
            "last_error": forwarder.lastError.map(JSONValue.string) ?? .null,
            "last_success_at": optional(forwarder.lastSuccessAt),
            "lag": [
                "events": .integer(Int64(backlog.count)),
                "oldest_received_at": optional(backlog.oldestReceivedAt),
            ],
            "backfill": forwarder.backfill.map {
                ["since": .integer($0.since), "until": .integer($0.until), "cursor": .integer($0.cursor)]
            } ?? .null,
        ]
    }

    static func deadLetterJSON(_ letter: DeadLetterRecord) -> JSONValue {
        [
            "dead_letter_id": .string(letter.id), "first_sequence": .integer(letter.firstSequence),
            "last_sequence": .integer(letter.lastSequence), "event_count": .integer(Int64(letter.eventCount)),
            "status": letter.status.map { .integer(Int64($0)) } ?? .null, "error": .string(letter.error),
            "state": .string(letter.state.rawValue), "attempts": .integer(Int64(letter.attempts)),
            "created_at": .integer(letter.createdAt), "updated_at": .integer(letter.updatedAt),
        ]
    }

    private static func deadLetterIDs(_ value: JSONValue?) throws -> [String]? {
        guard let value else { return nil }
        guard let array = value.arrayValue, !array.isEmpty, array.count <= 1000,
            case let ids = array.compactMap(\.stringValue), ids.count == array.count
        else {
            throw HTTPError(status: 400, code: "invalid_field", message: "ids must be an array of 1 to 1000 strings")
        }
        return ids
    }

    /// A time member: integer unix milliseconds or an ISO 8601 date-time.
    private static func forwardingTime(_ body: [String: JSONValue], _ field: String) throws -> Int64 {
        if let milliseconds = body[field]?.integerValue { return milliseconds }
        if let text = body[field]?.stringValue, let milliseconds = RFC3339.parse(text) { return milliseconds }
        throw HTTPError(
            status: 400, code: "invalid_field",
            message:
                "\(field) must be milliseconds since 1970 or an RFC 3339 date-time with its offset, such as 2026-11-29T12:00:00Z"
        )
    }
}
