import Foundation
import TidingsHTTP
import TidingsModel
import TidingsStore

extension APIService {
    /// `POST /v1/events`: stores a batch and answers one receipt per event, keyed by event id.
    ///
    /// The batch is refused whole (413) beyond the count or byte limit; otherwise each event is judged
    /// alone: rejected when invalid, duplicate when its id was stored before in this app (with no time
    /// window), accepted otherwise. The accepted events of a batch are
    /// inserted in one transaction.
    ///
    /// The batch is parsed and judged on the calling thread; the store's answer comes through `reply`, later
    /// and from the thread that writes the batch's group when the store does not wait
    /// (``Store/insertsEventsWithoutWaiting``), before returning otherwise.
    func postEvents(
        _ request: HTTPRequest, reply: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) throws {
        let caller = try authenticate(request, .anyKey)
        let limits = configuration.eventLimits
        let elements = try eventBatch(request, limits: limits)
        let sender = try eventSender(caller, request)
        let now = self.now
        var receipts = [EventReceipt?](repeating: nil, count: elements.count)
        // The events to store, and for each its place in the batch and its id for the receipt: kept apart so
        // each event is moved into the array the store takes once, not copied out of a tuple again.
        var events: [TidingsEvent] = []
        var candidates: [(index: Int, eventID: String)] = []
        events.reserveCapacity(elements.count)
        candidates.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            switch element {
            case .event(var event, let rawEventID, let serializedBytes):
                do {
                    try event.validate(now: now, limits: limits, serializedBytes: serializedBytes)
                    try sender?.admit(&event)
                    candidates.append((index, event.eventID.lowercasedString))
                    events.append(event)
                } catch {
                    receipts[index] = Self.rejection(error, eventID: Self.readableEventID(rawEventID))
                }
            case .value(let value):
                do {
                    var event = try TidingsEvent(json: value)
                    try event.validate(now: now, limits: limits, serializedBytes: JSONText.byteCount(value))
                    try sender?.admit(&event)
                    candidates.append((index, event.eventID.lowercasedString))
                    events.append(event)
                } catch {
                    receipts[index] = Self.rejection(
                        error, eventID: value["event_id"]?.stringValue.map(Self.readableEventID))
                }
            }
        }
        // Events are kept even when their installation has not registered yet: the SDK's registration and
        // its event upload are separate durable queues, and a first launch offline may flush events first.
        // Everything is scoped to the calling app, so another app's key only ever writes its own data.
        let (known, stored) = (receipts, candidates)
        // The event types the app's journeys listen for are queued for them in the batch's transaction.
        let signalling = try journeyCatalog.journeys(appID: caller.appID).signalling
        store.insertEvents(appID: caller.appID, events: events, receivedAt: now, signalling: signalling) { outcome in
            reply(
                self.storeOutcome(outcome).map { inserted in
                    self.receiptsResponse(
                        known, candidates: stored, inserted: inserted, appID: caller.appID, request: request)
                })
        }
    }

    /// The batch's answer: each event's receipt, in the order sent, once the store has said which were new.
    private func receiptsResponse(
        _ known: [EventReceipt?], candidates: [(index: Int, eventID: String)], inserted: [Bool], appID: String,
        request: HTTPRequest
    ) -> HTTPResponse {
        var receipts = known
        var counts = (accepted: 0, duplicate: 0)
        for (candidate, isNew) in zip(candidates, inserted) {
            receipts[candidate.index] = EventReceipt(
                eventID: candidate.eventID, status: isNew ? .accepted : .duplicate)
            if isNew { counts.accepted += 1 } else { counts.duplicate += 1 }
        }
        let rejected = receipts.count - counts.accepted - counts.duplicate
        metrics.eventsIngested(accepted: counts.accepted, duplicate: counts.duplicate, rejected: rejected)
        logger.debug(
            "events ingested",
            metadata: [
                "app": appID, "accepted": String(counts.accepted), "duplicate": String(counts.duplicate),
                "rejected": String(rejected), "request_id": request.requestID,
            ])
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json"], body: Self.receiptsData(receipts))
    }

    /// A query parameter matched against a stored event field: free text, as the SDKs and the vendors'
    /// payloads send it, within the bound every stored field keeps.
    /// - Throws: 400 `invalid_parameter` naming it when it is empty or longer than any stored value can be.
    private func eventFieldFilter(_ request: HTTPRequest, _ name: String) throws -> String? {
        guard let value = request.queryValue(name) else { return nil }
        let limit = configuration.eventLimits.maximumFieldBytes
        guard (1...limit).contains(value.utf8.count) else {
            throw HTTPError(
                status: 400, code: "invalid_parameter",
                message: "\(name) is \(value.utf8.count) bytes; it must be 1 to \(limit) bytes")
        }
        return value
    }

    /// The entries of the body's `events` array, read straight from the bytes where the reader can
    /// (``EventBatchReader``), otherwise through `JSONValue` as any other body, which names the error.
    /// - Throws: 413 `payload_too_large` or `too_many_events`, 400 `invalid_json` or `invalid_field`.
    private func eventBatch(_ request: HTTPRequest, limits: EventLimits) throws -> [EventBatchReader.Element] {
        if request.body.count <= limits.maximumBatchBytes,
            let elements = EventBatchReader.read(request.body, maximumEvents: limits.maximumBatchEvents)
        {
            return elements
        }
        let body = try jsonObject(request, maximumBytes: limits.maximumBatchBytes)
        guard let elements = body["events"]?.arrayValue else {
            throw HTTPError(status: 400, code: "invalid_field", message: "events must be an array of event objects")
        }
        if elements.count > limits.maximumBatchEvents {
            throw HTTPError(
                status: 413, code: "too_many_events",
                message: "the batch has \(elements.count) events; the limit is \(limits.maximumBatchEvents) per request"
            )
        }
        return elements.map { .value($0) }
    }

    /// The installation an app key's batch comes from, proven by its secret; nil for server keys, whose
    /// batches may name any installation.
    /// - Throws: 403 `installation_required` when the batch names no installation, `installation_unknown` when
    ///   it has not registered yet (the SDK keeps its events until it has), or the installation secret's
    ///   refusals. A 403 makes the SDK keep the batch and try again later: nothing already recorded is lost.
    private func eventSender(_ caller: APICaller, _ request: HTTPRequest) throws -> EventSender? {
        guard caller.kind == .app else { return nil }
        guard let installationID = caller.installationID else {
            throw refuse(
                403, "installation_required",
                "app keys upload the events of one installation, named in \(TidingsAPI.installationHeader) and "
                    + "proven by its secret in \(Self.installationSecretHeader)")
        }
        guard let installation = try store.installation(appID: caller.appID, installationID: installationID) else {
            throw refuse(
                403, "installation_unknown",
                "installation \(installationID) has not registered: register it before uploading its events")
        }
        try requireOwnership(of: installation, request, caller: caller)
        return EventSender(
            installationID: installationID, userID: installation.userID,
            verifiesIdentity: try app(of: caller).identityVerification == .required)
    }

    /// The receipt of an event refused for `error`.
    private static func rejection(_ error: EventValidationError, eventID: String?) -> EventReceipt {
        EventReceipt(
            eventID: eventID, status: .rejected, error: WireError(code: error.code.rawValue, message: error.message))
    }

    /// The id to put on a receipt for an event that could not be read: lower-cased when it is a UUID.
    private static func readableEventID(_ raw: String) -> String {
        UUID(uuidString: raw).map { $0.lowercasedString } ?? raw
    }

    /// `{"receipts":[...]}`, each receipt written with sorted keys (`error`, `event_id`, `status`) as
    /// ``JSONText`` would, without a dictionary per receipt.
    static func receiptsData(_ receipts: [EventReceipt?]) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(16 + receipts.count * 72)
        bytes.append(contentsOf: #"{"receipts":["#.utf8)
        var first = true
        for case let receipt? in receipts {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes.append(UInt8(ascii: "{"))
            if let error = receipt.error {
                bytes.append(contentsOf: #""error":{"code":"#.utf8)
                JSONText.writeString(error.code, into: &bytes)
                bytes.append(contentsOf: #","message":"#.utf8)
                JSONText.writeString(error.message, into: &bytes)
                bytes.append(contentsOf: "},".utf8)
            }
            bytes.append(contentsOf: #""event_id":"#.utf8)
            if let eventID = receipt.eventID {
                JSONText.writeString(eventID, into: &bytes)
            } else {
                bytes.append(contentsOf: "null".utf8)
            }
            bytes.append(contentsOf: #","status":""#.utf8)
            bytes.append(contentsOf: receipt.status.rawValue.utf8)
            bytes.append(contentsOf: #""}"#.utf8)
        }
        bytes.append(contentsOf: "]}".utf8)
        return Data(bytes)
    }

    /// `GET /v1/events?type=&message_id=&campaign_id=&since=&until=&received_since=&cursor=&limit=`, for
    /// server keys.
    ///
    /// JSON pages by default (`limit` up to 1,000); `Accept: application/x-ndjson` or `text/csv` exports
    /// as lines (`limit` up to 100,000), with the next cursor in `X-Next-Cursor`.
    /// - Note: The export body is built whole in memory; switch to the server's streaming body once it
    ///   offers one, so exports need no limit.
    func getEvents(_ request: HTTPRequest) throws -> HTTPResponse {
        let caller = try authenticate(request, .serverKey)
        let accept = request.headers["Accept"]?.lowercased() ?? ""
        let format: ExportFormat =
            accept.contains("application/x-ndjson") ? .ndjson : accept.contains("text/csv") ? .csv : .json
        let limit = try pageLimit(request, maximum: format == .json ? nil : configuration.maximumExportRows)
        var query = EventQuery(limit: limit)
        if let type = request.queryValue("type"), !type.isEmpty {
            guard EventType(type).isAccepted else {
                throw HTTPError(
                    status: 400, code: "invalid_parameter", message: "type must be \(EventType.customNameRule)")
            }
            query.type = EventType(type)
        }
        query.messageID = try eventFieldFilter(request, "message_id")
        query.campaignID = try eventFieldFilter(request, "campaign_id")
        query.since = try timestamp(request, "since")
        query.receivedSince = try timestamp(request, "received_since")
        query.until = try timestamp(request, "until")
        if let position = try position(request, kind: "e") {
            guard let sequence = Int64(position) else {
                throw HTTPError(
                    status: 400, code: "invalid_cursor", message: "cursor is not one this endpoint gave out")
            }
            query.afterSequence = sequence
        }
        let page = try store.events(appID: caller.appID, query: query)
        let next = page.nextSequence.map { cursor(kind: "e", position: String($0)) }
        var headers: HTTPHeaders = [:]
        if let next { headers["X-Next-Cursor"] = next }
        switch format {
        case .ndjson:
            var bytes = [UInt8]()
            for stored in page.events {
                JSONText.write(Self.eventJSON(stored), into: &bytes)
                bytes.append(UInt8(ascii: "\n"))
            }
            headers["Content-Type"] = "application/x-ndjson"
            return HTTPResponse(status: 200, headers: headers, body: Data(bytes))
        case .csv:
            headers["Content-Type"] = "text/csv; charset=utf-8"
            return HTTPResponse(status: 200, headers: headers, body: Data(EventCSV.document(page.events).utf8))
        case .json:
            headers["Content-Type"] = "application/json"
            let body: JSONValue = [
                "events": .array(page.events.map(Self.eventJSON)), "next_cursor": next.map(JSONValue.string) ?? .null,
            ]
            return HTTPResponse(status: 200, headers: headers, body: JSONText.data(body))
        }
    }

    /// How `GET /v1/events` answers, chosen by `Accept`.
    enum ExportFormat {
        case json
        case ndjson
        case csv
    }

    static func eventJSON(_ stored: StoredEvent) -> JSONValue {
        guard case .object(var object) = stored.event.json else { return stored.event.json }
        object["received_at"] = .integer(stored.receivedAt)
        return .object(object)
    }

    /// A time query parameter: integer milliseconds since 1970 or an ISO 8601 date-time.
    private func timestamp(_ request: HTTPRequest, _ name: String) throws -> Int64? {
        guard let text = request.queryValue(name), !text.isEmpty else { return nil }
        if let milliseconds = Int64(text) ?? RFC3339.parse(text) { return milliseconds }
        throw HTTPError(
            status: 400, code: "invalid_parameter",
            message:
                "\(name) must be milliseconds since 1970 or an RFC 3339 date-time with its offset, such as 2026-11-29T12:00:00Z"
        )
    }
}
