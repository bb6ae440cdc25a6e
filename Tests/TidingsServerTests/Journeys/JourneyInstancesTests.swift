import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

@testable import TidingsServer

/// Journeys on several instances sharing a store and through instance loss: each step of each run sends once
/// whoever walks it, a run claimed by an instance that died is walked after its lease, and a run waiting
/// across a restart still sends.
@Suite struct JourneyInstancesTests {
    static let twoSends: JSONValue = JourneyFixture.journey(
        "go",
        [
            JourneyFixture.send("first", "First"), JourneyFixture.wait("pause", 60),
            JourneyFixture.send("second", "Second"),
        ])

    /// An engine of `harness`'s instance that claims few runs at a time, so two of them interleave.
    static func engine(_ harness: APIHarness, batchSize: Int) -> JourneyEngine {
        var configuration = JourneyEngine.Configuration()
        configuration.batchSize = batchSize
        return JourneyEngine(
            store: harness.store, clock: harness.clock, logger: .disabled(),
            catalog: JourneyCatalog(store: harness.store, clock: harness.clock),
            composer: MessageComposer(store: harness.store, configuration: harness.api.configuration),
            configuration: configuration)
    }

    /// Walks what is due with both engines at once; returns how many runs each walked.
    static func walkConcurrently(_ a: JourneyEngine, _ b: JourneyEngine) async throws -> (Int, Int) {
        async let first = Task.detached { try a.runOnce(signals: false) }.value
        async let second = Task.detached { try b.runOnce(signals: false) }.value
        return try await (first, second)
    }

    @Test func twoInstancesWalkingTheSameRunsSendEachStepOncePerRun() async throws {
        let fixture = try JourneyFixture(backend: .postgres)
        let other = try fixture.secondInstance()
        let people = (0..<200).map { "device\($0)" }
        for (index, person) in people.enumerated() { try await fixture.register(person, seed: index + 1, user: nil) }
        let id = try await fixture.start(Self.twoSends)
        for person in people { try await fixture.emit("go", from: person, user: nil) }
        let (a, b) = (Self.engine(fixture.harness, batchSize: 16), Self.engine(other, batchSize: 16))
        #expect(try a.handleSignals() == people.count, "the leader enters everyone")

        let firstWalk = try await Self.walkConcurrently(a, b)
        #expect(firstWalk.0 + firstWalk.1 == people.count, "each run claimed once: \(firstWalk)")
        _ = try await fixture.messages.worker().drain()
        fixture.clock.advance(by: .seconds(60))
        let secondWalk = try await Self.walkConcurrently(a, b)
        #expect(secondWalk.0 + secondWalk.1 == people.count, "each run claimed once: \(secondWalk)")
        _ = try await fixture.messages.worker().drain()
        let idle = try await Self.walkConcurrently(a, b)
        #expect(idle.0 + idle.1 == 0, "nothing is due")

        for person in people {
            #expect(fixture.titles(to: person) == ["First", "Second"], "\(person)")
        }
        for step in ["first", "second"] {
            let counts = try fixture.store.campaignCounts(appID: "app_main", campaignID: "journey:\(id):\(step)")
            #expect(counts.sent == people.count, "\(step)")
        }
        let journey = try await fixture.journey(id)
        #expect(journey["completed"]?.integerValue == Int64(people.count))
        #expect(JourneyFixture.step(journey, "first")["entered"]?.integerValue == Int64(people.count))
    }

    @Test(arguments: StoreBackend.allCases)
    func runsClaimedByAnInstanceThatDiedAreWalkedOnceAfterItsLease(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        let survivor = try fixture.secondInstance()
        let people = (0..<20).map { "device\($0)" }
        for (index, person) in people.enumerated() { try await fixture.register(person, seed: index + 1, user: nil) }
        let id = try await fixture.start(
            JourneyFixture.journey("go", [JourneyFixture.wait("pause", 60), JourneyFixture.send("hello", "Hello")]))
        for person in people { try await fixture.emit("go", from: person, user: nil) }
        try await fixture.settle()
        fixture.clock.advance(by: .seconds(60))

        // An instance claims every due run and dies before committing any walk.
        let now = fixture.clock.now.millisecondsSince1970
        let claimed = try fixture.store.claimJourneyRuns(
            owner: "crashed", now: now, leaseUntil: now + 30_000, limit: 1000)
        #expect(claimed.count == people.count)
        #expect(try survivor.api.journeys.runOnce() == 0, "its claims hold until the lease ends")
        fixture.clock.advance(by: .seconds(29))
        #expect(try survivor.api.journeys.runOnce() == 0)
        _ = try await fixture.messages.worker().drain()
        #expect(fixture.titles.isEmpty)

        fixture.clock.advance(by: .seconds(1))
        #expect(try survivor.api.journeys.runOnce() == people.count)
        _ = try await fixture.messages.worker().drain()
        #expect(try survivor.api.journeys.runOnce() == 0)
        try await fixture.settle()
        for person in people { #expect(fixture.titles(to: person) == ["Hello"], "\(person)") }

        // The dead instance's late commit is fenced out.
        var stale = try #require(claimed.first)
        stale.state = .exited
        stale.endReason = "stale"
        let committed = try fixture.store.commitJourneyRun(
            JourneyRunChange(run: stale, expectedEpoch: stale.epoch, counts: []), owner: "crashed", leaseUntil: nil)
        #expect(!committed)
        let journey = try await fixture.journey(id)
        #expect(journey["completed"]?.integerValue == Int64(people.count))
        #expect(journey["exited"]?["stale"] == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func aRunWaitingAcrossARestartStillSendsWhenDue(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "u1")
        let id = try await fixture.start(JourneyFixture.abandonedCart)
        try await fixture.emit("add_to_cart", from: "phone", user: "u1")
        try await fixture.settle()

        // The instance that entered them is gone; a new one starts on the same store.
        let restarted = try fixture.secondInstance()
        fixture.clock.advance(by: .seconds(3600))
        #expect(try restarted.api.journeys.runOnce() == 1)
        _ = try await fixture.messages.worker().drain()
        #expect(fixture.titles == ["Still thinking about it?"])
        #expect(try restarted.api.journeys.runOnce() == 0)
        _ = try await fixture.messages.worker().drain()
        #expect(fixture.titles == ["Still thinking about it?"], "sent once")
        #expect(JourneyFixture.step(try await fixture.journey(id), "a_day")["waiting"] == 1)
    }
}
