import TidingsStore

extension PostgresStore {
    /// Event ids forgotten per transaction.
    static let retentionBatch = 10_000

    /// Drops the monthly partitions that end by the start of `cutoff`'s month, deletes the default
    /// partition's rows received before it and their ranges (EventScope), then forgets their ids in batches.
    /// The ids go last: should the run stop half way, an id is never forgotten while its event is still
    /// stored (which would let a re-upload in twice).
    public func removeEvents(receivedBefore cutoff: Int64) throws -> EventRemoval {
        let boundary = EventPartition(containing: cutoff).start
        var removal = EventRemoval()
        let partitions = try read { db in
            try db.query(
                """
                SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                WHERE i.inhparent = 'events'::regclass AND c.relname LIKE 'events\\_p%'
                ORDER BY c.relname
                """
            ) { $0.text(0) }
        }
        for name in partitions {
            guard let partition = EventPartition(name: name), partition.end <= boundary else { continue }
            try write { db in
                // The lock that partition creation takes, so a creation and a drop never interleave.
                try db.execute("SELECT pg_advisory_xact_lock(\(Self.partitionLock))")
                try db.execute("DROP TABLE IF EXISTS \(partition.name)")
            }
            knownPartitions.withLock { _ = $0.remove(partition.key) }
            removal.droppedPartitions.append(partition.name)
        }
        removal.deletedEvents = try write { db in
            try db.run("DELETE FROM events_default WHERE received_at < $1", [.integer(boundary)])
        }
        // A range's events share its `received_at`: the ranges of the months gone, in one pass over the table.
        try write { db in
            _ = try db.run("DELETE FROM event_ranges WHERE received_at < $1", [.integer(boundary)])
        }
        while true {
            let forgotten = try write { db in
                try db.run(
                    """
                    DELETE FROM event_ids WHERE ctid = ANY (ARRAY(
                        SELECT ctid FROM event_ids WHERE received_at < $1 LIMIT $2))
                    """, [.integer(boundary), .integer(Int64(Self.retentionBatch))])
            }
            removal.forgottenEventIDs += forgotten
            if forgotten < Self.retentionBatch { return removal }
        }
    }
}
