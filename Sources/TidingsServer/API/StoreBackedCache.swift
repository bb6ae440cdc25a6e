import Foundation
import TidingsModel

/// Values read from the store and kept for a short lifetime, dropped at once when the store announces a
/// change to them (``APIService`` wires it to ``StoreChangeFeed``); the lifetime bounds how stale a value can
/// be when an announcement is missed.
///
/// ```swift
/// let apps = StoreBackedCache<String, AppRecord>()
/// let app = try apps.value(for: id, now: clock.now, lifetime: 2) { try store.app(id: id) }
/// apps.remove(id)  // the store announced a change to the app
/// ```
///
/// A value read from the store while a removal happened is returned but not kept: the read may have seen the
/// row from before the change the removal announced, and keeping it would undo the removal.
final class StoreBackedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var entries: [Key: (value: Value, expires: Date)] = [:]
        /// Counts removals; a read that saw it change is not kept.
        var generation: UInt64 = 0
    }

    private let state = LockedBox(State())
    /// Past this many entries the cache starts again empty: only real rows are kept, and a flood of them only
    /// costs a refill.
    let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// The value kept for `key` until its expiry, or the one `load` reads, kept for `lifetime` seconds (not at
    /// all when `lifetime` is zero or less); nil, and nothing kept, when `load` finds none.
    func value<Failure: Error>(
        for key: Key, now: Date, lifetime: TimeInterval, load: () throws(Failure) -> Value?
    ) throws(Failure) -> Value? {
        let (cached, generation) = state.withLock { state in
            (state.entries[key].flatMap { $0.expires > now ? $0.value : nil }, state.generation)
        }
        if lifetime > 0, let cached { return cached }
        guard let value = try load() else { return nil }
        guard lifetime > 0 else { return value }
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count >= capacity { state.entries.removeAll() }
            state.entries[key] = (value, now.addingTimeInterval(lifetime))
        }
        return value
    }

    /// Drops the value kept for `key`.
    func remove(_ key: Key) {
        state.withLock { state in
            state.generation &+= 1
            state.entries[key] = nil
        }
    }

    /// Drops every value that `matches`.
    func removeAll(where matches: (Value) -> Bool) {
        state.withLock { state in
            state.generation &+= 1
            state.entries = state.entries.filter { !matches($0.value.value) }
        }
    }

    /// Drops everything.
    func removeAll() {
        state.withLock { state in
            state.generation &+= 1
            state.entries.removeAll()
        }
    }

    /// How many values are kept, expired or not.
    var count: Int { state.withLock { $0.entries.count } }
}
