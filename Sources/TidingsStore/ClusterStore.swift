/// What tidingsd instances sharing one store coordinate through: heartbeats that say who is alive, the
/// release of a silent instance's claims, and named leases that let one instance run scheduled work.
///
/// An instance writes its heartbeat (``Store/recordHeartbeat(instanceID:now:)``) every few seconds and
/// claims deliveries under worker ids that name it: the instance id itself, or `instanceID/n` for its
/// n-th worker. Another instance that finds the heartbeat older than the cluster's timeout returns those
/// claims to the queue (``releaseClaimsOfSilentInstances(silentFor:now:)``) instead of waiting for
/// their leases. Liveness is measured on one clock: PostgreSQL's (`clock_timestamp()`), never the instances',
/// so a host whose clock is off neither takes live instances for dead nor looks dead itself. SQLite serves one
/// host, and uses the `now` its callers pass. Every release raises the released rows' claim epoch
/// (``MessageDelivery/claimEpoch``), so the silent instance, if it was only paused, can neither send them
/// (``SendControlStore/checkClaims(_:worker:now:)``) nor record their outcomes.
public protocol ClusterStore: Sendable {
    /// Returns to pending every delivery claimed by an instance whose last heartbeat is more than `timeout`
    /// milliseconds old (by the store's clock on PostgreSQL, by `now` on SQLite), frees the audience
    /// resolutions their resolvers (`instanceID/resolver`) held, and forgets those instances (one that was only
    /// slow writes its heartbeat again).
    /// - Returns: how many deliveries were released.
    func releaseClaimsOfSilentInstances(silentFor timeout: Int64, now: Int64) throws -> Int
    /// An instance stopping cleanly: its remaining claims return to pending at once, its resolutions are freed,
    /// and its heartbeat row and leases go, so no one waits for it.
    /// - Returns: how many deliveries were released.
    @discardableResult
    func retireInstance(instanceID: String, now: Int64) throws -> Int
    /// The instances that have a heartbeat row, with their last heartbeat (the store's clock on PostgreSQL), by id.
    func instanceHeartbeats() throws -> [String: Int64]
    /// Takes the lease `name` for `holder` for `duration` milliseconds, or extends it, when it is free, expired
    /// or already `holder`'s. Expiry is measured on the store's clock, as liveness is: PostgreSQL's, so a host
    /// whose clock runs ahead cannot find a live leader's lease expired; on SQLite, `now`. At most one holder
    /// has an unexpired lease at any time.
    /// - Returns: whether `holder` holds the lease now.
    func acquireLease(name: String, holder: String, duration: Int64, now: Int64) throws -> Bool
    /// Gives the lease up when `holder` has it, so another can take it at once.
    func releaseLease(name: String, holder: String) throws
    /// The lease's holder and expiry (on the store's clock), whether or not it has expired; nil when no one has
    /// taken it.
    func lease(name: String) throws -> (holder: String, expiresAt: Int64)?
    /// Takes up to `want` slots of the shared rate `name` (a message's `rate_per_second`, an app's ceiling, a
    /// key's request rate) in one atomic step, as ``RateLease/schedule(next:now:interval:want:charge:horizon:)``
    /// says, so the instances sharing the store together stay within the rate. Durations are in microseconds.
    /// A rate's schedule is kept until it has been idle for an hour.
    /// - Parameter now: microseconds since 1970 on the caller's clock; PostgreSQL, shared by several hosts,
    ///   uses its own (`clock_timestamp()`).
    func leaseRate(_ name: String, interval: Int64, want: Int, charge: Int, horizon: Int64, now: Int64) throws
        -> RateLease
}
