import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// Who a journey lets in, on both stores: the entry rules, one run at a time, and a repeated event.
@Suite struct JourneyEntryTests {
    static func hello(_ rule: [String: JSONValue]) -> JSONValue {
        JourneyFixture.journey("go", [JourneyFixture.send("hello", "Hello")], ["entry": .object(rule)])
    }

    @Test(arguments: StoreBackend.allCases)
    func onceLetsAPersonInOnlyOnceEvenAfterTheirRunEnded(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "u1")
        let id = try await fixture.start(Self.hello(["rule": "once"]))
        try await fixture.emit("go", from: "phone", user: "u1")
        try await fixture.settle()
        #expect(fixture.titles == ["Hello"])
        #expect(try await fixture.journey(id)["completed"] == 1)

        try await fixture.advance(seconds: 400 * 86_400)
        try await fixture.emit("go", from: "phone", user: "u1")
        try await fixture.settle()
        #expect(fixture.titles == ["Hello"], "once means once ever")
        let journey = try await fixture.journey(id)
        #expect(journey["entered"] == 1)
        #expect(journey["entry_rule"] == 1)
    }

    @Test(arguments: StoreBackend.allCases)
    func onceEverySevenDaysRefusesWithinThemAndLetsInAfter(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "u1")
        let id = try await fixture.start(Self.hello(["rule": "once_every", "days": 7]))
        try await fixture.emit("go", from: "phone", user: "u1")
        try await fixture.settle()
        try await fixture.advance(seconds: 6 * 86_400)
        try await fixture.emit("go", from: "phone", user: "u1")
        try await fixture.settle()
        #expect(fixture.titles == ["Hello"], "six days after the first entry")
        #expect(try await fixture.journey(id)["entry_rule"] == 1)

        try await fixture.advance(seconds: 86_400 + 1)
        try await fixture.emit("go", from: "phone", user: "u1")
        try await fixture.settle()
        #expect(fixture.titles == ["Hello", "Hello"], "seven days after the first entry")
        let journey = try await fixture.journey(id)
        #expect(journey["entered"] == 2)
        #expect(journey["entry_rule"] == 1)
    }

    @Test(arguments: StoreBackend.allCases)
    func everyTimeLetsInAgainOnceTheRunEnded(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "u1")
        let id = try await fixture.start(Self.hello(["rule": "every_time"]))
        for _ in 0..<3 {
            try await fixture.emit("go", from: "phone", user: "u1")
            try await fixture.settle()
            try await fixture.advance(seconds: 1)
        }
        #expect(fixture.titles == ["Hello", "Hello", "Hello"])
        let journey = try await fixture.journey(id)
        #expect(journey["entered"] == 3)
        #expect(journey["completed"] == 3)
    }

    @Test(arguments: StoreBackend.allCases)
    func aTriggerWhileInTheJourneyIsCountedAlreadyInAndIgnored(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "u1")
        let id = try await fixture.start(
            JourneyFixture.journey("go", [JourneyFixture.wait("pause", 3600), JourneyFixture.send("hello", "Hello")]))
        try await fixture.emit("go", from: "phone", user: "u1")
        try await fixture.settle()
        try await fixture.advance(seconds: 60)
        try await fixture.emit("go", from: "phone", user: "u1")
        try await fixture.settle()
        var journey = try await fixture.journey(id)
        #expect(journey["entered"] == 1)
        #expect(journey["already_in"] == 1)
        #expect(journey["active"] == 1)

        try await fixture.advance(seconds: 3600)
        #expect(fixture.titles == ["Hello"], "the second trigger started no run of its own")
        try await fixture.emit("go", from: "phone", user: "u1")
        try await fixture.settle()
        journey = try await fixture.journey(id)
        #expect(journey["entered"] == 2, "every_time lets them in again once out")
    }

    @Test(arguments: StoreBackend.allCases)
    func aRepeatedEventIDEntersNobodyTwice(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "u1")
        let id = try await fixture.start(Self.hello(["rule": "every_time"]))
        let eventID = JSONValue.string(UUID().uuidString.lowercased())
        try await fixture.emit("go", from: "phone", user: "u1", extra: ["event_id": eventID])
        try await fixture.settle()
        try await fixture.advance(seconds: 5)
        // The SDK retrying an upload it thinks was lost: the same event again.
        try await fixture.emit("go", from: "phone", user: "u1", extra: ["event_id": eventID])
        try await fixture.settle()
        #expect(fixture.titles == ["Hello"])
        let journey = try await fixture.journey(id)
        #expect(journey["entered"] == 1)
        #expect(journey["already_in"] == 0)
    }
}
