/// Where the deliveries of a message stand, by state and reason.
public struct MessageCounts: Sendable, Hashable {
    /// Every target resolved, skipped ones included.
    public var targets = 0
    /// Pending, including retries waiting for their time.
    public var queued = 0
    /// Claimed by a worker right now.
    public var inFlight = 0
    public var sent = 0
    public var failedByReason: [String: Int] = [:]
    public var skippedByReason: [String: Int] = [:]

    public init() {}

    public var failed: Int { failedByReason.values.reduce(0, +) }
    public var skipped: Int { skippedByReason.values.reduce(0, +) }
}
