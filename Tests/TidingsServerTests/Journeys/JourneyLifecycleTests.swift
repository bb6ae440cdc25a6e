import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// A journey's versions and states on both stores: a run finishes the version it entered, pause holds runs,
/// archive lets them finish and no one in, and a transition not allowed is refused.
@Suite struct JourneyLifecycleTests {
    static func later(_ title: String) -> JSONValue {
        JourneyFixture.journey("go", [JourneyFixture.wait("pause", 3600), JourneyFixture.send("hello", title)])
    }

    @Test(arguments: StoreBackend.allCases)
    func aRunFinishesTheVersionItEnteredAndANewEntryTakesTheNewOne(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("first", seed: 1, user: "u1")
        try await fixture.register("second", seed: 2, user: "u2")
        let id = try await fixture.start(Self.later("Version one"))
        try await fixture.emit("go", from: "first", user: "u1")
        try await fixture.settle()

        try await fixture.advance(seconds: 60)
        let updated = try await fixture.call("PUT", "/v1/journeys/\(id)", json: Self.later("Version two"))
        #expect(updated.status == 200, "\(updated.json)")
        #expect(updated.json["version"] == 2)
        #expect(updated.json["state"] == "active")
        try await fixture.emit("go", from: "second", user: "u2")
        try await fixture.settle()

        try await fixture.advance(seconds: 3600)
        #expect(fixture.titles(to: "first") == ["Version one"])
        #expect(fixture.titles(to: "second") == ["Version two"])
        let journey = try await fixture.journey(id)
        #expect(journey["version"] == 2)
        #expect(journey["versions"]?.arrayValue?.compactMap { $0["version"]?.integerValue } == [1, 2])
        #expect(journey["definition"]?["steps"]?[1]?["message"]?["content"]?["title"] == "Version two")
        #expect(journey["completed"] == 2)
    }

    @Test(arguments: StoreBackend.allCases)
    func pauseHoldsRunsAndAdmitsNoOneAndStartResumesThemOnce(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("inside", seed: 1, user: "u1")
        try await fixture.register("outside", seed: 2, user: "u2")
        let id = try await fixture.start(Self.later("Later"))
        try await fixture.emit("go", from: "inside", user: "u1")
        try await fixture.settle()
        let paused = try await fixture.call("POST", "/v1/journeys/\(id)/pause")
        #expect(paused.status == 200, "\(paused.json)")
        #expect(paused.json["state"] == "paused")

        try await fixture.emit("go", from: "outside", user: "u2")
        try await fixture.advance(seconds: 7200)
        #expect(fixture.titles.isEmpty, "a paused journey runs no step")
        var journey = try await fixture.journey(id)
        #expect(journey["state"] == "paused")
        #expect(journey["entered"] == 1, "and lets no one in")
        #expect(JourneyFixture.step(journey, "pause")["waiting"] == 1)

        let resumed = try await fixture.call("POST", "/v1/journeys/\(id)/start")
        #expect(resumed.status == 200, "\(resumed.json)")
        try await fixture.settle()
        try await fixture.settle()
        #expect(fixture.titles == ["Later"], "the held step runs on resume, once")
        journey = try await fixture.journey(id)
        #expect(journey["completed"] == 1)
        #expect(journey["active"] == 0)
    }

    @Test(arguments: StoreBackend.allCases)
    func archiveLetsTheRunningFinishAndAdmitsNoOne(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("inside", seed: 1, user: "u1")
        try await fixture.register("outside", seed: 2, user: "u2")
        let id = try await fixture.start(Self.later("Goodbye"))
        try await fixture.emit("go", from: "inside", user: "u1")
        try await fixture.settle()
        let archived = try await fixture.call("POST", "/v1/journeys/\(id)/archive")
        #expect(archived.status == 200, "\(archived.json)")
        #expect(archived.json["state"] == "archived")
        try await fixture.emit("go", from: "outside", user: "u2")
        try await fixture.advance(seconds: 3600)
        #expect(fixture.titles(to: "inside") == ["Goodbye"])
        #expect(fixture.titles(to: "outside").isEmpty)
        let journey = try await fixture.journey(id)
        #expect(journey["entered"] == 1)
        #expect(journey["completed"] == 1)
    }

    @Test(arguments: StoreBackend.allCases)
    func aDraftJourneyAdmitsNoOne(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "u1")
        let id = try await fixture.create(JourneyFixture.journey("go", [JourneyFixture.send("hello", "Hello")]))
        try await fixture.emit("go", from: "phone", user: "u1")
        try await fixture.advance(seconds: 60)
        #expect(fixture.titles.isEmpty)
        let journey = try await fixture.journey(id)
        #expect(journey["state"] == "draft")
        #expect(journey["entered"] == 0)
    }

    @Test(arguments: StoreBackend.allCases)
    func transitionsNotAllowedAreRefusedAndUnknownJourneysAreNotFound(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        let definition = JourneyFixture.journey("go", [JourneyFixture.send("hello", "Hello")])
        let draft = try await fixture.create(definition)
        func move(_ id: String, _ action: String) async throws -> APIHarness.Reply {
            try await fixture.call("POST", "/v1/journeys/\(id)/\(action)")
        }
        let pauseDraft = try await move(draft, "pause")
        #expect(pauseDraft.status == 409)
        #expect(pauseDraft.errorCode == "invalid_state")
        #expect(try await move(draft, "start").status == 200)
        let startActive = try await move(draft, "start")
        #expect(startActive.status == 409)
        #expect(startActive.errorCode == "invalid_state")
        #expect(try await move(draft, "archive").status == 200)
        for action in ["start", "pause"] {
            let reply = try await move(draft, action)
            #expect(reply.status == 409, "\(action) an archived journey")
            #expect(reply.errorCode == "invalid_state", "\(action)")
        }
        #expect(try await fixture.journey(draft)["state"] == "archived")

        let missing = "jny_missing"
        for action in ["start", "pause", "archive"] {
            let reply = try await move(missing, action)
            #expect(reply.status == 404, "\(action)")
            #expect(reply.errorCode == "not_found")
        }
        #expect(try await fixture.call("GET", "/v1/journeys/\(missing)").status == 404)
        #expect(try await fixture.call("PUT", "/v1/journeys/\(missing)", json: definition).status == 404)
        // Another app's journey is as unknown as one that never was.
        let other = try await fixture.harness.call(
            "GET", "/v1/journeys/\(draft)", key: fixture.harness.otherServerKey)
        #expect(other.status == 404)
    }
}
