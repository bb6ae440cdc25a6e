import Foundation
import Tidings
import TidingsModel
import TidingsServer

/// Typed calls to tidingsd's API (docs/openapi.yaml), over the SDK's ``HTTPTransport``: the server-key routes
/// here, the administration routes in ``AdminClient``.
///
/// ```swift
/// let client = ServerClient(connection: try ServerConnection.resolve(arguments))
/// let sent = try await client.sendMessage(["target": ["all": true], "content": ["title": "Hi"]])
/// let status = try await client.message(sent.messageID)   // state, counts, funnel
/// ```
///
/// Every failure is a ``ServerClientError``: the server's `{"error": {"code", "message"}}` with its status, or
/// no answer at all (with the address that was tried).
struct ServerClient: Sendable {
    let connection: ServerConnection
    let transport: any HTTPTransport
    /// How long one request may take.
    var timeout: Duration = .seconds(30)

    /// Over `transport`, by default libcurl (``CurlTransport``), else URLSession.
    init(connection: ServerConnection, transport: (any HTTPTransport)? = nil) {
        self.connection = connection
        self.transport = transport ?? CurlTransport.shared ?? URLSessionTransport()
    }

    // MARK: Messages

    /// `POST /v1/messages`: queues `body` (a `MessageRequest`); answers the id and target counts.
    func sendMessage(_ body: JSONValue) async throws(ServerClientError) -> SentMessage {
        let json = try await json("POST", ["v1", "messages"], body: body)
        guard let id = json["message_id"]?.stringValue, case .integer(let targets)? = json["targets"] else {
            throw error(.malformedResponse("POST /v1/messages answered without message_id and targets"))
        }
        var skipped: [String: Int] = [:]
        for (reason, count) in json["skipped"]?.objectValue ?? [:] {
            if case .integer(let count) = count { skipped[reason] = Int(count) }
        }
        let queued: Int? = if case .integer(let queued)? = json["queued"] { Int(queued) } else { nil }
        return SentMessage(messageID: id, targets: Int(targets), queued: queued, skipped: skipped, json: json)
    }

    /// `GET /v1/messages/{id}`: state, delivery counts and funnel.
    func message(_ id: String) async throws(ServerClientError) -> JSONValue {
        try await json("GET", ["v1", "messages", id])
    }

    /// `DELETE /v1/messages/{id}`: cancels what is not sent yet.
    func cancelMessage(_ id: String) async throws(ServerClientError) -> JSONValue {
        try await json("DELETE", ["v1", "messages", id])
    }

    /// `GET /v1/messages/{id}/stats`: the funnel of one message.
    func messageStats(_ id: String) async throws(ServerClientError) -> JSONValue {
        try await json("GET", ["v1", "messages", id, "stats"])
    }

    /// `GET /v1/campaigns/{id}/stats`: the funnel of a campaign.
    func campaignStats(_ id: String) async throws(ServerClientError) -> JSONValue {
        try await json("GET", ["v1", "campaigns", id, "stats"])
    }

    /// `GET /v1/stats/overview?days=`: the app over the last `days` days, as the console's overview shows it.
    func overview(days: Int) async throws(ServerClientError) -> JSONValue {
        try await json("GET", ["v1", "stats", "overview"], query: [("days", String(days))])
    }

    // MARK: Installations

    /// `GET /v1/installations`: one page of the installations `filter` matches.
    func installations(_ filter: InstallationFilter = InstallationFilter(), cursor: String? = nil, limit: Int? = nil)
        async throws(ServerClientError) -> ServerPage
    {
        let json = try await json("GET", ["v1", "installations"], query: filter.query(cursor: cursor, limit: limit))
        return try page(json, itemsKey: "installations", route: "GET /v1/installations")
    }

    /// `GET /v1/installations/{id}`: one installation and its tokens.
    func installation(_ id: String) async throws(ServerClientError) -> JSONValue {
        try await json("GET", ["v1", "installations", id])
    }

    // MARK: Events

    /// `GET /v1/events`: one JSON page of stored events, oldest first.
    func events(_ filter: EventFilter, cursor: String? = nil, limit: Int? = nil) async throws(ServerClientError)
        -> ServerPage
    {
        let json = try await json("GET", ["v1", "events"], query: filter.query(cursor: cursor, limit: limit))
        return try page(json, itemsKey: "events", route: "GET /v1/events")
    }

    /// `GET /v1/events` as NDJSON or CSV: one page of the export, its bytes as the server wrote them.
    func exportEvents(_ filter: EventFilter, format: EventExport.Format, cursor: String? = nil, limit: Int? = nil)
        async throws(ServerClientError) -> EventExport
    {
        let response = try await send(
            "GET", ["v1", "events"], query: filter.query(cursor: cursor, limit: limit), accept: format.mediaType)
        return EventExport(body: response.body, nextCursor: response.header("X-Next-Cursor"))
    }

