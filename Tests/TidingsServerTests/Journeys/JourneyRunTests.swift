import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// Journeys walked to the end on both stores with a manual clock: triggers, waits, sends, exits and the
/// per-step numbers, against what was pushed.
@Suite struct JourneyRunTests {
    @Test(arguments: StoreBackend.allCases)
    func aPurchaseAfterTheReminderExitsBeforeTheLastCall(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "u1")
        let id = try await fixture.start(JourneyFixture.abandonedCart)
        try await fixture.emit("add_to_cart", from: "phone", user: "u1")
        try await fixture.settle()
        var journey = try await fixture.journey(id)
        #expect(journey["entered"] == 1)
        #expect(JourneyFixture.step(journey, "pause")["waiting"] == 1)
        #expect(fixture.titles.isEmpty)

        try await fixture.advance(seconds: 3599)
        #expect(fixture.titles.isEmpty, "an hour has not passed")
        try await fixture.advance(seconds: 1)
        #expect(fixture.titles == ["Still thinking about it?"])

        try await fixture.emit("purchase", from: "phone", user: "u1")
        try await fixture.settle()
        try await fixture.advance(seconds: 86400)
        #expect(fixture.titles == ["Still thinking about it?"], "the purchase ended the journey")
        journey = try await fixture.journey(id)
        #expect(journey["active"] == 0)
        #expect(journey["exited"]?["event:purchase"] == 1)
        let remind = JourneyFixture.step(journey, "remind")
        #expect(remind["entered"] == 1)
        #expect(remind["sent"] == 1)
        #expect(remind["converted"] == 1)
        #expect(JourneyFixture.step(journey, "a_day")["exited"]?["event:purchase"] == 1)
        #expect(JourneyFixture.step(journey, "last_call")["entered"] == 0)
        #expect(JourneyFixture.step(journey, "last_call")["sent"] == 0)
    }

    @Test(arguments: StoreBackend.allCases)
    func withoutAPurchaseTheLastCallGoesOutAndTheRunCompletes(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "u1")
        try await fixture.register("tablet", seed: 2, user: "u1")
        let id = try await fixture.start(JourneyFixture.abandonedCart)
        try await fixture.emit("add_to_cart", from: "phone", user: "u1")
        try await fixture.settle()
        try await fixture.advance(seconds: 3600)
        try await fixture.advance(seconds: 86400)
        // A user's run sends to every installation of the user.
        #expect(
            fixture.titles.sorted() == [
                "Last call", "Last call", "Still thinking about it?", "Still thinking about it?",
            ])
        let journey = try await fixture.journey(id)
        #expect(journey["completed"] == 1)
        #expect(journey["active"] == 0)
        #expect(JourneyFixture.step(journey, "last_call")["sent"] == 2)
        #expect(JourneyFixture.step(journey, "last_call")["exited"]?["completed"] == 1)
    }

    @Test(arguments: StoreBackend.allCases)
    func aWaitForAnEventGoesItsOwnWayOnTheEventAndOnTheTimeout(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        // Installations without a user walk as themselves.
        try await fixture.register("quick", seed: 1, user: nil)
        try await fixture.register("slow", seed: 2, user: nil)
        let id = try await fixture.start([
            "name": "Onboarding",
            "trigger": ["event": "sign_up"],
            "steps": [
                ["id": "welcome", "type": "send", "message": ["content": ["title": "Welcome"]]],
                [
                    "id": "profile", "type": "wait", "for_event": "profile_complete", "timeout": 172_800,
                    "on_event": "thanks", "on_timeout": "nudge",
                ],
                [
                    "id": "nudge", "type": "send", "next": "done",
                    "message": ["content": ["title": "Finish your profile"]],
                ],
                ["id": "thanks", "type": "send", "message": ["content": ["title": "Thanks"]]],
                ["id": "done", "type": "exit"],
            ],
        ])
        try await fixture.emit("sign_up", from: "quick", user: nil)
        try await fixture.emit("sign_up", from: "slow", user: nil)
        try await fixture.settle()
        #expect(fixture.titles == ["Welcome", "Welcome"])
        try await fixture.advance(seconds: 60)
        try await fixture.emit("profile_complete", from: "quick", user: nil)
        try await fixture.settle()
        #expect(fixture.titles.sorted() == ["Thanks", "Welcome", "Welcome"])
        try await fixture.advance(seconds: 172_800)
        #expect(fixture.titles.sorted() == ["Finish your profile", "Thanks", "Welcome", "Welcome"])
        let journey = try await fixture.journey(id)
        #expect(JourneyFixture.step(journey, "thanks")["sent"] == 1)
        #expect(JourneyFixture.step(journey, "nudge")["sent"] == 1)
        // Both ways end at the exit step: the nudge names it, the thanks comes before it in the list.
        #expect(JourneyFixture.step(journey, "done")["exited"]?["exit_step"] == 2)
        #expect(JourneyFixture.step(journey, "done")["entered"] == 2)
    }
}
