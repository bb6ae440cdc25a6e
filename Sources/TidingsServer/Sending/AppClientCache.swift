import TidingsModel

/// Each app's provider client (``APNsClient``, ``FCMClient``), made on first use and kept until
/// ``shutdown()``, so an app's pushes share one client: its connections and its credentials.
///
/// ```swift
/// let clients = AppClientCache<FCMClient> { $0.shutdown() }
/// let client = try clients.client(for: appID) { try FCMClient(account: account) }
/// ```
final class AppClientCache<Client: Sendable>: Sendable {
    private let clients = LockedBox<[String: Client]>([:])
    private let close: @Sendable (Client) -> Void

    /// - Parameter close: stops a client: one made by a racing caller that lost, or every client at shutdown.
    init(close: @escaping @Sendable (Client) -> Void) {
        self.close = close
    }

    /// The client kept for `key`, or the one `make` builds, kept from now on; nil, and nothing kept, when
    /// `make` answers nil (an app without credentials).
    ///
    /// `make` runs outside the lock (it may open connections or read keys from disk); when two callers race
    /// for a new key, the first to finish is kept and the other's client is closed.
    func clientIfAvailable<Failure: Error>(for key: String, make: () throws(Failure) -> Client?) throws(Failure)
        -> Client?
    {
        if let client = clients.withLock({ $0[key] }) { return client }
        guard let made = try make() else { return nil }
        let (client, spare) = clients.withLock { clients -> (Client, Client?) in
            if let existing = clients[key] { return (existing, made) }
            clients[key] = made
            return (made, nil)
        }
        if let spare { close(spare) }
        return client
    }

    /// The client kept for `key`, or the one `make` builds, kept from now on.
    func client<Failure: Error>(for key: String, make: () throws(Failure) -> Client) throws(Failure) -> Client {
        let client = try clientIfAvailable(for: key, make: { () throws(Failure) -> Client? in try make() })
        // `make` never answers nil, so neither does the lookup.
        guard let client else { preconditionFailure("AppClientCache kept no client for \(key)") }
        return client
    }

    /// Closes every client kept so far.
    func shutdown() {
        for client in clients.withLock({ Array($0.values) }) { close(client) }
    }
}
