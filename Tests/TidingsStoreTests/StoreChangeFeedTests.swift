import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// The change feed every backend publishes to (``Store/changes``): each write that changes something instances
/// cache is announced to this process's observers by the time it returns, a write that fails announces
/// nothing, and a cancelled observer hears nothing more. (PostgreSQL's delivery to other instances is
/// `PostgresChangeFeedTests`'.)
@Suite struct StoreChangeFeedTests {
    static let now: Int64 = 1_800_000_000_000

    @Test(arguments: StoreBackend.allCases)
    func everyCachedWriteIsAnnouncedBeforeItReturnsAndFailedOnesAreNot(_ backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: Self.now))
        let heard = LockedBox<[StoreChange]>([])
        let observation = store.changes.observe { change in heard.withLock { $0.append(change) } }
        /// What was heard, leaving out PostgreSQL's "empty everything" on its listener's first connection.
        func changes() -> [StoreChange] { heard.withLock { $0 }.filter { $0 != .everything } }

        let key = APIKeyRecord(
            id: "key_1", appID: "app_a", kind: .app, hash: Array(repeating: 3, count: 32), hint: "tdg_app_x",
            createdAt: Self.now)
        #expect(throws: StoreError.self) {
            try store.createKey(
                APIKeyRecord(
                    id: "key_orphan", appID: "app_missing", kind: .app, hash: [1], hint: "h", createdAt: Self.now))
        }
        #expect(throws: StoreError.self) { try store.revokeKey(id: "key_missing", at: Self.now) }
        #expect(throws: StoreError.self) {
            try store.updateApp(AppRecord(id: "app_missing", name: "m", bundleID: "com.example.m", createdAt: 0))
        }
        #expect(changes().isEmpty, "failed writes announce nothing: \(changes())")

        try store.createKey(key)
        #expect(changes().contains(.key(id: "key_1")))
        try store.revokeKey(id: "key_1", at: Self.now + 1)
        #expect(changes().filter { $0 == .key(id: "key_1") }.count >= 2)
        try store.updateApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.new", createdAt: Self.now))
        #expect(changes().contains(.app(id: "app_a")))
        try store.addIdentityKey(
            IdentityKeyRecord(appID: "app_a", keyID: "k1", algorithm: .es256, publicKeyPEM: "pem", createdAt: Self.now))
        #expect(changes().contains(.identityKeys(appID: "app_a")))
        heard.withLock { $0.removeAll() }
        try store.removeIdentityKey(appID: "app_a", keyID: "k1")
        #expect(changes().contains(.identityKeys(appID: "app_a")))

        observation.cancel()
        let before = heard.withLock { $0.count }
        try store.revokeKey(id: "key_1", at: Self.now + 2)
        Thread.sleep(forTimeInterval: 0.1)
        #expect(heard.withLock { $0.count } == before, "a cancelled observer hears nothing more")
    }

    @Test func cancellingWaitsForACallUnderWayAndNothingIsHeardAfterIt() throws {
        let feed = StoreChangeFeed()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let calls = LockedBox(0)
        let finished = LockedBox(false)
        let observation = feed.observe { _ in
            calls.withLock { $0 += 1 }
            entered.signal()
            proceed.wait()
            finished.withLock { $0 = true }
        }
        Thread.detachNewThread { feed.publish(.everything) }
        entered.wait()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { proceed.signal() }
        observation.cancel()
        #expect(finished.withLock { $0 }, "cancel returns only once the call under way has")
        feed.publish(.everything)
        #expect(calls.withLock { $0 } == 1)

        // A handler may cancel its own observation.
        let own = LockedBox<StoreChangeObservation?>(nil)
        let selfCancelling = feed.observe { _ in
            calls.withLock { $0 += 1 }
            own.withLock { $0 }?.cancel()
        }
        own.withLock { $0 = selfCancelling }
        feed.publish(.everything)
        feed.publish(.everything)
        #expect(calls.withLock { $0 } == 2)
    }

    @Test func sqliteHearsEveryChangeAlwaysSinceItIsTheOnlyProcess() throws {
        let store = try StoreBackend.sqlite.makeStore()
        #expect(store.changes.isConnected)
    }

    @Test func observersAreCalledInTurnAndAReleasedObservationEndsItself() {
        let feed = StoreChangeFeed()
        let first = LockedBox<[StoreChange]>([])
        let second = LockedBox<[StoreChange]>([])
        let kept = feed.observe { change in first.withLock { $0.append(change) } }
        // Held only inside the scope: released (and so ended) when it closes.
        do {
            let released = feed.observe { change in second.withLock { $0.append(change) } }
            feed.publish(.app(id: "a"))
            withExtendedLifetime(released) {}
        }
        feed.publish(.key(id: "k"))
        #expect(first.withLock { $0 } == [.app(id: "a"), .key(id: "k")])
        #expect(second.withLock { $0 } == [.app(id: "a")])
        kept.cancel()
    }

    @Test func theStartHookRunsOnceWhenTheFirstObserverArrives() {
        let starts = LockedBox(0)
        let feed = StoreChangeFeed(hearsOtherProcesses: false) { _ in starts.withLock { $0 += 1 } }
        #expect(starts.withLock { $0 } == 0)
        #expect(!feed.isConnected)
        let one = feed.observe { _ in }
        let two = feed.observe { _ in }
        #expect(starts.withLock { $0 } == 1)
        feed.setConnected(true)
        #expect(feed.isConnected)
        one.cancel()
        two.cancel()
    }
}
