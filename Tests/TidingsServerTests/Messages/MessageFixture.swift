import Foundation
import Testing
import TidingsAPNsEmulator
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// An API with a recording provider, and helpers to register installations and send messages.
struct MessageFixture {
    let harness: APIHarness
    let provider: RecordingPushProvider

    init(provider: RecordingPushProvider = RecordingPushProvider(), backend: StoreBackend = .sqlite) throws {
        self.provider = provider
        // The harness's clock stands still, so a rate limit's bucket never refills: tests that poll a message
        // until it is done would run into 429s after the burst on a slow machine. Limits have their own tests.
        harness = try APIHarness(backend: backend, provider: provider) { configuration in
            configuration.keyRateLimits.server = RateLimit(burst: 1_000_000, perSecond: 1_000_000)
            configuration.keyRateLimits.app = RateLimit(burst: 1_000_000, perSecond: 1_000_000)
        }
    }

    var store: any Store { harness.store }
    var clock: ManualClock { harness.clock }

    /// A worker on the fixture's store and clock; retries are due at once unless `backoff` says otherwise.
    func worker(
        provider: (any PushProvider)? = nil, chunkSize: Int = 500, inFlight: Int = 64,
        backoff: Duration = .zero, metrics: MetricsRegistry? = nil, shortClaimInterval: Duration? = nil
    ) -> FanoutWorker {
        var configuration = FanoutWorker.Configuration()
        configuration.chunkSize = chunkSize
        configuration.maximumInFlight = inFlight
        configuration.initialBackoff = backoff
        if let shortClaimInterval { configuration.shortClaimInterval = shortClaimInterval }
        return FanoutWorker(
            store: store, provider: provider ?? self.provider, clock: clock, configuration: configuration,
            metrics: metrics)
    }

    /// Registers `id` with an APNs token from `seed`, notification consent, and `fields`.
    func register(_ id: String, seed: Int, _ fields: [String: JSONValue] = [:]) async throws {
        var body: [String: JSONValue] = [
            "apns_token": .string(APIHarness.token(seed)), "consents": ["notifications": true],
            "timezone": "Asia/Tokyo",
        ]
        body.merge(fields) { _, new in new }
        try await harness.register(id, body)
    }

    /// `POST /v1/messages` with the server key.
    func send(_ body: JSONValue) async throws -> APIHarness.Reply {
        try await harness.call("POST", "/v1/messages", key: harness.serverKey, json: body)
    }

    /// `GET /v1/messages/{id}` with the server key.
    func status(_ messageID: String) async throws -> APIHarness.Reply {
        try await harness.call("GET", "/v1/messages/\(messageID)", key: harness.serverKey)
    }

    /// A simple alert to `target`.
    static func alert(_ target: JSONValue, _ extra: [String: JSONValue] = [:]) -> JSONValue {
        var body: [String: JSONValue] = ["target": target, "content": ["title": "Hello", "body": "World"]]
        body.merge(extra) { _, new in new }
        return .object(body)
    }
}

extension APIHarness.Reply {
    /// `counts.<name>` of a message status.
    func count(_ name: String) -> Int64? {
        guard case .integer(let value)? = json["counts"]?[name] else { return nil }
        return value
    }

    func skipped(_ reason: String) -> Int64? {
        guard case .integer(let value)? = json["counts"]?["skipped_by_reason"]?[reason] else { return nil }
        return value
    }
}
