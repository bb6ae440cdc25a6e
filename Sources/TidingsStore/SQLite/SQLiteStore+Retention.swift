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
                try Self.trimEventRanges(db)
                return (deleted, following)
            }
            removal.deletedEvents += deleted
            guard let following, following.receivedAt < cutoff else { return removal }
            next = following.seq
        }
    }

    /// Keeps the ranges (EventScope) within the `seq`s of the events left. Run in the transaction that deleted
    /// events: SQLite hands out `seq`s above the largest left again (all of them once the table is empty), and
    /// a stale range of the same value over them would count the new rows twice.
    ///
    /// Ranges are appended in the order of their `seq`s, so the ones ending before the oldest event come first
    /// in `rowid` order and those past the newest last: each end is read a chunk at a time up to the first
    /// range that is within bounds. Past the newest happens only when the clock put the newest events before
    /// older ones, by more than the retention period.
    static func trimEventRanges(_ db: SQLiteConnection) throws {
        let bounds = try db.query("SELECT MIN(seq), MAX(seq) FROM events") { row in
            row.isNull(at: 0) ? nil : (oldest: row.int64(at: 0), newest: row.int64(at: 1))
        }.first
        guard let (oldest, newest) = bounds ?? nil else {
            try db.run("DELETE FROM event_ranges")
            return
        }
        while true {
            let ranges = try db.query("SELECT rowid, last_seq FROM event_ranges ORDER BY rowid LIMIT 1000") {
                (rowID: $0.int64(at: 0), lastSeq: $0.int64(at: 1))
            }
            let stale = ranges.prefix { $0.lastSeq < oldest }
            guard let newestStale = stale.last else { break }
            try db.run("DELETE FROM event_ranges WHERE rowid <= ?1", [.integer(newestStale.rowID)])
            if stale.count < ranges.count { break }
        }
        var below = Int64.max
        while true {
            let ranges = try db.query(
                "SELECT rowid, first_seq, last_seq FROM event_ranges WHERE rowid < ?1 ORDER BY rowid DESC LIMIT 1000",
                [.integer(below)]
            ) { (rowID: $0.int64(at: 0), firstSeq: $0.int64(at: 1), lastSeq: $0.int64(at: 2)) }
            let past = ranges.prefix { $0.lastSeq > newest }
            for range in past {
                if range.firstSeq > newest {
                    try db.run("DELETE FROM event_ranges WHERE rowid = ?1", [.integer(range.rowID)])
                } else {
                    try db.run(
                        "UPDATE event_ranges SET last_seq = ?2 WHERE rowid = ?1",
                        [.integer(range.rowID), .integer(newest)])
                }
            }
            guard let lowest = past.last, past.count == ranges.count else { return }
            below = lowest.rowID
        }
    }
}
