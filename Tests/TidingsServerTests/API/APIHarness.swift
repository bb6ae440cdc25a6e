import Foundation
import Testing
import TidingsAPNsEmulator
import TidingsHTTP
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// A TidingsAPI over a fresh store with two apps, each with an app key and a server key.
struct APIHarness {
    /// What a request got back: the status, the parsed JSON (errors rendered as the server would), raw response.
    struct Reply {
        var status: Int
        var json: JSONValue
        var response: HTTPResponse

        var errorCode: String? { json["error"]?["code"]?.stringValue }
        var errorMessage: String { json["error"]?["message"]?.stringValue ?? "" }
    }

    static let startDate = Date(timeIntervalSince1970: 1_800_000_000)

    let api: TidingsAPI
    let store: any Store
    let clock: ManualClock
    let metrics: RecordingMetrics
    var appKey = ""
    var serverKey = ""
    var otherAppKey = ""
    var otherServerKey = ""
    var appID = "app_main"
    /// Each installation's secret as the API issued it, sent again with later requests for it as the SDK does.
    let secrets = LockedBox([String: String]())

    /// - Parameters:
    ///   - sharing: a store another harness made, as a second instance on it would open it: no apps or keys
    ///     are added then, and `clock` is that harness's.
    ///   - secretSealer: seals the new store's secrets (a TOTP secret is stored only sealed).
    init(
        backend: StoreBackend = .sqlite, provider: (any PushProvider)? = nil, sharing: (any Store)? = nil,
        clock sharedClock: ManualClock? = nil, secretSealer: (any SecretSealer)? = nil,
        configure: (inout TidingsAPI.Configuration) -> Void = { _ in }
    ) throws {
        store = try sharing ?? backend.makeStore(secretSealer: secretSealer)
        clock = sharedClock ?? ManualClock(now: Self.startDate)
        metrics = RecordingMetrics()
        var configuration = TidingsAPI.Configuration()
        configuration.keyCacheSeconds = 0
        configure(&configuration)
        api = TidingsAPI(
            store: store, configuration: configuration, clock: clock, logger: .disabled(), metrics: metrics,
            provider: provider)
        if sharing != nil { return }
        let now = clock.now.millisecondsSince1970
        try store.createApp(AppRecord(id: "app_main", name: "main", bundleID: "com.example.main", createdAt: now))
        try store.createApp(AppRecord(id: "app_other", name: "other", bundleID: "com.example.other", createdAt: now))
        appKey = try issue("app_main", .app)
        serverKey = try issue("app_main", .server)
        otherAppKey = try issue("app_other", .app)
        otherServerKey = try issue("app_other", .server)
    }

    func issue(_ appID: String, _ kind: APIKeyKind) throws -> String {
        let issued = APIKeySecret.issue(appID: appID, kind: kind, now: clock.now.millisecondsSince1970)
        try store.createKey(issued.record)
        return issued.secret
    }

    var now: Int64 { clock.now.millisecondsSince1970 }

    /// Sends a request through the router, rendering thrown ``HTTPError``s as the server does.
    ///
    /// Like the SDK, it keeps the `installation_secret` an answer carries and presents it with later requests
    /// for that installation (its path, or `X-Tidings-Installation`); `presentSecret: false` sends none.
    func call(
        _ method: String, _ path: String, key: String? = nil, json: JSONValue? = nil, body: Data? = nil,
        query: [(String, String)] = [], headers: [(String, String)] = [], presentSecret: Bool = true,
        remoteAddress: String? = nil
    ) async throws -> Reply {
        var request = HTTPRequest(
            method: method, path: path, query: query.map { (name: $0.0, value: $0.1) }, remoteAddress: remoteAddress)
        if let key { request.headers["Authorization"] = "Bearer \(key)" }
        let pathParts = path.split(separator: "/")
        let installationID =
            pathParts.count >= 3 && pathParts[1] == "installations"
            ? String(pathParts[2]) : headers.first { $0.0 == TidingsAPI.installationHeader }?.1
        if presentSecret, let installationID, let secret = secrets.withLock({ $0[installationID] }) {
            request.headers["X-Tidings-Installation-Secret"] = secret
        }
        for (name, value) in headers { request.headers[name] = value }
        if let json { request.body = try JSONEncoder().encode(json) }
        if let body { request.body = body }
        do {
            let response = try await api.router.handler(request)
            let parsed =
                response.headers["Content-Type"] == "application/json"
                ? try JSONDecoder().decode(JSONValue.self, from: response.body) : .null
            if let installationID, let secret = parsed["installation_secret"]?.stringValue {
                secrets.withLock { $0[installationID] = secret }
            }
            return Reply(status: response.status, json: parsed, response: response)
        } catch let error as HTTPError {
            let rendered: JSONValue = ["error": ["code": .string(error.code), "message": .string(error.message)]]
            return Reply(status: error.status, json: rendered, response: HTTPResponse(status: error.status))
        }
    }

