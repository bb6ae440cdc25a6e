/// The reasons the store itself drops events for (a rejected event carries the server's reason).
public enum DropReason {
    /// The store was at its event or byte bound, and the event was the oldest.
    public static let queueFull = "queue_full"
    /// The event was older than the limit when ``EventStore/dropEvents(olderThan:)`` ran.
    public static let expired = "expired"
}
