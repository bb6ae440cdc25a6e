/// What ``SendControlStore/checkClaims(_:worker:now:)`` found: which of a worker's claims still hold, and how long
/// ago its instance's heartbeat was written, both by the store's clock.
public struct ClaimCheck: Sendable, Hashable {
    /// For each delivery asked about, in order: whether it is still claimed by the worker under its
    /// ``MessageDelivery/claimEpoch``.
    public var held: [Bool]
    /// Milliseconds since the worker's instance (the worker id, or its part before the last `/`) last wrote its
    /// heartbeat, by the store's clock; nil when the instance has no heartbeat row.
    public var heartbeatAge: Int64?

    public init(held: [Bool], heartbeatAge: Int64?) {
        self.held = held
        self.heartbeatAge = heartbeatAge
    }
}
