import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

@testable import TidingsServer

/// A journey's push reaches the fan-out from the walk's own transaction: the person's deliveries are decided
/// in the walk and stored with the run's new place, with no resolution after it.
@Suite struct JourneyStepDeliveryTests {
    static let hello = JourneyFixture.journey("go", [JourneyFixture.send("hello", "Hello")])

    /// An engine on `harness`'s store that reads `chunkSize` installations at a time.
    static func engine(_ harness: APIHarness, chunkSize: Int) -> JourneyEngine {
        var configuration = JourneyEngine.Configuration()
        configuration.resolution.chunkSize = chunkSize
        return JourneyEngine(
            store: harness.store, clock: harness.clock, logger: .disabled(),
            catalog: JourneyCatalog(store: harness.store, clock: harness.clock),
            composer: MessageComposer(store: harness.store, configuration: harness.api.configuration),
            configuration: configuration)
    }

    static func stepMessages(_ fixture: JourneyFixture, journey id: String) throws -> [MessageRecord] {
        try fixture.store.messages(appID: "app_main", query: MessageListQuery(campaignID: "journey:\(id):hello"))
    }

    @Test(arguments: StoreBackend.allCases)
    func aWalkStoresItsMessageResolvedWithThePersonsDeliveries(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "u1")
        try await fixture.register("tablet", seed: 2, user: "u1")
        try await fixture.register("stranger", seed: 3, user: "u2")
        let id = try await fixture.start(Self.hello)
        try await fixture.emit("go", from: "phone", user: "u1")

        let engine = Self.engine(fixture.harness, chunkSize: 1000)
        #expect(try engine.runOnce() == 2, "the signal, then the walk")
        let messages = try Self.stepMessages(fixture, journey: id)
        #expect(messages.map(\.state) == [.sending], "stored resolved by the walk")
        let counts = try fixture.store.campaignCounts(appID: "app_main", campaignID: "journey:\(id):hello")
        #expect(counts.queued == 2, "one delivery for each of the user's installations: \(counts)")
        let now = fixture.clock.now.millisecondsSince1970
        #expect(
            try fixture.store.claimResolution(resolver: "probe", now: now, leaseUntil: now + 1000) == nil,
            "nothing is left to resolve")

        _ = try await fixture.messages.worker().drain()
        #expect(fixture.titles(to: "phone") == ["Hello"])
        #expect(fixture.titles(to: "tablet") == ["Hello"])
        #expect(fixture.titles(to: "stranger").isEmpty)
        let sent = try fixture.store.campaignCounts(appID: "app_main", campaignID: "journey:\(id):hello")
        #expect(sent.sent == 2)
        #expect(JourneyFixture.step(try await fixture.journey(id), "hello")["sent"] == 2)
    }

    @Test(arguments: StoreBackend.allCases)
    func aPersonWithMoreInstallationsThanAChunkGetsThemAllFromTheWalk(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        let devices = ["phone", "tablet", "watch"]
        for (index, device) in devices.enumerated() { try await fixture.register(device, seed: index + 1, user: "u1") }
        let id = try await fixture.start(Self.hello)
        try await fixture.emit("go", from: "phone", user: "u1")

        // A user's installations are read page by page within the walk, however many pages.
        let engine = Self.engine(fixture.harness, chunkSize: 2)
        try engine.runOnce()
        #expect(try Self.stepMessages(fixture, journey: id).map(\.state) == [.sending])
        let counts = try fixture.store.campaignCounts(appID: "app_main", campaignID: "journey:\(id):hello")
        #expect(counts.queued == devices.count)

        _ = try await fixture.messages.worker().drain()
        for device in devices { #expect(fixture.titles(to: device) == ["Hello"], "\(device)") }
        #expect(try engine.runOnce() == 0, "nothing is walked again")
        _ = try await fixture.messages.worker().drain()
        #expect(fixture.titles.count == devices.count, "each sent once")
    }

    @Test(arguments: StoreBackend.allCases)
    func aWalksDeliveriesAreWrittenOnlyWithItsRun(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "u1")
        let id = try await fixture.start(Self.hello)
        try await fixture.emit("go", from: "phone", user: "u1")
        let engine = Self.engine(fixture.harness, chunkSize: 1000)
        #expect(try engine.handleSignals() == 1)
        let now = fixture.clock.now.millisecondsSince1970
        let run = try #require(
            try fixture.store.claimJourneyRuns(owner: engine.id, now: now, leaseUntil: now + 30_000, limit: 10).first)
        let change = try engine.walk(run)
        #expect(change.messages.count == 1)
        #expect(change.deliveries.values.map(\.count) == [1])

        // Decided under an epoch that has moved on (another instance took the run over): nothing is written.
        var stale = change
        stale.expectedEpoch -= 1
        #expect(try fixture.store.commitJourneyRuns([stale], owner: engine.id, leaseUntil: now + 30_000) == [false])
        #expect(try Self.stepMessages(fixture, journey: id).isEmpty)
        let none = try fixture.store.campaignCounts(appID: "app_main", campaignID: "journey:\(id):hello")
        #expect(none.queued == 0)

        #expect(try fixture.store.commitJourneyRuns([change], owner: engine.id, leaseUntil: now + 30_000) == [true])
        #expect(try Self.stepMessages(fixture, journey: id).map(\.state) == [.sending])
        let queued = try fixture.store.campaignCounts(appID: "app_main", campaignID: "journey:\(id):hello")
        #expect(queued.queued == 1)
        _ = try await fixture.messages.worker().drain()
        #expect(fixture.titles == ["Hello"])
    }
}
