import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// A resolution chunk written with a ``ClaimHandover``, the same on every backend: its claimed deliveries are
/// the worker's rows at once, released, checked and completed like any claim; the rest is pending; a resolver
/// that lost the message writes nothing.
@Suite struct StoreHandoverTests {
    static let now: Int64 = 1_800_000_000_000
    let handover = ClaimHandover(worker: "w", leaseUntil: now + 5_000)

    func makeStore(_ backend: StoreBackend, messages: [String] = ["m1"]) throws -> any Store {
        let store = try backend.makeStore()
        try store.createApp(AppRecord(id: "app_a", name: "app_a", bundleID: "com.example.app_a", createdAt: Self.now))
        for id in messages {
            try store.createCampaign(
                MessageRecord(
                    id: id, appID: "app_a", state: .resolving, kind: .alert, topic: "com.example.app_a",
                    payload: Array(#"{"aps":{}}"#.utf8), priority: 10, createdAt: Self.now,
                    plan: #"{"target":{"all":true}}"#, resolveAt: Self.now),
                resolver: nil, leaseUntil: nil)
        }
        return store
    }

    func delivery(_ installation: String, claimed: Bool, message: String = "m1") -> MessageDelivery {
        var delivery = MessageDelivery(
            messageID: message, appID: "app_a", installationID: installation, token: "t-\(installation)")
        if claimed {
            delivery.state = .claimed
            delivery.claimEpoch = ClaimHandover.epoch
        }
        return delivery
    }

    @Test(arguments: StoreBackend.allCases)
    func claimedDeliveriesAreTheWorkersAtOnceAndTheRestIsPending(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        _ = try #require(try store.claimResolution(resolver: "r", now: Self.now, leaseUntil: Self.now + 60_000))
        let deliveries = [
            delivery("i1", claimed: true), delivery("i2", claimed: true), delivery("i3", claimed: false),
            // A repeated installation keeps its first row.
            delivery("i1", claimed: true), delivery("i3", claimed: true),
        ]
        let written = try store.appendDeliveries(
            messageID: "m1", resolver: "r", deliveries: deliveries, cursor: "i3", finished: true,
            leaseUntil: Self.now + 60_000, now: Self.now, handover: handover)
        #expect(written == ["i1", "i2"])
        let counts = try store.messageCounts(messageID: "m1")
        #expect(counts.targets == 3 && counts.inFlight == 2 && counts.queued == 1)

        let held = try store.checkClaims(
            [delivery("i1", claimed: true), delivery("i2", claimed: true)], worker: "w", now: Self.now)
        #expect(held.held == [true, true])
        #expect(try store.checkClaims([delivery("i1", claimed: true)], worker: "x", now: Self.now).held == [false])

        // Another worker gets only the pending one until the handover's lease ends.
        let claimed = try store.claimDeliveries(worker: "x", limit: 10, now: Self.now, leaseUntil: Self.now + 60_000)
        #expect(claimed.map(\.installationID) == ["i3"])
        #expect(
            try store.completeDeliveries(
                [DeliveryCompletion(delivery("i1", claimed: true), result: .sent)], worker: "w", now: Self.now)
                == [true])
        let afterLease = try store.claimDeliveries(
            worker: "x", limit: 10, now: Self.now + 5_000, leaseUntil: Self.now + 60_000)
        #expect(afterLease.map(\.installationID) == ["i2"], "the lapsed handover returns to the queue, i1 was sent")
        #expect(afterLease.first.map { $0.claimEpoch > ClaimHandover.epoch } == true)
    }

    @Test(arguments: StoreBackend.allCases)
    func aResolverThatLostTheMessageWritesNothing(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        _ = try #require(try store.claimResolution(resolver: "r", now: Self.now, leaseUntil: Self.now + 1_000))
        _ = try #require(
            try store.claimResolution(resolver: "r2", now: Self.now + 1_000, leaseUntil: Self.now + 60_000))
        let written = try store.appendDeliveries(
            messageID: "m1", resolver: "r", deliveries: [delivery("i1", claimed: true)], cursor: "i1", finished: true,
            leaseUntil: Self.now + 60_000, now: Self.now, handover: handover)
        #expect(written == nil)
        #expect(try store.messageCounts(messageID: "m1").targets == 0)
    }

    @Test(arguments: StoreBackend.allCases)
    func claimedDeliveriesWithoutAHandoverAreWrittenPending(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        _ = try #require(try store.claimResolution(resolver: "r", now: Self.now, leaseUntil: Self.now + 60_000))
        let written = try store.appendDeliveries(
            messageID: "m1", resolver: "r", deliveries: [delivery("i1", claimed: true)], cursor: "i1", finished: true,
            leaseUntil: Self.now + 60_000, now: Self.now, handover: nil)
        #expect(written == [])
        #expect(try store.messageCounts(messageID: "m1").queued == 1)
        #expect(try store.claimDeliveries(worker: "x", limit: 10, now: Self.now, leaseUntil: Self.now + 1).count == 1)
    }

    @Test(arguments: StoreBackend.allCases)
    func anotherMessagesResolutionIsDueOnlyWhenNoLiveResolverHoldsIt(_ backend: StoreBackend) throws {
        let store = try makeStore(backend, messages: ["m1", "m2"])
        _ = try #require(try store.claimResolution(resolver: "r", now: Self.now, leaseUntil: Self.now + 60_000))
        let held = try #require(try store.claimResolution(resolver: "r2", now: Self.now, leaseUntil: Self.now + 1_000))
        let other = held.message.id == "m1" ? "m2" : "m1"
        #expect(try !store.resolutionDue(now: Self.now, excluding: other), "the other is held by a live resolver")
        #expect(try store.resolutionDue(now: Self.now + 1_000, excluding: other), "its resolver's lease ended")
        #expect(try !store.resolutionDue(now: Self.now + 1_000, excluding: held.message.id))
    }
}
