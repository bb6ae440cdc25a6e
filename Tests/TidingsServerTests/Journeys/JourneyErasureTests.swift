import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// `DELETE /v1/users/{user_id}` and journeys, on both stores: the user's run ends where it stands, nothing more
/// is sent to them, and nothing the journeys keep still names them.
@Suite struct JourneyErasureTests {
    static let erased = "alice-journey-7f3"

    @Test(arguments: StoreBackend.allCases)
    func erasingAUserEndsTheirRunAndForgetsThem(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("alice_phone", seed: 1, user: Self.erased)
        try await fixture.register("bob_phone", seed: 2, user: "bob")
        let id = try await fixture.start(
            JourneyFixture.journey(
                "go",
                [
                    JourneyFixture.send("hello", "Hello"), JourneyFixture.wait("pause", 3600),
                    JourneyFixture.send("later", "Later"),
                ], ["entry": ["rule": "once"]]))
        try await fixture.emit("go", from: "alice_phone", user: Self.erased)
        try await fixture.emit("go", from: "bob_phone", user: "bob")
        try await fixture.settle()
        #expect(fixture.titles(to: "alice_phone") == ["Hello"])

        let erasure = try await fixture.call("DELETE", "/v1/users/\(Self.erased)")
        #expect(erasure.status == 200, "\(erasure.json)")
        try await fixture.settle()
        var journey = try await fixture.journey(id)
        #expect(journey["exited"]?["erased"] == 1)
        #expect(JourneyFixture.step(journey, "pause")["exited"]?["erased"] == 1)
        #expect(journey["active"] == 1, "bob is still in it")
        #expect(try fixture.store.activeJourneyRuns(appID: "app_main", subjects: ["user:\(Self.erased)"]).isEmpty)

        try await fixture.advance(seconds: 3600)
        #expect(fixture.titles(to: "alice_phone") == ["Hello"], "nothing more is sent to the erased user")
        #expect(fixture.titles(to: "bob_phone") == ["Hello", "Later"])

        // The journey's messages no longer name her.
        let messages = try fixture.store.messages(appID: "app_main", query: MessageListQuery(limit: 100))
        #expect(messages.count == 3, "two hellos and a later")
        for message in messages {
            #expect(!(message.plan ?? "").contains(Self.erased), "\(message.id)")
        }
        // Her entry history went with her: the same id, now someone new to the app, may enter a `once` journey.
        let again = try await fixture.report(Self.erased, ["type": "go"])
        #expect(again.status == 202)
        try await fixture.settle()
        journey = try await fixture.journey(id)
        #expect(journey["entry_rule"] == 0, "no entry still names the erased id")
        #expect(journey["entered"] == 3)
    }
}
