import Foundation
import TidingsModel

/// Each app's provider client (``APNsClient``, ``FCMClient``), made on first use and kept until its
/// credentials change or ``shutdown()``, so an app's pushes share one client: its connections and its
/// credentials.
///
/// ```swift
/// let clients = AppClientCache<FCMClient> { $0.shutdown() }
/// let client = try clients.client(for: appID, version: { credentials.version(appID: appID) }) {
///     try FCMClient(account: account)
/// }
/// ```
///
/// Credentials changed through the administration API (or `tidingsd apps set-…`) are picked up without a
/// restart: their version (the store's update time) is looked at again at most every ``recheckInterval``, or
/// at once after ``recheckAll()`` (the store announced a change), and a client made from older credentials is
/// replaced (its pushes in flight end as retries and go out again through the new one).
final class AppClientCache<Client: Sendable>: Sendable {
    private struct Entry {
        var client: Client
        /// The credentials' version when the client was made; nil when it had none.
        var version: String?
        var checkedAt: Date
    }

    private let entries = LockedBox<[String: Entry]>([:])
    private let close: @Sendable (Client) -> Void
    private let clock: any TidingsClock
    let recheckInterval: TimeInterval

    /// - Parameter close: stops a client: one made by a racing caller that lost, a replaced one, or every
    ///   client at shutdown.
    init(
        clock: any TidingsClock = SystemClock(), recheckInterval: TimeInterval = 2,
        close: @escaping @Sendable (Client) -> Void
    ) {
        self.clock = clock
        self.recheckInterval = recheckInterval
        self.close = close
    }

    /// The client kept for `key`, or the one `make` builds, kept from now on; nil, and nothing kept, when
    /// `make` answers nil (an app without credentials).
    ///
    /// `version` reads the version of the client's credentials (`nil`: it has none to watch); when it throws
    /// (the store is unreachable) a kept client stays in use and the version is read again at the next use.
    /// `make` runs
    /// outside the lock (it may open connections or read keys); when two callers race for a new key, the first
    /// to finish is kept and the other's client is closed.
    func clientIfAvailable<Failure: Error>(
        for key: String, version readVersion: (() throws -> String?)? = nil, make: () throws(Failure) -> Client?
    ) throws(Failure) -> Client? {
        let now = clock.now
        let current = entries.withLock { $0[key] }
        if let current, now.timeIntervalSince(current.checkedAt) < recheckInterval { return current.client }
        var version: String?
        if let readVersion {
            do {
                version = try readVersion()
            } catch {
                // Not knowing is not a change: keep what works rather than fail every push until the store is back.
                if let current { return current.client }
            }
        }
        if let current, current.version == version {
            entries.withLock { $0[key]?.checkedAt = now }
            return current.client
        }
        guard let made = try make() else {
            if let stale = entries.withLock({ $0.removeValue(forKey: key) }) { close(stale.client) }
            return nil
        }
        let (client, spare) = entries.withLock { entries -> (Client, Client?) in
            if let existing = entries[key], existing.version == version { return (existing.client, made) }
            let replaced = entries[key]?.client
            entries[key] = Entry(client: made, version: version, checkedAt: now)
            return (made, replaced)
        }
        if let spare { close(spare) }
        return client
    }

    /// The client kept for `key`, or the one `make` builds, kept from now on.
    func client<Failure: Error>(
        for key: String, version: (() throws -> String?)? = nil, make: () throws(Failure) -> Client
    ) throws(Failure) -> Client {
        let client = try clientIfAvailable(
            for: key, version: version, make: { () throws(Failure) -> Client? in try make() })
        // `make` never answers nil, so neither does the lookup.
        guard let client else { preconditionFailure("AppClientCache kept no client for \(key)") }
        return client
    }

    /// The client kept for `key`, if any, without making one or looking at its credentials.
    func kept(for key: String) -> Client? {
        entries.withLock { $0[key]?.client }
    }

    /// Makes the next use of every kept client look at its credentials' version again, without waiting for
    /// ``recheckInterval``: the store announced that some changed. A client whose credentials did not change
    /// is kept.
    func recheckAll() {
        entries.withLock { entries in
            for key in entries.keys { entries[key]?.checkedAt = .distantPast }
        }
    }

    /// Closes every client kept so far.
    func shutdown() {
        for entry in entries.withLock({ Array($0.values) }) { close(entry.client) }
    }
}
