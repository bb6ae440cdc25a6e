import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// A message fixture with journey helpers: create and start journeys, post what people do, run the engine and
/// the fan-out to the end.
struct JourneyFixture {
    let messages: MessageFixture

    init(backend: StoreBackend) throws {
        messages = try MessageFixture(backend: backend)
    }

    var harness: APIHarness { messages.harness }
    var clock: ManualClock { messages.clock }
    var store: any Store { messages.store }

    /// The abandoned cart of docs/journeys.md: wait an hour, remind, wait a day, a last call; a purchase exits.
    static let abandonedCart: JSONValue = [
        "name": "Abandoned cart",
        "trigger": ["event": "add_to_cart"],
        "entry": ["rule": "once_every", "days": 7],
        "exit": [["event": "purchase"]],
        "steps": [
            ["id": "pause", "type": "wait", "duration": 3600],
            ["id": "remind", "type": "send", "message": ["content": ["title": "Still thinking about it?"]]],
            ["id": "a_day", "type": "wait", "duration": 86400],
            ["id": "last_call", "type": "send", "message": ["content": ["title": "Last call"]]],
        ],
    ]

    /// Creates and starts a journey; returns its id.
    func start(_ definition: JSONValue) async throws -> String {
        let created = try await harness.call("POST", "/v1/journeys", key: harness.serverKey, json: definition)
        #expect(created.status == 201, "\(created.json)")
        let id = try #require(created.json["journey_id"]?.stringValue)
        let started = try await harness.call("POST", "/v1/journeys/\(id)/start", key: harness.serverKey)
        #expect(started.status == 200, "\(started.json)")
        return id
    }

    /// Registers `installation` of `user` with a token and notification consent.
    func register(_ installation: String, seed: Int, user: String?) async throws {
        var fields: [String: JSONValue] = [:]
        if let user { fields["user_id"] = .string(user) }
        try await messages.register(installation, seed: seed, fields)
    }

    /// Posts an event as the device does.
    func emit(_ type: String, from installation: String, user: String?, extra: [String: JSONValue] = [:]) async throws {
        var fields = extra
        if let user { fields["user_id"] = .string(user) }
        let event = harness.event(type, installation: installation, message: nil, campaign: nil, extra: fields)
        let reply = try await harness.postEvents(json: ["events": [event]], as: installation)
        #expect(reply.status == 200, "\(reply.json)")
    }

    /// Runs the engine, then the fan-out, until both have nothing left.
    func settle() async throws {
        try harness.api.journeys.runOnce()
        _ = try await messages.worker().drain()
    }

    /// Moves the clock on and settles.
    func advance(seconds: Int64) async throws {
        clock.advance(by: .seconds(seconds))
        try await settle()
    }

    func journey(_ id: String) async throws -> JSONValue {
        let reply = try await harness.call("GET", "/v1/journeys/\(id)", key: harness.serverKey)
        #expect(reply.status == 200, "\(reply.json)")
        return reply.json
    }

    /// The numbers of step `id` in a `GET /v1/journeys/{id}` answer.
    static func step(_ journey: JSONValue, _ id: String) -> JSONValue {
        journey["steps"]?.arrayValue?.first { $0["id"]?.stringValue == id } ?? .null
    }

    /// The titles of the pushes sent so far, in order.
    var titles: [String] {
        messages.provider.pushes.compactMap { push in
            (try? JSONValue.parse(Data(push.payload)))?["aps"]?["alert"]?["title"]?.stringValue
        }
    }
}
