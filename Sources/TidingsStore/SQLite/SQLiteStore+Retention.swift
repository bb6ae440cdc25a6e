import TidingsSQLite

extension SQLiteStore {
    /// Rows deleted per transaction, so ingest waits for the write lock at most one batch at a time.
    static let retentionBatch: Int64 = 5000

    /// Walks `events` in order of `seq` (its primary key) one batch of keys at a time, deleting the rows of
    /// each batch received before `cutoff`, and stops at the first batch that starts at or after it: `seq`
    /// grows with arrival, so no index on `received_at` is needed (nor paid for at every insert). A row the
    /// server's clock put out of order at the boundary may be kept until the next run; none is deleted early.
    public func removeEvents(receivedBefore cutoff: Int64) throws -> EventRemoval {
        var removal = EventRemoval()
        guard var next = try reader.read({ try $0.scalar("SELECT MIN(seq) FROM events")?.integerValue }) else {
            return removal
        }
        while true {
            let end = next + Self.retentionBatch
            let (deleted, following) = try database.write { db -> (Int, (seq: Int64, receivedAt: Int64)?) in
                let deleted = try db.run(
                    "DELETE FROM events WHERE seq >= ?1 AND seq < ?2 AND received_at < ?3",
                    [.integer(next), .integer(end), .integer(cutoff)])
                let following = try db.query(
                    "SELECT seq, received_at FROM events WHERE seq >= ?1 ORDER BY seq LIMIT 1", [.integer(end)]
                ) { (seq: $0.int64(at: 0), receivedAt: $0.int64(at: 1)) }.first
                return (deleted, following)
            }
            removal.deletedEvents += deleted
            guard let following, following.receivedAt < cutoff else { return removal }
            next = following.seq
        }
    }
}
