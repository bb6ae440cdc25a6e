import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

@testable import TidingsServer

/// Segment triggers, on both stores: a person enters when they join the saved segment (a transition from
/// not-member to member), heard at once from a signal about them or by the sweep; who is a member when the
/// journey starts enters only with `include_current_members`.
@Suite struct JourneySegmentTriggerTests {
    /// Saves segment `name`.
    static func segment(_ fixture: JourneyFixture, _ name: String, _ expression: String) async throws -> String {
        let reply = try await fixture.call(
            "POST", "/v1/segments", json: ["name": .string(name), "expression": .string(expression)])
        #expect(reply.status == 201, "\(reply.json)")
        return try #require(reply.json["segment_id"]?.stringValue)
    }

    /// A journey entered by joining `segment`, sending one push titled "Joined".
    static func journey(_ segment: String, entry: String = "every_time", include: Bool = false) -> JSONValue {
        var trigger: [String: JSONValue] = ["segment": .string(segment)]
        if include { trigger["include_current_members"] = true }
        return [
            "name": .string("Joined \(segment)"), "trigger": .object(trigger), "entry": ["rule": .string(entry)],
            "steps": [JourneyFixture.send("hello", "Joined")],
        ]
    }

    static func setPlan(_ fixture: JourneyFixture, _ installation: String, _ plan: String) async throws {
        let reply = try await fixture.harness.call(
            "PATCH", "/v1/installations/\(installation)/attributes", key: fixture.harness.serverKey,
            json: ["plan": .string(plan)])
        #expect(reply.status == 200, "\(reply.json)")
        try await fixture.settle()
    }

    /// The first sweep records the members the journey starts with.
    static func sweep(_ fixture: JourneyFixture) async throws -> Int {
        let entered = try fixture.harness.api.journeys.runSegmentSweep()
        try await fixture.settle()
        return entered
    }

    @Test(arguments: StoreBackend.allCases)
    func joiningThroughAnAttributeChangeEntersOnceUnderTheOnceRule(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.messages.register("phone", seed: 1, ["attributes": ["plan": "free"]])
        _ = try await Self.segment(fixture, "pros", "attributes.plan = pro")
        let id = try await fixture.start(Self.journey("pros", entry: "once"))
        #expect(try await Self.sweep(fixture) == 0)

        try await Self.setPlan(fixture, "phone", "pro")
        #expect(fixture.titles(to: "phone") == ["Joined"], "the attribute change is heard without a sweep")
        #expect(try await Self.sweep(fixture) == 0, "the sweep finds the join already recorded")
        try await Self.setPlan(fixture, "phone", "free")
        try await Self.setPlan(fixture, "phone", "pro")
        #expect(try await Self.sweep(fixture) == 0)
        #expect(fixture.titles(to: "phone") == ["Joined"], "once: a rejoin does not enter again")
        let journey = try await fixture.journey(id)
        #expect(journey["entered"] == 1)
        #expect(journey["trigger"] == ["segment": "pros"])
    }

    @Test(arguments: StoreBackend.allCases)
    func aMemberWhenTheJourneyStartsEntersOnlyWithIncludeCurrentMembers(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.messages.register("member", seed: 1, ["attributes": ["plan": "pro"]])
        _ = try await Self.segment(fixture, "pros", "attributes.plan = pro")
        let without = try await fixture.start(Self.journey("pros"))
        let with = try await fixture.start(Self.journey("pros", include: true))
        #expect(try await Self.sweep(fixture) == 1, "only the journey that includes current members")
        #expect(try await Self.sweep(fixture) == 0, "a second sweep changes nothing")
        #expect(try await fixture.journey(without)["entered"] == 0)
        #expect(try await fixture.journey(with)["entered"] == 1)
        #expect(try await fixture.journey(with)["trigger"] == ["segment": "pros", "include_current_members": true])
    }

    @Test(arguments: StoreBackend.allCases)
    func leavingAndRejoiningEntersAgainUnderEveryTime(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.messages.register("phone", seed: 1, ["attributes": ["plan": "free"]])
        _ = try await Self.segment(fixture, "pros", "attributes.plan = pro")
        let id = try await fixture.start(Self.journey("pros"))
        #expect(try await Self.sweep(fixture) == 0)
        try await Self.setPlan(fixture, "phone", "pro")
        try await Self.setPlan(fixture, "phone", "pro")
        #expect(try await Self.sweep(fixture) == 0, "their run is over, but they joined once")
        #expect(fixture.titles(to: "phone") == ["Joined"], "staying a member is no join")
        try await Self.setPlan(fixture, "phone", "free")
        try await Self.setPlan(fixture, "phone", "pro")
        #expect(fixture.titles(to: "phone") == ["Joined", "Joined"])
        #expect(try await fixture.journey(id)["entered"] == 2)
    }

