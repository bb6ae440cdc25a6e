import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// The ways a run divides, on both stores: a branch on an audience or on an event since entry, and a split
/// whose draw is the same each time and whose control path exits.
@Suite struct JourneyBranchTests {
    @Test(arguments: StoreBackend.allCases)
    func anAudienceBranchFollowsTheUsersTags(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("vip_phone", seed: 1, user: "u1")
        try await fixture.register("plain_phone", seed: 2, user: "u2")
        let tags = try await fixture.call("PUT", "/v1/users/u1/tags", json: ["tags": ["vip"]])
        #expect(tags.status == 200, "\(tags.json)")
        let id = try await fixture.start(
            JourneyFixture.journey(
                "checkout",
                [
                    ["id": "who", "type": "branch", "audience": "tag:vip", "then": "offer", "else": "regular"],
                    JourneyFixture.send("offer", "VIP offer", next: "end"),
                    JourneyFixture.send("regular", "Regular offer"),
                    ["id": "end", "type": "exit"],
                ]))
        try await fixture.emit("checkout", from: "vip_phone", user: "u1")
        try await fixture.emit("checkout", from: "plain_phone", user: "u2")
        try await fixture.settle()
        #expect(fixture.titles(to: "vip_phone") == ["VIP offer"])
        #expect(fixture.titles(to: "plain_phone") == ["Regular offer"])
        let journey = try await fixture.journey(id)
        #expect(JourneyFixture.step(journey, "offer")["sent"] == 1)
        #expect(JourneyFixture.step(journey, "regular")["sent"] == 1)
        // Both ways end at the exit step: the offer names it, the regular one comes before it in the list.
        #expect(JourneyFixture.step(journey, "end")["exited"]?["exit_step"] == 2)
    }

    @Test(arguments: StoreBackend.allCases)
    func anEventBranchCountsOnlyEventsSinceEntry(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("early", seed: 1, user: "u1")
        try await fixture.register("late", seed: 2, user: "u2")
        try await fixture.register("never", seed: 3, user: "u3")
        _ = try await fixture.start(
            JourneyFixture.journey(
                "sign_up",
                [
                    JourneyFixture.wait("pause", 3600),
                    ["id": "did", "type": "branch", "event": "tutorial_done", "then": "advanced", "else": "basics"],
                    JourneyFixture.send("advanced", "Advanced tips", next: "end"),
                    JourneyFixture.send("basics", "The basics"),
                    ["id": "end", "type": "exit"],
                ]))
        // u1 did the tutorial before entering: it does not count.
        try await fixture.emit("tutorial_done", from: "early", user: "u1")
        try await fixture.advance(seconds: 10)
        for (installation, user) in [("early", "u1"), ("late", "u2"), ("never", "u3")] {
            try await fixture.emit("sign_up", from: installation, user: user)
        }
        try await fixture.settle()
        try await fixture.advance(seconds: 60)
        try await fixture.emit("tutorial_done", from: "late", user: "u2")
        try await fixture.advance(seconds: 3600)
        #expect(fixture.titles(to: "early") == ["The basics"])
        #expect(fixture.titles(to: "late") == ["Advanced tips"])
        #expect(fixture.titles(to: "never") == ["The basics"])
    }

    @Test(arguments: StoreBackend.allCases)
    func aSplitDrawsTheSamePathForAPersonEachTimeAndItsControlExits(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        let people = (0..<24).map { "device\($0)" }
        for (index, person) in people.enumerated() { try await fixture.register(person, seed: index + 1, user: nil) }
        let id = try await fixture.start(
            JourneyFixture.journey(
                "visit",
                [
                    [
                        "id": "ab", "type": "split",
                        "paths": [["weight": 1, "next": "treated"], ["weight": 1, "control": true]],
                    ],
                    JourneyFixture.send("treated", "Treated"),
                ]))
        for person in people { try await fixture.emit("visit", from: person, user: nil) }
        try await fixture.settle()
        let treated = Set(people.filter { !fixture.titles(to: $0).isEmpty })
        var journey = try await fixture.journey(id)
        let control = try #require(journey["exited"]?["control"]?.integerValue, "\(journey)")
        #expect(Int64(treated.count) + control == Int64(people.count))
        #expect(!treated.isEmpty && control > 0, "both paths drawn among \(people.count): \(treated.count) treated")
        #expect(JourneyFixture.step(journey, "ab")["exited"]?["control"]?.integerValue == control)

        try await fixture.advance(seconds: 1)
        for person in people { try await fixture.emit("visit", from: person, user: nil) }
        try await fixture.settle()
        for person in people {
            #expect(fixture.titles(to: person).count == (treated.contains(person) ? 2 : 0), "\(person)")
        }
        journey = try await fixture.journey(id)
        #expect(journey["exited"]?["control"]?.integerValue == 2 * control)
    }
}
