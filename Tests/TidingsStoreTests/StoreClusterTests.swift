import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// What instances sharing a store coordinate through (``ClusterStore``), the same on every backend:
/// heartbeats, the release of a silent or retired instance's claims, and the scheduler lease.
@Suite struct StoreClusterTests {
    static let now: Int64 = 1_800_000_000_000

    func makeStore(_ backend: StoreBackend, deliveries: [String]) throws -> any Store {
        let store = try backend.makeStore()
        try store.createApp(AppRecord(id: "app_a", name: "app_a", bundleID: "com.example.a", createdAt: Self.now))
        let message = MessageRecord(
            id: "m1", appID: "app_a", kind: .alert, topic: "com.example.a", payload: Array(#"{"aps":{}}"#.utf8),
            priority: 10, expiresAt: Self.now + 3_600_000, collapseID: nil, nightPolicy: .defer, createdAt: Self.now)
        try store.createMessage(
            message,
            deliveries: deliveries.map {
                MessageDelivery(messageID: "m1", appID: "app_a", installationID: $0, token: "token-\($0)")
            })
        return store
    }

    func claim(_ store: any Store, worker: String, count: Int) throws -> [String] {
        try store.claimDeliveries(worker: worker, limit: count, now: Self.now, leaseUntil: Self.now + 300_000)
            .map(\.installationID)
    }

    /// Writes `instanceID`'s heartbeat now. PostgreSQL records its own clock, SQLite the `now` passed: the real
    /// clock here, so that both see the same silences.
    func beat(_ store: any Store, _ instanceID: String) throws {
        try store.recordHeartbeat(instanceID: instanceID, now: Date().millisecondsSince1970)
    }

    /// Releases the claims of instances silent for longer than `silence`, measured as each backend measures it.
    func releaseSilent(_ store: any Store, silentFor silence: Duration = .milliseconds(150)) throws -> Int {
        try store.releaseClaimsOfSilentInstances(
            silentFor: Int64(silence.seconds * 1000), now: Date().millisecondsSince1970)
    }

    /// Long enough for a heartbeat to be older than the silence ``releaseSilent(_:silentFor:)`` allows.
    static let silence: Duration = .milliseconds(300)

    @Test(arguments: StoreBackend.allCases)
    func aSilentInstancesClaimsReturnToTheQueueAndOnlyItsOwn(_ backend: StoreBackend) async throws {
        let store = try makeStore(backend, deliveries: ["i1", "i2", "i3", "i4", "i5", "i6"])
        try beat(store, "a")
        try beat(store, "b")
        let ofA = try claim(store, worker: "a", count: 1) + claim(store, worker: "a/2", count: 1)
        let ofB = try claim(store, worker: "b", count: 1)
        // Workers of no registered instance, one whose id merely starts like a's: only their leases free them.
        let unregistered = try claim(store, worker: "ab", count: 1) + claim(store, worker: "worker-x", count: 1)
        #expect(ofA.count == 2 && ofB.count == 1 && unregistered.count == 2)

        #expect(try releaseSilent(store) == 0, "both beat just now")
        try await Task.sleep(for: Self.silence)
        try beat(store, "b")
        #expect(try releaseSilent(store) == 2)
        #expect(try Array(store.instanceHeartbeats().keys) == ["b"], "the silent instance is forgotten")
        #expect(try store.messageCounts(messageID: "m1").inFlight == 3, "b's and the unregistered claims stay")
        #expect(
            try !store.completeDelivery(
                messageID: "m1", installationID: ofA[0], worker: "a", result: .sent, now: Self.now + 10_000),
            "the silent instance's late outcome is refused")
        let again = try store.claimDeliveries(
            worker: "b", limit: 10, now: Self.now + 10_000, leaseUntil: Self.now + 310_000)
        #expect(Set(again.map(\.installationID)) == Set(ofA + ["i6"]), "a's rows are claimable at once")
        try beat(store, "b")
        #expect(try releaseSilent(store) == 0, "a live instance keeps its claims")
    }

    @Test(arguments: StoreBackend.allCases)
    func aRetiredInstanceGivesBackItsClaimsAndItsLeaseAtOnce(_ backend: StoreBackend) throws {
        let store = try makeStore(backend, deliveries: ["i1", "i2", "i3"])
        try store.recordHeartbeat(instanceID: "a", now: Self.now)
        _ = try claim(store, worker: "a/1", count: 1) + claim(store, worker: "a/2", count: 1)
        _ = try claim(store, worker: "b", count: 1)
        #expect(try store.acquireLease(name: "scheduler", holder: "a", duration: 10_000, now: Self.now))
        #expect(try store.retireInstance(instanceID: "a", now: Self.now + 1) == 2)
        #expect(try store.instanceHeartbeats().isEmpty)
        #expect(try store.lease(name: "scheduler") == nil)
        #expect(try store.messageCounts(messageID: "m1").inFlight == 1)
        #expect(try store.retireInstance(instanceID: "a", now: Self.now + 2) == 0, "retiring twice changes nothing")
        #expect(try store.instanceHeartbeats().isEmpty, "and leaves no row behind")
    }