    @Test(arguments: StoreBackend.allCases)
    func aBehaviourSegmentIsJoinedByTheEventThatMakesTheCount(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "ann")
        _ = try await Self.segment(fixture, "repeat_buyers", "event purchase count >= 2 within 30d")
        _ = try await fixture.start(Self.journey("repeat_buyers"))
        #expect(try await Self.sweep(fixture) == 0)
        try await fixture.emit("purchase", from: "phone", user: "ann")
        try await fixture.settle()
        #expect(fixture.titles.isEmpty, "one purchase is not two")
        try await fixture.advance(seconds: 5)
        try await fixture.emit("purchase", from: "phone", user: "ann")
        try await fixture.settle()
        #expect(fixture.titles(to: "phone") == ["Joined"], "the user joined with their second purchase")
    }

    @Test(arguments: StoreBackend.allCases)
    func theSweepCatchesAJoinThatOnlyTimeMakes(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: nil)
        try await fixture.emit("app_open", from: "phone", user: nil)
        _ = try await Self.segment(fixture, "lapsed", "not event app_open within 1d")
        let id = try await fixture.start(Self.journey("lapsed"))
        #expect(try await Self.sweep(fixture) == 0, "opened the app an instant ago")
        try await fixture.advance(seconds: 3600)
        #expect(try await Self.sweep(fixture) == 0)
        try await fixture.advance(seconds: 86_400)
        #expect(try await Self.sweep(fixture) == 1, "a day without opening: no signal says so, the sweep does")
        #expect(fixture.titles(to: "phone") == ["Joined"])
        try await fixture.emit("app_open", from: "phone", user: nil)
        try await fixture.settle()
        try await fixture.advance(seconds: 2 * 86_400)
        #expect(try await Self.sweep(fixture) == 1, "left on opening the app, lapsed again two days later")
        #expect(try await fixture.journey(id)["entered"] == 2)
    }

    @Test(arguments: StoreBackend.allCases)
    func erasingAUserForgetsTheirMemberships(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("ann_phone", seed: 1, user: "ann")
        try await fixture.register("bob_phone", seed: 2, user: "bob")
        _ = try await Self.segment(fixture, "buyers", "event purchase count >= 1")
        let id = try await fixture.start(Self.journey("buyers"))
        #expect(try await Self.sweep(fixture) == 0)
        try await fixture.emit("purchase", from: "ann_phone", user: "ann")
        try await fixture.emit("purchase", from: "bob_phone", user: "bob")
        try await fixture.settle()
        #expect(try fixture.store.journeySegmentMembers(journeyID: id, segment: "buyers") == ["user:ann", "user:bob"])
        let erasure = try await fixture.call("DELETE", "/v1/users/ann")
        #expect(erasure.status == 200, "\(erasure.json)")
        #expect(try fixture.store.journeySegmentMembers(journeyID: id, segment: "buyers") == ["user:bob"])
    }

    @Test func anUnknownSegmentIsRefusedWithItsPath() async throws {
        let fixture = try JourneyFixture(backend: .sqlite)
        let reply = try await fixture.call("POST", "/v1/journeys", json: Self.journey("nope"))
        #expect(reply.status == 400)
        let paths = reply.json["error"]?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue }
        #expect(paths == ["trigger.segment"], "\(reply.json)")
        let flag = try await fixture.call(
            "POST", "/v1/journeys",
            json: [
                "name": "x", "trigger": ["segment": "nope", "include_current_members": "yes"],
                "steps": [JourneyFixture.send("hello", "Joined")],
            ])
        let flagPaths = flag.json["error"]?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue }
        #expect(flagPaths == ["trigger.include_current_members", "trigger.segment"], "\(flag.json)")
    }

    @Test func aSegmentAJourneyIsTriggeredByCannotBeDeletedOrRenamedUntilTheJourneyIsArchived() async throws {
        let fixture = try JourneyFixture(backend: .sqlite)
        let segment = try await Self.segment(fixture, "pros", "attributes.plan = pro")
        let id = try await fixture.create(Self.journey("pros"))
        let delete = try await fixture.call("DELETE", "/v1/segments/\(segment)")
        #expect(delete.status == 409)
        #expect(delete.json["error"]?["code"] == "segment_in_use")
        #expect(delete.json["error"]?["message"]?.stringValue?.contains(id) == true, "\(delete.json)")
        let rename = try await fixture.call(
            "PUT", "/v1/segments/\(segment)", json: ["name": "professionals", "expression": "attributes.plan = pro"])
        #expect(rename.status == 409, "\(rename.json)")
        let edit = try await fixture.call(
            "PUT", "/v1/segments/\(segment)", json: ["name": "pros", "expression": "attributes.plan = max"])
        #expect(edit.status == 200, "the expression may change: members are what it selects now")
        let archived = try await fixture.call("POST", "/v1/journeys/\(id)/archive")
        #expect(archived.status == 200, "\(archived.json)")
        #expect(try await fixture.call("DELETE", "/v1/segments/\(segment)").status == 204)
    }

    @Test func twoInstancesSweepingAndSignallingTogetherEnterEachJoinOnce() async throws {
        let fixture = try JourneyFixture(backend: .postgres)
        let other = try fixture.secondInstance()
        let people = (0..<40).map { "device\($0)" }
        for (index, person) in people.enumerated() {
            try await fixture.messages.register(person, seed: index + 1, ["attributes": ["plan": "free"]])
        }
        _ = try await Self.segment(fixture, "pros", "attributes.plan = pro")
        let id = try await fixture.start(Self.journey("pros"))
        let (a, b) = (
            JourneyInstancesTests.engine(fixture.harness, batchSize: 16),
            JourneyInstancesTests.engine(other, batchSize: 16)
        )
        #expect(try a.runSegmentSweep() == 0)
        for person in people {
            let reply = try await fixture.harness.call(
                "PATCH", "/v1/installations/\(person)/attributes", key: fixture.harness.serverKey,
                json: ["plan": "pro"])
            #expect(reply.status == 200)
        }
        // Both sweep while one handles the signals: every join is seen two or three times.
        async let first = Task.detached { try a.runSegmentSweep() }.value
        async let second = Task.detached { try b.runSegmentSweep() }.value
        async let signals = Task.detached { try a.handleSignals() }.value
        let (x, y, _) = try await (first, second, signals)
        #expect(x + y <= people.count)
        try await fixture.settle()
        #expect(try a.runSegmentSweep() + b.runSegmentSweep() == 0, "the runs are over; nobody joined again")
        #expect(try await fixture.journey(id)["entered"] == .integer(Int64(people.count)))
        for person in people { #expect(fixture.titles(to: person) == ["Joined"], "\(person)") }
    }
}
