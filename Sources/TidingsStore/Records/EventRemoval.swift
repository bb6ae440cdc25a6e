/// What ``EventRetentionStore/removeEvents(receivedBefore:)`` removed.
public struct EventRemoval: Sendable, Equatable {
    /// Events deleted row by row (SQLite; PostgreSQL's default partition).
    public var deletedEvents: Int
    /// Whole partitions dropped (PostgreSQL), by table name, oldest first.
    public var droppedPartitions: [String]
    /// Event ids forgotten (PostgreSQL's `event_ids`; on SQLite they go with their rows).
    public var forgottenEventIDs: Int

    public init(deletedEvents: Int = 0, droppedPartitions: [String] = [], forgottenEventIDs: Int = 0) {
        self.deletedEvents = deletedEvents
        self.droppedPartitions = droppedPartitions
        self.forgottenEventIDs = forgottenEventIDs
    }
}
