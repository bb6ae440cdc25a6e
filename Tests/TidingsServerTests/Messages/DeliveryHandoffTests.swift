import Foundation
import Testing
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

@testable import TidingsCampaigns

/// The resolver's handoff to the process's worker (``DeliveryHandoff``): chunks resolved while the worker wants
/// one are written claimed by it and reach it with their installations; the rest stays pending for any claim;
/// nothing is sent twice or lost when the worker stops, and the resolver waits for nobody while another
/// message's resolution is due.
@Suite struct DeliveryHandoffTests {
    func resolver(_ fixture: MessageFixture, handoff: DeliveryHandoff?, chunkSize: Int = 1000) -> CampaignResolver {
        var configuration = CampaignResolver.Configuration()
        configuration.chunkSize = chunkSize
        return CampaignResolver(
            store: fixture.store, clock: fixture.clock, configuration: configuration, handoff: handoff)
    }

    /// A worker that takes the resolver's chunks, waiting `patience` for it to want one.
    func worker(_ fixture: MessageFixture, patience: Duration, provider: (any PushProvider)? = nil) -> FanoutWorker {
        var configuration = FanoutWorker.Configuration()
        configuration.handoffPatience = patience
        return FanoutWorker(
            store: fixture.store, provider: provider ?? fixture.provider, clock: fixture.clock,
            configuration: configuration, takesHandoff: true)
    }

    func post(_ fixture: MessageFixture, _ extra: [String: JSONValue] = [:]) async throws -> String {
        let reply = try await fixture.send(MessageFixture.alert(["all": true], extra))
        #expect(reply.status == 202)
        return try #require(reply.json["message_id"]?.stringValue)
    }

    @Test(arguments: StoreBackend.allCases)
    func aChunkResolvedWhileTheWorkerWantsOneReachesItClaimedWithItsInstallations(_ backend: StoreBackend)
        async throws
    {
        let fixture = try MessageFixture(backend: backend)
        try CampaignTests.seed(fixture, count: 2500)
        // The API resolves the first 1,000 itself, pending.
        let messageID = try await post(fixture)
        let worker = worker(fixture, patience: .milliseconds(100))
        let handoff = try #require(worker.handoff)
        handoff.open {}
        #expect(handoff.take(wantingMore: true)?.deliveries == nil)

        // The second chunk goes to the worker; the third finds it not wanting one and is written pending.
        #expect(try await resolver(fixture, handoff: handoff).runOnce() == 2)
        let batch = try #require(handoff.take(wantingMore: false))
        #expect(batch.deliveries.count == 1000)
        #expect(batch.deliveries.allSatisfy { $0.state == .claimed && $0.claimEpoch == ClaimHandover.epoch })
        #expect(Set(batch.installations.map(\.installationID)) == Set(batch.deliveries.map(\.installationID)))
        let check = try fixture.store.checkClaims(batch.deliveries, worker: worker.id, now: fixture.harness.now)
        #expect(check.held.allSatisfy { $0 }, "the rows are the worker's under the handover's epoch")

        // Another worker claims everything else, and nothing of the batch.
        let others = try fixture.store.claimDeliveries(
            worker: "other", limit: 5000, now: fixture.harness.now, leaseUntil: fixture.harness.now + 60_000)
        #expect(others.count == 1500)
        #expect(Set(others.map(\.installationID)).isDisjoint(with: batch.deliveries.map(\.installationID)))
        #expect(try await fixture.status(messageID).count("targets") == 2500)
    }

