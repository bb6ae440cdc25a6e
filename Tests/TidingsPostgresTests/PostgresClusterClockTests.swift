import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

@testable import TidingsPostgres

/// Liveness on PostgreSQL is measured on the database's clock: what an instance's host clock says, a minute
/// ahead or behind, changes nothing about who is taken for dead.
@Suite struct PostgresClusterClockTests {
    static let minute: Int64 = 60_000

    /// Two stores on one database, as two hosts would have.
    func makeStores() throws -> (PostgresStore, PostgresStore) {
        let configuration = try StoreBackend.postgresConfiguration()
        let first = try PostgresStore(configuration: configuration)
        let createdAt = Date().millisecondsSince1970
        try first.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: createdAt))
        try first.createMessage(
            MessageRecord(
                id: "m1", appID: "app_a", kind: .alert, topic: "com.example.a", payload: Array(#"{"aps":{}}"#.utf8),
                priority: 10, expiresAt: nil, collapseID: nil, nightPolicy: .defer, createdAt: createdAt),
            deliveries: (0..<4).map {
                MessageDelivery(messageID: "m1", appID: "app_a", installationID: "i\($0)", token: "t\($0)")
            })
        return (first, try PostgresStore(configuration: configuration))
    }

    @Test func aHostAMinuteAheadNeitherTakesTheOthersForDeadNorLooksDead() throws {
        let (store, skewed) = try makeStores()
        let now = Date().millisecondsSince1970
        try store.recordHeartbeat(instanceID: "a", now: now)
        let ofA = try store.claimDeliveries(
            worker: "a", claim: DeliveryClaim(limit: 2), now: now, leaseUntil: now + 300_000)
        #expect(ofA.count == 2)
        // b's clock is a minute ahead: before, it took a's heartbeat for 60 s old and released a's claims.
        try skewed.recordHeartbeat(instanceID: "b", now: now + Self.minute)
        #expect(try skewed.releaseClaimsOfSilentInstances(silentFor: 10_000, now: now + Self.minute) == 0)
        #expect(try store.checkClaims(ofA, worker: "a", now: now).held == [true, true])
        // A host a minute behind does not look dead to the others, nor does its heartbeat age.
        try skewed.recordHeartbeat(instanceID: "b", now: now - Self.minute)
        #expect(try store.releaseClaimsOfSilentInstances(silentFor: 10_000, now: now) == 0)
        #expect(Set(try store.instanceHeartbeats().keys) == ["a", "b"])
        for (id, beat) in try store.instanceHeartbeats() {
            #expect(abs(beat - Date().millisecondsSince1970) < 5_000, "\(id)'s heartbeat is the database's time")
        }
        let check = try skewed.checkClaims(ofA, worker: "a", now: now + Self.minute)
        #expect(try #require(check.heartbeatAge) < 5_000, "the age is on the database's clock too")
    }

    @Test func silenceIsMeasuredOnTheDatabasesClock() async throws {
        let (store, other) = try makeStores()
        try store.recordHeartbeat(instanceID: "a", now: 0)
        let ofA = try store.claimDeliveries(
            worker: "a/1", claim: DeliveryClaim(limit: 4), now: Date().millisecondsSince1970,
            leaseUntil: Date().millisecondsSince1970 + 300_000)
        #expect(try other.releaseClaimsOfSilentInstances(silentFor: 1_000, now: 0) == 0, "a beat just now")
        try await Task.sleep(for: .milliseconds(1_200))
        let check = try store.checkClaims(ofA, worker: "a/1", now: 0)
        #expect(try #require(check.heartbeatAge) >= 1_000)
        #expect(try other.releaseClaimsOfSilentInstances(silentFor: 1_000, now: 0) == 4)
        #expect(try store.checkClaims(ofA, worker: "a/1", now: 0).held == [false, false, false, false])
    }

    /// The scheduler lease's expiry is the database's time too: a host a minute ahead does not find a live
    /// leader's lease run out, and a leader a minute behind does not take it already expired.
    @Test func aHostsClockTakesNoLeaseFromALiveHolder() throws {
        let (store, skewed) = try makeStores()
        let now = Date().millisecondsSince1970
        #expect(try store.acquireLease(name: "scheduler", holder: "a", duration: 10_000, now: now))
        #expect(try !skewed.acquireLease(name: "scheduler", holder: "b", duration: 10_000, now: now + Self.minute))
        #expect(try store.lease(name: "scheduler")?.holder == "a")
        let expiry = try #require(try store.lease(name: "scheduler")?.expiresAt)
        #expect(abs(expiry - 10_000 - Date().millisecondsSince1970) < 5_000, "the expiry is the database's time")

        #expect(try skewed.acquireLease(name: "other", holder: "b", duration: 10_000, now: now - Self.minute))
        #expect(try !store.acquireLease(name: "other", holder: "a", duration: 10_000, now: now))
    }
}
