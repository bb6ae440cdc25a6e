import Foundation
import TidingsModel

/// Announces the changes of ``StoreChange`` to whoever caches what they name, in this process.
///
/// ```swift
/// let observation = store.changes.observe { change in
///     if case .key(let id) = change { keyCache.removeAll { $0.id == id } }
/// }
/// ```
///
/// A store publishes each change once its write committed, before the write returns, so this process's own
/// caches never outlive a change it made. On SQLite (one process) that is the whole story. On PostgreSQL
/// every write also notifies the other instances (`NOTIFY`), whose listener publishes the change here too,
/// and publishes ``StoreChange/everything`` whenever it (re)connects, because notifications sent while it
/// was away are lost. A change may therefore arrive twice; dropping a cache entry twice is harmless.
public final class StoreChangeFeed: Sendable {
    private struct Observers {
        var subscriptions: [UInt64: Subscription] = [:]
        var nextID: UInt64 = 0
        var started = false
    }

    private let observers = LockedBox(Observers())
    private let connected: LockedBox<Bool>
    private let start: (@Sendable (StoreChangeFeed) -> Void)?

    /// - Parameters:
    ///   - hearsOtherProcesses: the initial value of ``isConnected``.
    ///   - start: called once, with the feed, when the first observer arrives: a backend starts its listener
    ///     then, so a store opened only for a command (migrate, copy, admin) holds no extra connection.
    public init(hearsOtherProcesses: Bool = true, start: (@Sendable (StoreChangeFeed) -> Void)? = nil) {
        connected = LockedBox(hearsOtherProcesses)
        self.start = start
    }

    /// Whether the feed hears every change made through the store by any process: always on SQLite, and on
    /// PostgreSQL while the listener is connected. While it is not, caches are bounded by their lifetimes only.
    public var isConnected: Bool { connected.withLock { $0 } }

    /// Calls `handler` with every change published from now on, until the observation is cancelled or
    /// released. The handler runs on the publishing thread (a writer's, or the listener's): keep it short and
    /// never call the store from it.
    public func observe(_ handler: @escaping @Sendable (StoreChange) -> Void) -> StoreChangeObservation {
        let (id, first) = observers.withLock { observers -> (UInt64, Bool) in
            let id = observers.nextID
            observers.nextID += 1
            observers.subscriptions[id] = Subscription(handler)
            defer { observers.started = true }
            return (id, !observers.started)
        }
        if first { start?(self) }
        return StoreChangeObservation { [weak self] in
            self?.observers.withLock { $0.subscriptions.removeValue(forKey: id) }?.end()
        }
    }

    /// Hands `change` to every observer. For backends: call it after the write committed.
    public func publish(_ change: StoreChange) {
        for subscription in observers.withLock({ Array($0.subscriptions.values) }) { subscription.deliver(change) }
    }

    /// Records whether the feed currently hears other processes' changes. For backends.
    public func setConnected(_ isConnected: Bool) {
        connected.withLock { $0 = isConnected }
    }
}

/// One observer's registration with a ``StoreChangeFeed``: ends with ``cancel()`` or when released.
public final class StoreChangeObservation: Sendable {
    private let end: LockedBox<(@Sendable () -> Void)?>

    init(end: @escaping @Sendable () -> Void) {
        self.end = LockedBox(end)
    }

    deinit { cancel() }

    /// Stops the handler from being called: once this returns, it is not called again. A call under way for a
    /// change published just before is waited for, unless this is called from that call.
    public func cancel() {
        end.withLock { end in
            end?()
            end = nil
        }
    }
}

/// One observer's handler, called under a lock of its own, so that once ``end()`` returns the handler is never
/// called again, even by a `publish` that took the list of observers before. Recursive, so a handler may
/// cancel its own observation.
private final class Subscription: @unchecked Sendable {
    // @unchecked: `handler` is read and cleared only with `lock` held.
    private let lock = NSRecursiveLock()
    private var handler: (@Sendable (StoreChange) -> Void)?

    init(_ handler: @escaping @Sendable (StoreChange) -> Void) {
        self.handler = handler
    }

    func deliver(_ change: StoreChange) {
        lock.withLock { handler?(change) }
    }

    /// Waits for a delivery under way, then drops the handler.
    func end() {
        lock.withLock { handler = nil }
    }
}