    @Test(arguments: StoreBackend.allCases)
    func aCampaignSentThroughTheHandoffReachesEveryInstallationOnce(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        try CampaignTests.seed(fixture, count: 4500)
        let messageID = try await post(fixture)
        let metrics = MetricsRegistry()
        let service = FanoutService(
            store: fixture.store, provider: fixture.provider, clock: fixture.clock, metrics: metrics)
        #expect(service.resolver.handoff === service.workers.first?.handoff)
        service.start()
        let deadline = ContinuousClock.now + .seconds(60)
        while try await fixture.status(messageID).json["state"] != "done" && ContinuousClock.now < deadline {
            // The fixture's clock stands still: a worker idle on it waits for a wake.
            service.wake()
            try await Task.sleep(for: .milliseconds(10))
        }
        await service.stop()
        #expect(try await fixture.status(messageID).count("sent") == 4500)
        #expect(fixture.provider.pushes.count == 4500)
        #expect(fixture.provider.pushCountsByToken.values.allSatisfy { $0 == 1 })
        let handedOver = metrics.exposition().split(separator: "\n").first {
            $0.hasPrefix("tidings_fanout_deliveries_handed_over_total ")
        }
        let count = try #require(handedOver.flatMap { Int($0.split(separator: " ").last ?? "") })
        #expect(count >= 1000, "most of the 3,500 resolved in the background reached the worker handed over")
    }

    @Test(arguments: StoreBackend.allCases)
    func aStopMidCampaignLeavesNothingClaimedAndNothingSentTwice(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        try CampaignTests.seed(fixture, count: 3000)
        let messageID = try await post(fixture)
        fixture.provider.stall(after: 1200)
        let service = FanoutService(store: fixture.store, provider: fixture.provider, clock: fixture.clock)
        service.start()
        let deadline = ContinuousClock.now + .seconds(60)
        while fixture.provider.pushes.count < 1200 && ContinuousClock.now < deadline {
            service.wake()
            try await Task.sleep(for: .milliseconds(10))
        }
        // Let resolution finish, some of it handed over and waiting, then stop with pushes hanging.
        while try await fixture.status(messageID).count("targets") != 3000 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        await service.stop(gracePeriod: .milliseconds(200))
        let counts = try fixture.store.messageCounts(messageID: messageID)
        #expect(counts.inFlight == 0, "everything claimed was handed back")
        #expect(counts.sent == 1200)

        let rest = RecordingPushProvider()
        let sent = try await fixture.worker(provider: rest).drain()
        #expect(sent == 1800)
        let first = Set(fixture.provider.pushes.compactMap(\.installationID))
        let second = Set(rest.pushes.compactMap(\.installationID))
        #expect(first.count == 1200 && second.count == 1800)
        #expect(first.isDisjoint(with: second), "no installation got the push twice")
        #expect(try fixture.store.messageCounts(messageID: messageID).sent == 3000)
    }

    @Test(arguments: StoreBackend.allCases)
    func rowsWrittenForAWorkerThatStoppedMeanwhileGoBackToTheQueue(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        try CampaignTests.seed(fixture, count: 1500)
        let messageID = try await post(fixture)
        let worker = worker(fixture, patience: .seconds(5))
        let handoff = try #require(worker.handoff)
        handoff.open {}
        _ = handoff.take(wantingMore: true)
        #expect(try await handoff.reserve { true })
        // The worker stops between the reservation and the chunk.
        #expect(handoff.close()?.deliveries == nil)
        let now = fixture.harness.now
        let claim = try #require(try fixture.store.claimResolution(resolver: "r", now: now, leaseUntil: now + 60_000))
        let step = try resolver(fixture, handoff: handoff).resolveChunk(
            claim.message, cursor: claim.cursor, resolver: "r",
            handover: ClaimHandover(worker: worker.id, leaseUntil: now + 60_000))
        #expect(step?.finished == true)
        let counts = try fixture.store.messageCounts(messageID: messageID)
        #expect(counts.inFlight == 0)
        #expect(counts.queued == 1500)
        let sent = try await fixture.worker().drain()
        #expect(sent == 1500, "handed back without an attempt used, at once rather than after the lease")
        #expect(fixture.provider.pushCountsByToken.values.allSatisfy { $0 == 1 })
    }

