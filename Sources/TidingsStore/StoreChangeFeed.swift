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
        var handlers: [UInt64: @Sendable (StoreChange) -> Void] = [:]
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
            observers.handlers[id] = handler
            defer { observers.started = true }
            return (id, !observers.started)
        }
        if first { start?(self) }
        return StoreChangeObservation { [weak self] in
            self?.observers.withLock { _ = $0.handlers.removeValue(forKey: id) }
        }
    }

    /// Hands `change` to every observer. For backends: call it after the write committed.
    public func publish(_ change: StoreChange) {
        for handler in observers.withLock({ Array($0.handlers.values) }) { handler(change) }
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

    /// Stops the handler from being called; it may still be running for a change published just before.
    public func cancel() {
        end.withLock { end in
            end?()
            end = nil
        }
    }
}
