import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// The fence on claims (``MessageDelivery/claimEpoch``), the same on every backend: a claim released from a
/// worker (its instance taken for dead) and claimed again, even by the same worker id, can neither be checked as
/// held nor have an outcome recorded under the epoch it had before.
@Suite struct StoreClaimFenceTests {
    static let now: Int64 = 1_800_000_000_000

    func makeStore(_ backend: StoreBackend, deliveries count: Int) throws -> any Store {
        let store = try backend.makeStore()
        try store.createApp(AppRecord(id: "app_a", name: "app_a", bundleID: "com.example.a", createdAt: Self.now))
        let message = MessageRecord(
            id: "m1", appID: "app_a", kind: .alert, topic: "com.example.a", payload: Array(#"{"aps":{}}"#.utf8),
            priority: 10, expiresAt: nil, collapseID: nil, nightPolicy: .defer, createdAt: Self.now)
        try store.createMessage(
            message,
            deliveries: (0..<count).map {
                MessageDelivery(messageID: "m1", appID: "app_a", installationID: "i\($0)", token: "token-\($0)")
            })
        return store
    }

    func claim(_ store: any Store, worker: String, limit: Int = 10) throws -> [MessageDelivery] {
        try store.claimDeliveries(
            worker: worker, claim: DeliveryClaim(limit: limit), now: Self.now, leaseUntil: Self.now + 300_000)
    }

    func sent(_ delivery: MessageDelivery) -> DeliveryCompletion {
        DeliveryCompletion(
            messageID: delivery.messageID, appID: delivery.appID, installationID: delivery.installationID,
            result: .sent, claimEpoch: delivery.claimEpoch)
    }

    @Test(arguments: StoreBackend.allCases)
    func aClaimTakenFromAPausedInstanceFailsItsCheckAndItsOutcomeEvenUnderTheSameWorkerID(
        _ backend: StoreBackend
    ) async throws {
        let store = try makeStore(backend, deliveries: 3)
        let now = { Date().millisecondsSince1970 }
        try store.recordHeartbeat(instanceID: "a", now: now())
        let first = try claim(store, worker: "a/1")
        #expect(first.count == 3)
        #expect(Set(first.map(\.claimEpoch)).count == 1 && first[0].claimEpoch > 0, "a claim raises the epoch")
        let check = try store.checkClaims(first, worker: "a/1", now: now())
        #expect(check.held == [true, true, true])
        #expect(try #require(check.heartbeatAge) < 5_000, "the worker's instance found by its id's prefix")
        #expect(try store.checkClaims(first, worker: "b", now: now()).held == [false, false, false])
        #expect(try store.checkClaims(first, worker: "b", now: now()).heartbeatAge == nil, "b has no heartbeat")

        // a stops beating (paused) past the timeout; b, alive, hands a's claims back to the queue.
        try await Task.sleep(for: .milliseconds(300))
        try store.recordHeartbeat(instanceID: "b", now: now())
        #expect(try store.releaseClaimsOfSilentInstances(silentFor: 150, now: now()) == 3)
        #expect(try store.checkClaims(first, worker: "a/1", now: now()).held == [false, false, false])

        // a comes back and claims again under the same id: the new claims hold, the old ones still do not.
        try store.recordHeartbeat(instanceID: "a", now: now())
        let again = try claim(store, worker: "a/1", limit: 2)
        #expect(again.count == 2)
        #expect(again.allSatisfy { $0.claimEpoch > first[0].claimEpoch + 1 }, "the release raised it too")
        let stale = try #require(first.first { $0.installationID == again[0].installationID })
        #expect(try store.checkClaims([stale] + again, worker: "a/1", now: now()).held == [false, true, true])
        #expect(
            try store.completeDeliveries([sent(stale)], worker: "a/1", now: now()) == [false],
            "an outcome under the stale epoch matches no row")
        #expect(try store.completeDeliveries([sent(again[0])], worker: "a/1", now: now()) == [true])
        #expect(try store.checkClaims([again[0]], worker: "a/1", now: now()).held == [false], "no longer claimed")
        #expect(try store.messageCounts(messageID: "m1").sent == 1)
        #expect(try store.checkClaims([], worker: "a/1", now: now()).held.isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func everyReleaseRaisesTheEpoch(_ backend: StoreBackend) throws {
        let store = try makeStore(backend, deliveries: 2)
        let claimed = try claim(store, worker: "w")
        #expect(try store.releaseAllClaims(now: Self.now) == 2)
        let reclaimed = try claim(store, worker: "w")
        #expect(reclaimed.map(\.claimEpoch) == claimed.map { $0.claimEpoch + 2 })
        #expect(try store.completeDeliveries(claimed.map(sent), worker: "w", now: Self.now) == [false, false])
        // Expired leases, returned by the next claim, raise it as well.
        let expired = try store.claimDeliveries(
            worker: "x", claim: DeliveryClaim(limit: 10), now: Self.now + 300_000, leaseUntil: Self.now + 600_000)
        #expect(expired.map(\.claimEpoch) == reclaimed.map { $0.claimEpoch + 2 })
        #expect(try store.checkClaims(reclaimed, worker: "w", now: Self.now).held == [false, false])
        // The older single-queue claim fences the same way.
        #expect(try store.releaseAllClaims(now: Self.now) == 2)
        let single = try store.claimDeliveries(worker: "y", limit: 10, now: Self.now, leaseUntil: Self.now + 1_000)
        #expect(single.map(\.claimEpoch) == expired.map { $0.claimEpoch + 2 })
        #expect(try store.checkClaims(single, worker: "y", now: Self.now).held == [true, true])
    }
}