    @Test func theResolverWaitsForNobodyWhileAnotherMessagesResolutionIsDue() async throws {
        let fixture = try MessageFixture()
        try CampaignTests.seed(fixture, count: 2500)
        let first = try await post(fixture)
        let second = try await post(fixture)
        let worker = worker(fixture, patience: .seconds(30))
        let handoff = try #require(worker.handoff)
        handoff.open {}
        // The worker never asks for a chunk; the second message's resolution is due behind the first's.
        let resolver = resolver(fixture, handoff: handoff)
        let started = ContinuousClock.now
        #expect(try await resolver.runOnce() == 2)
        #expect(ContinuousClock.now - started < .seconds(20), "the first did not wait the 30 s patience")
        let resolvedFirst = [
            try await fixture.status(first).count("targets"), try await fixture.status(second).count("targets"),
        ]
        #expect(resolvedFirst.sorted { ($0 ?? 0) < ($1 ?? 0) } == [1000, 2500], "one of them, oldest due first")
        #expect(handoff.take(wantingMore: false)?.deliveries == nil)
        // With nothing else due, the last one would wait for the worker; a stopped worker is waited for by nobody.
        _ = handoff.close()
        #expect(try await resolver.runOnce() == 2)
        #expect(ContinuousClock.now - started < .seconds(20))
        for id in [first, second] { #expect(try await fixture.status(id).count("targets") == 2500) }
    }

    /// A cluster's instance hands chunks to its own worker only while no other instance is live; a process
    /// outside a cluster always does.
    @Test func aClusterInstanceWaitsForItsWorkerOnlyWhileNoOtherInstanceIsLive() async throws {
        let fixture = try MessageFixture()
        var configuration = FanoutWorker.Configuration()
        configuration.handoffPatience = .milliseconds(150)
        configuration.instanceTimeout = .seconds(10)
        let clustered = FanoutWorker(
            store: fixture.store, provider: fixture.provider, clock: fixture.clock, configuration: configuration,
            takesHandoff: true)
        let handoff = try #require(clustered.handoff)
        #expect(handoff.patience == .zero, "others may be live until a heartbeat says otherwise")
        clustered.otherInstancesLive(0)
        #expect(handoff.patience == .milliseconds(150))
        clustered.otherInstancesLive(2)
        #expect(handoff.patience == .zero)

        // Alone as the resolver takes the message (the count it makes first), a chunk resolved as the worker
        // wants one goes to the worker claimed.
        try CampaignTests.seed(fixture, count: 2500)
        let messageID = try await post(fixture)
        let counted = LockedBox(0)
        handoff.beforeEachMessage {
            counted.withLock { $0 += 1 }
            clustered.otherInstancesLive(0)
        }
        handoff.open {}
        _ = handoff.take(wantingMore: true)
        #expect(try await resolver(fixture, handoff: handoff).runOnce() == 2)
        #expect(counted.withLock { $0 } == 1, "once for the message")
        #expect(handoff.take(wantingMore: false)?.deliveries.count == 1000)
        #expect(try fixture.store.messageCounts(messageID: messageID).queued == 1500)

        configuration.instanceTimeout = nil
        let alone = FanoutWorker(
            store: fixture.store, provider: fixture.provider, clock: fixture.clock, configuration: configuration,
            takesHandoff: true)
        alone.otherInstancesLive(3)
        #expect(alone.handoff?.patience == .milliseconds(150), "outside a cluster no heartbeat counts")
    }

    @Test func aPacedMessageIsNotHandedOver() async throws {
        let fixture = try MessageFixture()
        try CampaignTests.seed(fixture, count: 1500)
        let messageID = try await post(fixture, ["rate_per_second": 100])
        let worker = worker(fixture, patience: .seconds(30))
        let handoff = try #require(worker.handoff)
        handoff.open {}
        _ = handoff.take(wantingMore: true)
        #expect(try await resolver(fixture, handoff: handoff).runOnce() == 1)
        #expect(handoff.take(wantingMore: false)?.deliveries == nil, "its queue fills at its rate, from pending rows")
        #expect(try fixture.store.messageCounts(messageID: messageID).queued == 1500)
    }
}
