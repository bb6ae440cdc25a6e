import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// What enters people, on both stores: an event narrowed by `where`, an attribute change with `becomes`, and
/// the events the app's backend reports with `POST /v1/users/{user_id}/events`.
@Suite struct JourneyTriggerTests {
    @Test(arguments: StoreBackend.allCases)
    func anEventTriggerWithWhereEntersOnlyOnAMatchingValueAndAttributes(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        for (index, name) in ["silver", "monthly", "match"].enumerated() {
            try await fixture.register(name, seed: index + 1, user: nil)
        }
        let id = try await fixture.start([
            "name": "Gold buyers",
            "trigger": ["event": "purchase", "where": ["value": "gold", "attributes": ["plan": "annual"]]],
            "steps": [JourneyFixture.send("thanks", "Thanks")],
        ])
        try await fixture.emit(
            "purchase", from: "silver", user: nil, extra: ["value": "silver", "attributes": ["plan": "annual"]])
        try await fixture.emit(
            "purchase", from: "monthly", user: nil, extra: ["value": "gold", "attributes": ["plan": "monthly"]])
        try await fixture.emit(
            "purchase", from: "match", user: nil, extra: ["value": "gold", "attributes": ["plan": "annual"]])
        try await fixture.emit(
            "sign_up", from: "silver", user: nil, extra: ["value": "gold", "attributes": ["plan": "annual"]])
        try await fixture.settle()
        #expect(fixture.titles(to: "match") == ["Thanks"])
        #expect(fixture.titles(to: "silver").isEmpty)
        #expect(fixture.titles(to: "monthly").isEmpty)
        #expect(try await fixture.journey(id)["entered"] == 1)
    }

    @Test(arguments: StoreBackend.allCases)
    func anAttributeTriggerWithBecomesEntersOnAChangeToThatValue(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: nil)
        let id = try await fixture.start([
            "name": "Upgraded", "trigger": ["attribute": "plan", "becomes": "pro"],
            "steps": [JourneyFixture.send("welcome", "Welcome to Pro")],
        ])
        let patch = "/v1/installations/phone/attributes"
        let free = try await fixture.harness.call("PATCH", patch, key: fixture.harness.appKey, json: ["plan": "free"])
        #expect(free.status == 200, "\(free.json)")
        try await fixture.settle()
        #expect(fixture.titles.isEmpty, "a change to another value")

        let pro = try await fixture.harness.call("PATCH", patch, key: fixture.harness.serverKey, json: ["plan": "pro"])
        #expect(pro.status == 200, "\(pro.json)")
        try await fixture.settle()
        #expect(fixture.titles(to: "phone") == ["Welcome to Pro"])

        try await fixture.advance(seconds: 10)
        _ = try await fixture.harness.call("PATCH", patch, key: fixture.harness.serverKey, json: ["plan": "pro"])
        try await fixture.settle()
        #expect(fixture.titles == ["Welcome to Pro"], "setting the value it already has is no change")

        // A registration that arrives with the value is a change too.
        try await fixture.messages.register(
            "tablet", seed: 2, ["attributes": ["plan": "pro"]])
        try await fixture.settle()
        #expect(fixture.titles(to: "tablet") == ["Welcome to Pro"])
        try await fixture.messages.register("laptop", seed: 3, ["attributes": ["plan": "free"]])
        try await fixture.settle()
        #expect(fixture.titles(to: "laptop").isEmpty)
        #expect(try await fixture.journey(id)["entered"] == 2)
    }

    @Test(arguments: StoreBackend.allCases)
    func anAttributeTriggerWithoutBecomesEntersOnAnyChange(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: nil)
        _ = try await fixture.start([
            "name": "Plan changed", "trigger": ["attribute": "plan"],
            "steps": [JourneyFixture.send("note", "Plan changed")],
        ])
        try await fixture.messages.register("phone", seed: 1, ["attributes": ["plan": "free", "color": "red"]])
        try await fixture.settle()
        #expect(fixture.titles == ["Plan changed"])
        try await fixture.advance(seconds: 1)
        try await fixture.messages.register("phone", seed: 1, ["attributes": ["plan": "free", "color": "blue"]])
        try await fixture.settle()
        #expect(fixture.titles == ["Plan changed"], "another attribute changed")
    }

    static let signUp: JSONValue = JourneyFixture.journey(
        "signed_up", [JourneyFixture.wait("pause", 3600), JourneyFixture.send("day_one", "Day one")],
        ["exit": [["event": "purchase"]]])

    @Test(arguments: StoreBackend.allCases)
    func aBackendEventEntersTheUserAndAnotherEndsTheirRun(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "u1")
        try await fixture.register("tablet", seed: 2, user: "u1")
        try await fixture.register("other", seed: 3, user: "u2")
        let id = try await fixture.start(Self.signUp)
        let eventID = UUID().uuidString.lowercased()
        let first = try await fixture.report("u1", ["type": "signed_up", "event_id": .string(eventID)])
        #expect(first.status == 202, "\(first.json)")
        #expect(first.json["status"] == "accepted")
        #expect(first.json["event_id"]?.stringValue == eventID)
        let again = try await fixture.report("u1", ["type": "signed_up", "event_id": .string(eventID)])
        #expect(again.status == 202)
        #expect(again.json["status"] == "duplicate")
        #expect(try await fixture.report("u2", ["type": "signed_up"]).status == 202)
        try await fixture.settle()
        var journey = try await fixture.journey(id)
        #expect(journey["entered"] == 2)
        #expect(journey["already_in"] == 0, "the duplicate was not heard")

        try await fixture.advance(seconds: 60)
        #expect(try await fixture.report("u1", ["type": "purchase", "value": "9.99"]).status == 202)
        try await fixture.settle()
        try await fixture.advance(seconds: 3600)
        #expect(fixture.titles(to: "phone").isEmpty, "u1 bought: their run ended")
        #expect(fixture.titles(to: "tablet").isEmpty)
        #expect(fixture.titles(to: "other") == ["Day one"])
        journey = try await fixture.journey(id)
        #expect(journey["exited"]?["event:purchase"] == 1)
        #expect(journey["completed"] == 1)
    }

    @Test(arguments: StoreBackend.allCases)
    func aBackendEventIsRefusedWithTheFieldNamed(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        let id = try await fixture.start(Self.signUp)
        let refused: [(JSONValue, String)] = [
            (["type": "signed_up", "platform": "ios"], "platform"),
            (["value": "x"], "type"),
            (["type": 5], "type"),
            (["type": "signed_up", "event_id": "not-a-uuid"], "event_id"),
            (["type": "signed_up", "event_id": 7], "event_id"),
            (["type": "signed_up", "attributes": "plan"], "attributes"),
        ]
        for (body, field) in refused {
            let reply = try await fixture.report("u1", body)
            #expect(reply.status == 400, "\(body)")
            #expect(reply.errorCode == "invalid_field", "\(body): \(reply.json)")
            #expect(reply.errorMessage.contains(field), "\(body): \(reply.errorMessage)")
        }
        let badType = try await fixture.report("u1", ["type": .string(String(repeating: "x", count: 1000))])
        #expect(badType.status == 400, "\(badType.json)")
        let appKey = try await fixture.report("u1", ["type": "signed_up"], key: fixture.harness.appKey)
        #expect(appKey.status == 403, "\(appKey.json)")
        let noKey = try await fixture.harness.call("POST", "/v1/users/u1/events", json: ["type": "signed_up"])
        #expect(noKey.status == 401)
        try await fixture.settle()
        #expect(try await fixture.journey(id)["entered"] == 0, "no refused event entered anyone")
    }
}