    /// An instance's resolver (`instanceID/resolver`) holds a message's audience resolution for a minute-long
    /// lease; when the instance goes silent or retires, another resumes from the cursor at once.
    @Test(arguments: StoreBackend.allCases)
    func aSilentOrRetiredInstancesResolutionIsHandedOverAtOnce(_ backend: StoreBackend) async throws {
        let store = try makeStore(backend, deliveries: [])
        for id in ["c1", "c2", "c3"] {
            try store.createCampaign(
                MessageRecord(
                    id: id, appID: "app_a", state: .resolving, kind: .alert, topic: "com.example.a",
                    payload: Array(#"{"aps":{}}"#.utf8), priority: 10, createdAt: Self.now,
                    plan: #"{"target":{"all":true}}"#, resolveAt: Self.now),
                resolver: nil, leaseUntil: nil)
        }
        let lease = Self.now + 60_000
        try beat(store, "a")
        try beat(store, "b")
        let ofA = try #require(try store.claimResolution(resolver: "a/resolver", now: Self.now, leaseUntil: lease))
        #expect(
            try store.appendDeliveries(
                messageID: ofA.message.id, resolver: "a/resolver",
                deliveries: [
                    MessageDelivery(messageID: ofA.message.id, appID: "app_a", installationID: "i1", token: "t1")
                ],
                cursor: "i1", finished: false, leaseUntil: lease, now: Self.now))
        let ofB = try #require(try store.claimResolution(resolver: "b/resolver", now: Self.now, leaseUntil: lease))
        // A resolver of no registered instance, whose id merely starts like a's: only its lease frees it.
        let unregistered = try #require(
            try store.claimResolution(resolver: "ab/resolver", now: Self.now, leaseUntil: lease))

        try await Task.sleep(for: Self.silence)
        try beat(store, "b")
        _ = try releaseSilent(store)
        let resumed = try #require(
            try store.claimResolution(resolver: "b/resolver", now: Self.now + 10_000, leaseUntil: lease + 10_000),
            "a's resolution is free long before its lease ends")
        #expect(resumed.message.id == ofA.message.id)
        #expect(resumed.cursor == "i1", "it resumes where a stopped")
        #expect(
            try !store.appendDeliveries(
                messageID: ofA.message.id, resolver: "a/resolver", deliveries: [], cursor: "i9", finished: true,
                leaseUntil: lease, now: Self.now + 10_000),
            "the silent instance's late chunk is refused")

        try store.retireInstance(instanceID: "b", now: Self.now + 11_000)
        let afterRetirement = try store.claimResolution(
            resolver: "c/resolver", now: Self.now + 11_000, leaseUntil: lease + 11_000)
        #expect([ofA.message.id, ofB.message.id].contains(afterRetirement?.message.id))
        #expect(afterRetirement?.message.id != unregistered.message.id)
        let last = try store.claimResolution(resolver: "c/resolver", now: Self.now + 11_000, leaseUntil: lease + 11_000)
        #expect(last?.message.id != unregistered.message.id, "a resolver of no instance keeps its lease")
        #expect(
            try store.claimResolution(resolver: "c/resolver", now: Self.now + 11_000, leaseUntil: lease + 11_000)
                == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func oneHolderHasTheLeaseUntilItExpiresOrIsGivenUp(_ backend: StoreBackend) async throws {
        let store = try makeStore(backend, deliveries: [])
        // Real time: PostgreSQL measures expiry on its own clock, SQLite on the `now` passed.
        func acquire(_ name: String, _ holder: String, for duration: Int64) throws -> Bool {
            try store.acquireLease(name: name, holder: holder, duration: duration, now: Date().millisecondsSince1970)
        }
        #expect(try store.lease(name: "scheduler") == nil)
        #expect(try acquire("scheduler", "a", for: 1_000))
        #expect(try !acquire("scheduler", "b", for: 1_000))
        #expect(try acquire("other", "b", for: 60_000))
        try await Task.sleep(for: .milliseconds(600))
        #expect(try acquire("scheduler", "a", for: 1_000))
        try await Task.sleep(for: .milliseconds(600))
        #expect(try !acquire("scheduler", "b", for: 1_000), "a renewal pushed the expiry on")
        try await Task.sleep(for: .milliseconds(600))
        #expect(try acquire("scheduler", "b", for: 60_000), "expired")
        #expect(try store.lease(name: "scheduler").map { [$0.holder] } == ["b"])
        #expect(try !acquire("scheduler", "a", for: 60_000), "the old holder cannot take it back")
        try store.releaseLease(name: "scheduler", holder: "a")
        #expect(try store.lease(name: "scheduler")?.holder == "b", "only the holder gives it up")
        try store.releaseLease(name: "scheduler", holder: "b")
        #expect(try acquire("scheduler", "a", for: 60_000))

        // A holder that goes silent loses its lease with its claims.
        try beat(store, "a")
        try await Task.sleep(for: Self.silence)
        _ = try releaseSilent(store)
        #expect(try store.lease(name: "scheduler") == nil)
        #expect(try store.lease(name: "other")?.holder == "b")
    }

    // MARK: Event retention

    static let january10: Int64 = 1_736_467_200_000  // 2025-01-10 UTC
    static let february10: Int64 = 1_739_145_600_000
    static let march5: Int64 = 1_741_132_800_000
    static let march15: Int64 = 1_741_996_800_000
    static let march20: Int64 = 1_742_428_800_000

    func event(_ id: UUID = UUID()) -> TidingsEvent {
        TidingsEvent(eventID: id, type: .open, occurredAt: Self.january10, installationID: "i1")
    }

    func storedIDs(_ store: any Store) throws -> Set<UUID> {
        Set(try store.events(appID: "app_a", query: EventQuery(limit: 1000)).events.map(\.event.eventID))
    }

    @Test(arguments: StoreBackend.allCases)
    func retentionRemovesOldEventsAndTheirIDs(_ backend: StoreBackend) throws {
        let store = try makeStore(backend, deliveries: [])
        #expect(try store.removeEvents(receivedBefore: Self.march15) == EventRemoval(), "nothing to remove")
        let (inJanuary, inFebruary, earlyMarch, lateMarch) = (event(), event(), event(), event())
        for (event, receivedAt) in [
            (inJanuary, Self.january10), (inFebruary, Self.february10), (earlyMarch, Self.march5),
            (lateMarch, Self.march20),
        ] {
            _ = try store.insertEvents(appID: "app_a", events: [event], receivedAt: receivedAt)
        }
        let removal = try store.removeEvents(receivedBefore: Self.march15)
        let kept = try storedIDs(store)
        switch backend {
        case .sqlite:
            // Exactly the window.
            #expect(removal == EventRemoval(deletedEvents: 3))
            #expect(kept == [lateMarch.eventID])
        case .postgres:
            // Whole months before the cutoff's: March stays until April's run drops it.
            #expect(removal.droppedPartitions == ["events_p202501", "events_p202502"])
            #expect(removal.forgottenEventIDs == 2)
            #expect(kept == [earlyMarch.eventID, lateMarch.eventID])
        }
        // A removed event uploaded again is new; a kept one is still a duplicate.
        #expect(
            try store.insertEvents(
                appID: "app_a", events: [inJanuary, lateMarch], receivedAt: Self.march20 + 1) == [true, false])
        #expect(try store.removeEvents(receivedBefore: Self.march15).deletedEvents == 0, "a second run finds nothing")
    }

    @Test(arguments: StoreBackend.allCases)
    func retentionWorksThroughManyBatches(_ backend: StoreBackend) throws {
        let store = try makeStore(backend, deliveries: [])
        let old = (0..<12_000).map { _ in event() }
        for start in stride(from: 0, to: old.count, by: 500) {
            _ = try store.insertEvents(
                appID: "app_a", events: Array(old[start..<start + 500]), receivedAt: Self.january10 + Int64(start))
        }
        let recent = event()
        _ = try store.insertEvents(appID: "app_a", events: [recent], receivedAt: Self.march20)
        let removal = try store.removeEvents(receivedBefore: Self.march15)
        #expect(removal.deletedEvents + (backend == .postgres ? 12_000 : 0) == 12_000)
        #expect(removal.forgottenEventIDs == (backend == .postgres ? 12_000 : 0))
        #expect(try storedIDs(store) == [recent.eventID])
        #expect(
            try store.insertEvents(appID: "app_a", events: [old[0], old[11_999]], receivedAt: Self.march20 + 1)
                == [true, true])
    }
}