    /// Registers `installationID` with `fields` through the API and checks it worked.
    @discardableResult
    func register(_ installationID: String, _ fields: [String: JSONValue] = [:], key: String? = nil) async throws
        -> Reply
    {
        let reply = try await call(
            "PUT", "/v1/installations/\(installationID)", key: key ?? appKey, json: .object(fields))
        #expect(reply.status == 200 || reply.status == 201, "\(reply.json)")
        return reply
    }

    /// The header a device sends with its events: its installation id; ``call`` presents the secret it keeps.
    static func device(_ installationID: String = "inst-1") -> [(String, String)] {
        [(TidingsAPI.installationHeader, installationID)]
    }

    /// Posts a batch as device `installation` does: the app key, its id in `X-Tidings-Installation` and the
    /// secret it registered with.
    func postEvents(
        json: JSONValue? = nil, body: Data? = nil, as installation: String = "inst-1", key: String? = nil,
        presentSecret: Bool = true
    ) async throws -> Reply {
        try await call(
            "POST", "/v1/events", key: key ?? appKey, json: json, body: body, headers: Self.device(installation),
            presentSecret: presentSecret)
    }

    /// Posts `events` as the devices that recorded them post them: each run of one installation's events in a
    /// request of its own, with the app key, the installation's id and its secret, as the SDK's uploader does
    /// (so the events are stored in the batch's order). Installations must have registered. The receipts come
    /// back merged in the batch's order; a refused request is answered as it is.
    func postAsDevices(_ events: [JSONValue], key: String? = nil) async throws -> Reply {
        var receipts: [JSONValue] = []
        var last: Reply?
        var start = 0
        while start < events.count {
            let installation = events[start]["installation_id"]?.stringValue ?? ""
            var end = start + 1
            while end < events.count, events[end]["installation_id"]?.stringValue == installation { end += 1 }
            let reply = try await postEvents(
                json: ["events": .array(Array(events[start..<end]))], as: installation, key: key)
            if reply.status != 200 { return reply }
            receipts += reply.json["receipts"]?.arrayValue ?? []
            last = reply
            start = end
        }
        guard var reply = last else { return try await postEvents(json: ["events": []], key: key) }
        reply.json = ["receipts": .array(receipts)]
        return reply
    }

    static func token(_ seed: Int) -> String {
        String(repeating: String(format: "%02x", seed % 256), count: 32)
    }

    /// One event as wire JSON.
    func event(
        _ type: String, installation: String = "inst-1", id: UUID = UUID(), message: String? = "m1",
        campaign: String? = "c1", extra: [String: JSONValue] = [:]
    ) -> JSONValue {
        var object: [String: JSONValue] = [
            "event_id": .string(id.uuidString.lowercased()), "type": .string(type), "occurred_at": .integer(now),
            "installation_id": .string(installation), "platform": "ios",
        ]
        if let message { object["message_id"] = .string(message) }
        if let campaign { object["campaign_id"] = .string(campaign) }
        if type == "action" || type == "reply" { object["action_id"] = "buy" }
        object.merge(extra) { _, new in new }
        return .object(object)
    }
}

/// Records what the API reports, for assertions.
final class RecordingMetrics: APIMetrics {
    struct Counts: Equatable {
        var accepted = 0
        var duplicate = 0
        var rejected = 0
        var upserts = 0
        var authFailures = 0
    }

    let counts = LockedBox(Counts())

    func eventsIngested(accepted: Int, duplicate: Int, rejected: Int) {
        counts.withLock {
            $0.accepted += accepted
            $0.duplicate += duplicate
            $0.rejected += rejected
        }
    }

    func installationUpserted(created: Bool) { counts.withLock { $0.upserts += 1 } }
    func authenticationFailed(status: Int) { counts.withLock { $0.authFailures += 1 } }
}

extension JSONValue {
    /// The element at `index` when this is an array long enough.
    subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}
