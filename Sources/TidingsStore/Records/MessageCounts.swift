/// Where the deliveries of a message stand, by state and reason.
public struct MessageCounts: Sendable, Hashable {
    /// Every target resolved, skipped ones included.
    public var targets = 0
    /// Pending, including retries waiting for their time.
    public var queued = 0
    /// Claimed by a worker right now.
    public var inFlight = 0
    public var sent = 0
    /// Not sent because the message was cancelled first.
    public var cancelled = 0
    public var failedByReason: [String: Int] = [:]
    public var skippedByReason: [String: Int] = [:]

    public init() {}

    /// Adds `count` deliveries in `state` (a ``MessageDelivery/State`` raw value) with `reason`: one row of a
    /// backend's `GROUP BY state, reason`.
    public mutating func add(state: String, reason: String?, count: Int) {
        targets += count
        switch MessageDelivery.State(rawValue: state) {
        case .pending: queued += count
        case .claimed: inFlight += count
        case .sent: sent += count
        case .failed: failedByReason[reason ?? "unknown", default: 0] += count
        case .skipped: skippedByReason[reason ?? "unknown", default: 0] += count
        case .cancelled: cancelled += count
        case nil: break
        }
    }

    public var failed: Int { failedByReason.values.reduce(0, +) }
    public var skipped: Int { skippedByReason.values.reduce(0, +) }
    /// Deliveries in a final state: once the message is done or cancelled, every target
    /// (`targets == queued + inFlight + finished`).
    public var finished: Int { sent + failed + skipped + cancelled }
}
