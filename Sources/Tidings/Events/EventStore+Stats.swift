import Foundation
import TidingsModel
import TidingsSQLite

extension EventStore {
    /// A snapshot of what the store holds, for tools and diagnostics.
    public struct Stats: Sendable, Hashable {
        /// Events of one drop reason: all time, and not yet turned into an `events_dropped` report.
        public struct DropCount: Sendable, Hashable {
            public var total: Int
            public var unreported: Int

            public init(total: Int, unreported: Int) {
                self.total = total
                self.unreported = unreported
            }
        }

        public var schemaVersion: Int
        /// Events waiting, leased or not.
        public var eventCount: Int
        /// Bytes of event JSON waiting.
        public var totalBytes: Int
        public var countsByType: [String: Int]
        /// Milliseconds since the oldest waiting event occurred, or nil when none waits.
        public var oldestAgeMilliseconds: Int64?
        /// When the oldest waiting event occurred (milliseconds since 1970).
        public var oldestOccurredAt: Int64?
        public var dropped: [String: DropCount]
        /// Unexpired leases, and the events they hold.
        public var activeLeases: Int
        public var leasedEvents: Int
        /// Messages remembered for delivery de-duplication.
        public var rememberedDeliveries: Int
        public var maximumEvents: Int
        public var maximumBytes: Int

        /// The snapshot as JSON, with snake-case keys, for `--json` output.
        public var json: JSONValue {
            var object: [String: JSONValue] = [
                "schema_version": .integer(Int64(schemaVersion)),
                "event_count": .integer(Int64(eventCount)),
                "total_bytes": .integer(Int64(totalBytes)),
                "counts_by_type": .object(countsByType.mapValues { .integer(Int64($0)) }),
                "dropped": .object(
                    dropped.mapValues {
                        .object(["total": .integer(Int64($0.total)), "unreported": .integer(Int64($0.unreported))])
                    }),
                "active_leases": .integer(Int64(activeLeases)),
                "leased_events": .integer(Int64(leasedEvents)),
                "remembered_deliveries": .integer(Int64(rememberedDeliveries)),
                "maximum_events": .integer(Int64(maximumEvents)),
                "maximum_bytes": .integer(Int64(maximumBytes)),
            ]
            object["oldest_age_ms"] = oldestAgeMilliseconds.map { .integer($0) } ?? .null
            object["oldest_occurred_at"] = oldestOccurredAt.map { .integer($0) } ?? .null
            return .object(object)
        }
    }

    /// Counts per type, the oldest event's age, bytes, drop counters by reason and active leases.
    public func stats() throws -> Stats {
        let now = nowMilliseconds
        return try read { db in
            func integer(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> Int64? {
                try db.scalar(sql, bindings)?.integerValue
            }
            let countsByType = try db.query("SELECT type, count(*) FROM events GROUP BY type") { row in
                (row.text(at: 0), row.int(at: 1))
            }.reduce(into: [String: Int]()) { $0[$1.0] = $1.1 }
            let dropped = try db.query("SELECT reason, total, unreported FROM drop_counters") { row in
                (row.text(at: 0), Stats.DropCount(total: row.int(at: 1), unreported: row.int(at: 2)))
            }.reduce(into: [String: Stats.DropCount]()) { $0[$1.0] = $1.1 }
            let oldest = try integer("SELECT min(occurred_at) FROM events")
            return Stats(
                schemaVersion: Int(try integer("PRAGMA user_version") ?? 0),
                eventCount: Int(try integer("SELECT count FROM totals WHERE id = 1") ?? 0),
                totalBytes: Int(try integer("SELECT bytes FROM totals WHERE id = 1") ?? 0),
                countsByType: countsByType,
                oldestAgeMilliseconds: oldest.map { max(0, now - $0) },
                oldestOccurredAt: oldest,
                dropped: dropped,
                activeLeases: Int(
                    try integer(
                        "SELECT count(DISTINCT lease_id) FROM events WHERE lease_expires_at > ?", [.integer(now)])
                        ?? 0),
                leasedEvents: Int(
                    try integer("SELECT count(*) FROM events WHERE lease_expires_at > ?", [.integer(now)]) ?? 0),
                rememberedDeliveries: Int(try integer("SELECT count(*) FROM deliveries") ?? 0),
                maximumEvents: configuration.maximumEvents,
                maximumBytes: configuration.maximumBytes)
        }
    }

    /// Every waiting event in order (leased or not), at most `limit` of them.
    public func dump(limit: Int? = nil) throws -> [QueuedEvent] {
        try read { db in
            try db.query(
                "SELECT sequence, event_id, type, occurred_at, body FROM events ORDER BY sequence LIMIT ?",
                [.integer(Int64(limit ?? -1))]
            ) { row in
                QueuedEvent(
                    sequence: row.int64(at: 0), eventID: UUID(uuidString: row.text(at: 1)) ?? UUID(),
                    type: EventType(row.text(at: 2)), occurredAt: row.int64(at: 3), body: row.blob(at: 4))
            }
        }
    }
}