    // MARK: Plumbing

    /// Sends a request and answers its JSON body; any non-2xx status becomes a refusal.
    func json(_ method: String, _ path: [String], query: [(String, String?)] = [], body: JSONValue? = nil)
        async throws(ServerClientError) -> JSONValue
    {
        let response = try await send(method, path, query: query, body: body, accept: "application/json")
        do {
            return try JSONValue.parse(response.body)
        } catch {
            throw self.error(
                .malformedResponse("\(method) /\(path.joined(separator: "/")) answered non-JSON: \(error)"))
        }
    }

    /// Sends a request and answers the 2xx response; other statuses become ``ServerClientError``.
    /// `raw` is a body sent as it is (an import file's part), with its media type.
    func send(
        _ method: String, _ path: [String], query: [(String, String?)] = [], body: JSONValue? = nil,
        raw: (bytes: [UInt8], mediaType: String)? = nil, accept: String
    ) async throws(ServerClientError) -> TransportResponse {
        var headers = ["Authorization": "Bearer \(connection.key)", "Accept": accept]
        var bytes: [UInt8] = []
        if let raw {
            bytes = raw.bytes
            headers["Content-Type"] = raw.mediaType
        } else if let body {
            do {
                bytes = try body.serialized()
            } catch {
                throw self.error(.malformedResponse("the request body cannot be written as JSON: \(error)"))
            }
            headers["Content-Type"] = "application/json"
        }
        let request = TransportRequest(
            method: method, url: url(path, query: query), headers: headers, body: bytes, timeout: timeout)
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw self.error(.unreachable(error))
        }
        guard response.isSuccess else { throw refusal(response) }
        return response
    }

    /// The server's `{"error": {"code", "message"}}`, or the bare status when the body is something else.
    private func refusal(_ response: TransportResponse) -> ServerClientError {
        let parsed = try? JSONValue.parse(response.body)
        let code = parsed?["error"]?["code"]?.stringValue ?? "http_\(response.status)"
        let text = String(decoding: response.body.prefix(200), as: UTF8.self)
        let message =
            parsed?["error"]?["message"]?.stringValue
            ?? (text.isEmpty ? "no error body" : text.replacingOccurrences(of: "\n", with: " "))
        return error(.refused(status: response.status, code: code, message: message))
    }

    private func page(_ json: JSONValue, itemsKey: String, route: String) throws(ServerClientError) -> ServerPage {
        guard let items = json[itemsKey]?.arrayValue else {
            throw error(.malformedResponse("\(route) answered without \(itemsKey)"))
        }
        return ServerPage(items: items, nextCursor: json["next_cursor"]?.stringValue)
    }

    private func error(_ reason: ServerClientError.Reason) -> ServerClientError {
        ServerClientError(reason: reason, server: connection.server, hint: hint(for: reason))
    }

    /// What to do about a refusal the server's message alone does not explain: a 403 means the key is of the
    /// wrong kind, and only the client knows which setting that key came from.
    private func hint(for reason: ServerClientError.Reason) -> String? {
        guard case .refused(403, "forbidden", _) = reason else { return nil }
        let presented = APIKeySecret.kind(of: connection.key)
        switch connection.keyKind {
        case .admin where presented != .admin:
            let what: String =
                switch presented {
                case .app?: "an app key"
                case .server?: "a server key"
                default: "not an admin key"
                }
            return "The key from --admin-key, \(ConnectionKey.admin.environmentVariable) or admin_key is \(what); "
                + "apps and keys need an admin key (tdg_adm_…), made on the store's host with "
                + "'tidingsd keys create --kind admin'"
        case .server where presented == .admin:
            return "An admin key manages apps and keys only; pass a server key (tdg_srv_…) with --key or "
                + ConnectionKey.server.environmentVariable
        default:
            return nil
        }
    }

    /// The base URL plus percent-encoded path segments and query items (nil values are left out).
    func url(_ path: [String], query: [(String, String?)]) -> URL {
        var text = connection.server.absoluteString
        for segment in path {
            text += "/" + (segment.addingPercentEncoding(withAllowedCharacters: Self.pathCharacters) ?? segment)
        }
        let items = query.compactMap { name, value in
            value.map { "\(name)=" + ($0.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? $0) }
        }
        if !items.isEmpty { text += "?" + items.joined(separator: "&") }
        // Every other character is percent-encoded above, so the URL always parses.
        return URL(string: text)!
    }

    /// RFC 3986 unreserved characters: everything else in a path segment or query value is encoded, so ids
    /// holding `/`, `+`, `&` or `#` reach the server intact.
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    /// A path segment keeps `:` as it is (RFC 3986 allows it there): a custom method such as
    /// `/v1/journeys:validate` is matched literally, and an id's colon decodes the same either way.
    private static let pathCharacters = unreserved.union(CharacterSet(charactersIn: ":"))
}
