import Foundation
import Testing
import TidingsModel
import TidingsTesting

@testable import TidingsServer

/// The per-app client cache behind AppAPNsProvider and AppFCMProvider.
@Suite("Per-app client cache")
struct AppClientCacheTests {
    final class FakeClient: Sendable {
        let name: String
        let closed = LockedBox(0)
        init(_ name: String) { self.name = name }
    }

    struct MakeFailed: Error {}

    let cache = AppClientCache<FakeClient> { $0.closed.withLock { $0 += 1 } }

    @Test func makesOnceAndKeeps() throws {
        let first = cache.client(for: "app") { FakeClient("first") }
        let second = try cache.client(for: "app") { () throws(MakeFailed) -> FakeClient in throw MakeFailed() }
        #expect(first === second)
        let other = cache.client(for: "other") { FakeClient("other") }
        #expect(other !== first)
    }

    @Test func nilAndFailuresAreNotKept() throws {
        #expect(cache.clientIfAvailable(for: "app", make: { nil }) == nil)
        #expect(throws: MakeFailed.self) {
            try cache.client(for: "app") { () throws(MakeFailed) -> FakeClient in throw MakeFailed() }
        }
        let made = cache.clientIfAvailable(for: "app", make: { FakeClient("late") })
        #expect(made?.name == "late")
    }

    @Test func aRacerThatLosesHasItsClientClosed() {
        let winner = FakeClient("winner")
        let loser = FakeClient("loser")
        // The loser's maker runs while the winner's client is being kept.
        let kept = cache.client(for: "app") { () -> FakeClient in
            #expect(cache.client(for: "app") { winner } === winner)
            return loser
        }
        #expect(kept === winner)
        #expect(loser.closed.withLock { $0 } == 1)
        #expect(winner.closed.withLock { $0 } == 0)
    }

    @Test func aChangedVersionReplacesTheClientAtTheNextRecheckOrAtOnceAfterRecheckAll() {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let cache = AppClientCache<FakeClient>(clock: clock, recheckInterval: 60) { $0.closed.withLock { $0 += 1 } }
        let version = LockedBox("v1")
        let reads = LockedBox(0)
        func client(_ name: String) -> FakeClient {
            cache.client(
                for: "app",
                version: {
                    reads.withLock { $0 += 1 }
                    return version.withLock { $0 }
                }
            ) { FakeClient(name) }
        }
        let first = client("first")
        version.withLock { $0 = "v2" }
        // Within the recheck interval the version is not even read.
        #expect(client("second") === first)
        #expect(reads.withLock { $0 } == 1)
        // The store announced a change: the next use reads the version, finds it changed, replaces the client.
        cache.recheckAll()
        let second = client("second")
        #expect(second.name == "second")
        #expect(first.closed.withLock { $0 } == 1)
        // Announced again, but unchanged: kept.
        cache.recheckAll()
        #expect(client("third") === second)
        #expect(reads.withLock { $0 } == 3)
    }

    @Test func aVersionThatCannotBeReadKeepsTheClientInUseAndIsReadAgainNextTime() throws {
        struct Unreachable: Error {}
        let cache = AppClientCache<FakeClient>(recheckInterval: 0) { $0.closed.withLock { $0 += 1 } }
        let reachable = LockedBox(true)
        let version = LockedBox("v1")
        func client(_ name: String) -> FakeClient {
            cache.client(
                for: "app",
                version: {
                    guard reachable.withLock({ $0 }) else { throw Unreachable() }
                    return version.withLock { $0 }
                }
            ) { FakeClient(name) }
        }
        let first = client("first")
        reachable.withLock { $0 = false }
        #expect(client("second") === first, "the store being down is not a change of credentials")
        #expect(first.closed.withLock { $0 } == 0)
        reachable.withLock { $0 = true }
        version.withLock { $0 = "v2" }
        #expect(client("third").name == "third")
    }

    @Test func shutdownClosesEveryKeptClient() {
        let clients = (0..<3).map { index in cache.client(for: "app-\(index)") { FakeClient("\(index)") } }
        cache.shutdown()
        #expect(clients.map { $0.closed.withLock { $0 } } == [1, 1, 1])
    }
}
