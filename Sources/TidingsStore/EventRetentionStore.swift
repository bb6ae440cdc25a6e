/// Removing old events (`tidingsd --event-retention DAYS`).
public protocol EventRetentionStore: Sendable {
    /// Removes events received before `cutoff` (unix milliseconds), with their ids, so an old event a device
    /// uploads again is accepted as new. Runs in short transactions, so ingest goes on meanwhile.
    ///
    /// SQLite deletes exactly the rows before `cutoff`. PostgreSQL drops whole monthly partitions: what it
    /// removes is every event received before the start of the month `cutoff` falls in (UTC), so an event is
    /// kept for up to a month past the window, and removing it costs a `DROP TABLE`, not a `DELETE` per row.
    func removeEvents(receivedBefore cutoff: Int64) throws -> EventRemoval
}
