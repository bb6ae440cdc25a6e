import Foundation
import Testing

@testable import TidingsServer

/// The API's caches of keys, apps and identity verifiers: kept for their lifetime, dropped when told, and a
/// value read while a removal happened is not kept.
@Suite struct StoreBackedCacheTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aValueIsKeptForItsLifetimeThenReadAgain() {
        let cache = StoreBackedCache<String, Int>()
        var reads = 0
        func read(at date: Date) -> Int? {
            cache.value(for: "a", now: date, lifetime: 2) {
                reads += 1
                return reads
            }
        }
        #expect(read(at: now) == 1)
        #expect(read(at: now.addingTimeInterval(1.9)) == 1)
        #expect(read(at: now.addingTimeInterval(2)) == 2)
        #expect(reads == 2)
    }

    @Test func aZeroLifetimeKeepsNothingAndAMissingRowIsNotKept() {
        let cache = StoreBackedCache<String, Int>()
        #expect(cache.value(for: "a", now: now, lifetime: 0) { 1 } == 1)
        #expect(cache.value(for: "b", now: now, lifetime: 60) { nil } == nil)
        #expect(cache.count == 0)
    }

    @Test func removalsDropOneEntryMatchingEntriesOrAll() {
        let cache = StoreBackedCache<String, Int>()
        for (key, value) in [("a", 1), ("b", 2), ("c", 3), ("d", 4)] {
            _ = cache.value(for: key, now: now, lifetime: 60) { value }
        }
        cache.remove("a")
        #expect(cache.value(for: "a", now: now, lifetime: 60) { 10 } == 10)
        cache.removeAll { $0 % 2 == 0 }
        #expect(cache.value(for: "b", now: now, lifetime: 60) { 20 } == 20)
        #expect(cache.value(for: "c", now: now, lifetime: 60) { 30 } == 3)
        cache.removeAll()
        #expect(cache.count == 0)
    }

    @Test func aValueReadWhileARemovalHappenedIsReturnedButNotKept() {
        let cache = StoreBackedCache<String, String>()
        // The read saw the row from before the change the removal announces.
        let stale = cache.value(for: "key", now: now, lifetime: 60) { () -> String? in
            cache.remove("key")
            return "before the revocation"
        }
        #expect(stale == "before the revocation")
        #expect(cache.value(for: "key", now: now, lifetime: 60) { "after" } == "after")
    }

    @Test func pastItsCapacityTheCacheStartsAgainEmpty() {
        let cache = StoreBackedCache<Int, Int>(capacity: 3)
        for key in 0..<3 { _ = cache.value(for: key, now: now, lifetime: 60) { key } }
        #expect(cache.count == 3)
        _ = cache.value(for: 3, now: now, lifetime: 60) { 3 }
        #expect(cache.count == 1)
    }
}
