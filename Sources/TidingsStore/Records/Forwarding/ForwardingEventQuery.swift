/// Which of an app's events a forwarding read takes: those after a sequence number, in sequence order,
/// optionally up to another one and within a range of `occurred_at`.
public struct ForwardingEventQuery: Sendable, Hashable {
    /// Events with a greater sequence number: a cursor.
    public var afterSequence: Int64
    /// The last sequence number to read, inclusive (a dead letter's range); nil reads to the newest event.
    public var throughSequence: Int64?
    /// `occurred_at >= occurredSince` (a backfill's range), unix milliseconds.
    public var occurredSince: Int64?
    /// `occurred_at < occurredUntil`, unix milliseconds.
    public var occurredUntil: Int64?
    /// The most rows a page holds.
    public var limit: Int

    public init(
        afterSequence: Int64, throughSequence: Int64? = nil, occurredSince: Int64? = nil, occurredUntil: Int64? = nil,
        limit: Int
    ) {
        self.afterSequence = afterSequence
        self.throughSequence = throughSequence
        self.occurredSince = occurredSince
        self.occurredUntil = occurredUntil
        self.limit = limit
    }
}
