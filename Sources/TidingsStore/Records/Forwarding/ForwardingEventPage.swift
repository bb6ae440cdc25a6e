/// A page of events to forward, and how far the read looked.
///
/// A read may look at more sequence numbers than it returns rows for (other apps' events, events outside a
/// backfill's range) and may stop before the newest event (a full page, or the bounded scan of a store
/// whose sequence numbers are shared by every app). ``scannedThrough`` says where a cursor may move once
/// ``rows`` are handled, so a destination whose app stores few events still moves on.
public struct ForwardingEventPage: Sendable, Hashable {
    /// The matching events after the query's `afterSequence`, in sequence order.
    public var rows: [ForwardingEventRow]
    /// Every matching event with a sequence number above the query's `afterSequence` and at most this one is
    /// in ``rows``; never below `afterSequence`.
    public var scannedThrough: Int64
    /// Whether the read looked as far as the newest event stored when it ran (or the query's
    /// `throughSequence`): reading again right away would find nothing new.
    public var reachedEnd: Bool

    public init(rows: [ForwardingEventRow], scannedThrough: Int64, reachedEnd: Bool) {
        self.rows = rows
        self.scannedThrough = scannedThrough
        self.reachedEnd = reachedEnd
    }
}
