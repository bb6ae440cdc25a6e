import Foundation
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTestSupport
import TidingsTesting

/// A tidingsd API served over loopback on a fresh store: one app with an app key and a server key, pushes
/// going to a ``RecordingPushProvider`` through the real fan-out workers, credentials (administration API)
/// kept in the store's directory as `tidingsd` keeps them in its data directory.
struct APIBackend {
    let directory: URL
    let store: SQLiteStore
    let api: TidingsAPI
    let provider: RecordingPushProvider
    let fanout: FanoutService
    let server: HTTPServer
    let endpoint: String
    let appKey: String
    let serverKey: String
    let appID: String
    /// Each registered installation's secret, as its registration answered it.
    let secrets = LockedBox([String: String]())

    /// - Parameter sending: Whether fan-out workers run; without them messages stay queued.
    init(sending: Bool = true) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteStore(directory: directory)
        let administration = AppAdministration(store: store)
        let app = try administration.createApp(name: "CLI", bundleID: "com.example.cli")
        appID = app.id
        appKey = try administration.createKey(app: app.id, kind: .app).secret
        serverKey = try administration.createKey(app: app.id, kind: .server).secret
        provider = RecordingPushProvider()
        var apiConfiguration = TidingsAPI.Configuration()
        apiConfiguration.credentialsDirectory = directory
        api = TidingsAPI(store: store, configuration: apiConfiguration, logger: .disabled(), provider: provider)
        var configuration = FanoutWorker.Configuration()
        configuration.pollInterval = .milliseconds(50)
        fanout = FanoutService(store: store, provider: provider, configuration: configuration)
        if sending { fanout.start() }
        let handler = HTTPMiddleware.standard(
            router: api.router, logger: .disabled(), metrics: MetricsRegistry(), handlerTimeout: .seconds(30))
        server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), handler: handler, logger: .disabled())
        endpoint = "http://127.0.0.1:\(try server.start())"
    }

    func stop() async {
        await fanout.stop()
        server.stopNow()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Calls the API in process and answers the status and JSON body.
    @discardableResult
    func call(
        _ method: String, _ path: String, key: String, _ body: JSONValue? = nil, headers: [String: String] = [:]
    ) async throws -> (status: Int, json: JSONValue) {
        var request = HTTPRequest(
            method: method, path: path, headers: ["Authorization": "Bearer \(key)"],
            body: try body.map { Data(try $0.serialized()) } ?? Data())
        for (name, value) in headers { request.headers[name] = value }
        let response = try await api.router.handler(request)
        return (response.status, response.body.isEmpty ? .null : try JSONValue.parse(response.body))
    }

    /// Registers installation `id` with an APNs token (derived from the id), optionally logged in as `user`,
    /// with the device fields in `context` (`language`, `timezone`, `os_name`, ...).
    @discardableResult
    func register(_ id: String, user: String? = nil, context: [String: JSONValue] = [:]) async throws -> String {
        let token = Self.token(for: id)
        var body: [String: JSONValue] = [
            "platform": "ios", "apns_token": .string(token), "environment": "production",
            "consents": ["notifications": true, "ads": true, "night_ads": true],
        ]
        if let user { body["user_id"] = .string(user) }
        body.merge(context) { $1 }
        let answer = try await call("PUT", "/v1/installations/\(id)", key: appKey, .object(body))
        precondition(answer.status == 200 || answer.status == 201, "register \(id): \(answer)")
        if let secret = answer.json["installation_secret"]?.stringValue { secrets.withLock { $0[id] = secret } }
        return token
    }

    /// A valid APNs token (64 hex digits) that differs per installation id.
    static func token(for id: String) -> String {
        let hex = id.utf8.map { String($0, radix: 16) }.joined()
        return String((hex + String(repeating: "0", count: 64)).prefix(64))
    }

    /// Gives `user` these tags.
    func tag(_ user: String, _ tags: [String]) async throws {
        let answer = try await call(
            "PUT", "/v1/users/\(user)/tags", key: serverKey, ["tags": .array(tags.map(JSONValue.string))])
        precondition(answer.status == 200, "tag \(user): \(answer)")
    }

    /// Uploads `events` as their devices would: each run of one installation's events in a request with its id
    /// and secret (so they are stored in order). The installations must have registered.
    func post(_ events: [TidingsEvent]) async throws {
        var start = 0
        while start < events.count {
            let installation = events[start].installationID
            var end = start + 1
            while end < events.count, events[end].installationID == installation { end += 1 }
            var headers = ["X-Tidings-Installation": installation]
            if let secret = secrets.withLock({ $0[installation] }) { headers["X-Tidings-Installation-Secret"] = secret }
            let answer = try await call(
                "POST", "/v1/events", key: appKey, ["events": .array(events[start..<end].map(\.json))],
                headers: headers)
            precondition(answer.status == 200, "post events: \(answer)")
            let receipts = answer.json["receipts"]?.arrayValue ?? []
            precondition(receipts.allSatisfy { $0["status"] == "accepted" }, "post events: \(answer)")
            start = end
        }
    }

    /// The stored message and its decoded payload.
    func message(_ id: String) throws -> (record: MessageRecord, payload: PushPayload)? {
        guard let record = try store.message(appID: appID, messageID: id) else { return nil }
        return (record, try PushPayload.decode(record.payload))
    }

    /// The environment the CLI runs in: no inherited TIDINGS_* settings, and a HOME with no config file.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ["HOME": directory.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"]
        environment.merge(extra) { $1 }
        return environment
    }

    /// Runs `tidings` off the cooperative pool (the in-process server's handlers need it).
    func tidings(_ arguments: [String], environment extra: [String: String] = [:]) async throws
        -> TidingsExecutable.Result
    {
        let environment = environment(extra)
        return try await TidingsExecutable.run(arguments, environment: environment)
    }

    /// A new admin key, made on the store as `tidingsd keys create --kind admin` makes it.
    func makeAdminKey() throws -> String {
        try AppAdministration(store: store).createAdminKey().secret
    }

    /// Runs `tidings` with `--server` pointing here and `--admin-key adminKey`.
    func tidingsAdmin(_ arguments: [String], adminKey: String) async throws -> TidingsExecutable.Result {
        try await tidings(arguments + ["--server", endpoint, "--admin-key", adminKey])
    }

    /// Runs `tidings` with `--server` and `--key` pointing here.
    func tidingsConnected(_ arguments: [String]) async throws -> TidingsExecutable.Result {
        try await tidings(arguments + ["--server", endpoint, "--key", serverKey])
    }
}
