import Foundation
import TidingsModel
import TidingsSQLite

extension EventStore {
    /// Leases up to `maxEvents` of the oldest unleased events, within `maxBytes` (at least one event).
    ///
    /// The budget counts the events' own bytes, as ``EventQueue`` says; the uploader leaves room for the
    /// request envelope (``EventBatchBody/overhead(eventCount:)``).
    /// Rows whose lease expired (a crashed or stalled uploader, in any process) are leasable again. Before
    /// choosing rows, pending drop counters become one `events_dropped` event (see ``EventStore``).
    /// - Returns: nil when nothing is leasable.
    public func lease(maxEvents: Int, maxBytes: Int) throws -> EventLease? {
        guard maxEvents > 0 else {
            throw EventStoreError(code: .invalidArgument, message: "maxEvents must be positive, not \(maxEvents)")
        }
        let now = nowMilliseconds
        let leaseID = UUID()
        let expiresAt = now + Int64(configuration.leaseDuration.seconds * 1000)
        return try write { db -> EventLease? in
            try self.reportDrops(in: db, now: now)
            let select = try db.prepare(
                """
                SELECT sequence, event_id, type, occurred_at, body FROM events
                WHERE lease_expires_at IS NULL OR lease_expires_at <= ?
                ORDER BY sequence LIMIT ?
                """)
            try select.bind(.integer(now), at: 1)
            try select.bind(.integer(Int64(maxEvents)), at: 2)
            var events: [QueuedEvent] = []
            var bytes = 0
            while try select.step() {
                let body = select.blob(at: 4)
                if !events.isEmpty, bytes + body.count > maxBytes { break }
                bytes += body.count
                events.append(
                    QueuedEvent(
                        sequence: select.int64(at: 0), eventID: UUID(uuidString: select.text(at: 1)) ?? UUID(),
                        type: EventType(select.text(at: 2)), occurredAt: select.int64(at: 3), body: body))
            }
            select.reset()
            guard let first = events.first, let last = events.last else { return nil }
            // The chosen rows are exactly the leasable rows of this range, so one update marks them.
            try db.run(
                """
                UPDATE events SET lease_id = ?, lease_expires_at = ?, attempts = attempts + 1
                WHERE sequence BETWEEN ? AND ? AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
                """,
                [
                    .text(leaseID.uuidString.lowercased()), .integer(expiresAt), .integer(first.sequence),
                    .integer(last.sequence), .integer(now),
                ])
            return EventLease(id: leaseID, events: events, expiresAt: expiresAt)
        }
    }

    /// Deletes the events the server accepted or already had, whichever lease they are under now.
    public func acknowledge(_ eventIDs: [UUID], lease: EventLease) throws {
        guard !eventIDs.isEmpty else { return }
        try write { db in
            for eventID in eventIDs {
                try db.run("DELETE FROM events WHERE event_id = ?", [.text(eventID.uuidString.lowercased())])
            }
        }
    }

    /// Deletes events the server refused for good and counts them as dropped for `reason`.
    ///
    /// Refused `events_dropped` reports are deleted without being counted, so a report never reports itself.
    public func reject(_ eventIDs: [UUID], reason: String, lease: EventLease) throws {
        guard !eventIDs.isEmpty else { return }
        try write { db in
            var counted = 0
            for eventID in eventIDs {
                let type = try db.scalar(
                    "DELETE FROM events WHERE event_id = ? RETURNING type", [.text(eventID.uuidString.lowercased())])
                if let type = type?.textValue, type != EventType.eventsDropped.rawValue { counted += 1 }
            }
            try self.countDropped(counted, reason: reason, in: db)
        }
        logger.info("events rejected by the server", metadata: ["count": "\(eventIDs.count)", "reason": reason])
    }

    /// Ends `lease` without deleting anything; its rows are leasable again at once.
    public func release(_ lease: EventLease) throws {
        _ = try write { db in
            // `lease_expires_at IS NOT NULL` walks the small index of leased rows, not the whole table.
            try db.run(
                """
                UPDATE events SET lease_id = NULL, lease_expires_at = NULL
                WHERE lease_expires_at IS NOT NULL AND lease_id = ?
                """, [.text(lease.id.uuidString.lowercased())])
        }
    }

    /// Deletes events that occurred before `cutoff` (milliseconds since 1970), counted as `expired`.
    @discardableResult
    public func dropEvents(olderThan cutoff: Int64) throws -> Int {
        try write { db in
            let types = try db.query(
                "DELETE FROM events WHERE occurred_at < ? RETURNING type", [.integer(cutoff)]
            ) { $0.text(at: 0) }
            let counted = types.filter { $0 != EventType.eventsDropped.rawValue }.count
            try self.countDropped(counted, reason: DropReason.expired, in: db)
            return types.count
        }
    }

    /// How many events wait, leased or not.
    public func count() throws -> Int {
        try read { db in Int(try db.scalar("SELECT count FROM totals WHERE id = 1")?.integerValue ?? 0) }
    }

    /// Turns unreported drop counters into one `events_dropped` event; inside the caller's transaction.
    ///
    /// When a report that was never handed out still waits, the new counts are added to it instead, so an
    /// uploader that keeps failing does not pile up reports.
    func reportDrops(in db: SQLiteConnection, now: Int64) throws {
        var counts = try db.query("SELECT reason, unreported FROM drop_counters WHERE unreported > 0") { row in
            (row.text(at: 0), row.int64(at: 1))
        }.reduce(into: [String: Int64]()) { $0[$1.0] = $1.1 }
        guard !counts.isEmpty else { return }
        try db.run("UPDATE drop_counters SET unreported = 0 WHERE unreported > 0")

        let waiting = try db.query(
            """
            SELECT sequence, body FROM events WHERE type = 'events_dropped' AND attempts = 0
            ORDER BY sequence DESC LIMIT 1
            """
        ) { row in (row.int64(at: 0), row.blob(at: 1)) }.first
        var report: TidingsEvent
        if let waiting, let earlier = try? Self.deserialize(waiting.1) {
            report = earlier
            for (reason, count) in earlier.attributes?["reasons"]?.objectValue ?? [:] {
                if case .integer(let earlierCount) = count { counts[reason, default: 0] += earlierCount }
            }
        } else {
            let installationID =
                try db.scalar("SELECT value FROM metadata WHERE key = 'installation_id'")?.textValue ?? "unknown"
            report = TidingsEvent(
                type: .eventsDropped, occurredAt: now, installationID: installationID, source: .system)
        }
        let total = counts.values.reduce(0, +)
        let reasons = counts.keys.sorted()
        report.attributes = [
            "count": .integer(total),
            "reason": .string(reasons.count == 1 ? reasons[0] : "multiple"),
            "reasons": .object(counts.mapValues { .integer($0) }),
        ]
        let body = try Self.serialize(report)
        if let waiting {
            try db.run(
                "UPDATE events SET body = ?, size = ? WHERE sequence = ?",
                [.blob(body), .integer(Int64(body.count)), .integer(waiting.0)])
        } else {
            try db.run(
                "INSERT INTO events(event_id, type, occurred_at, enqueued_at, body, size) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    .text(report.eventID.uuidString.lowercased()), .text(report.type.rawValue),
                    .integer(report.occurredAt), .integer(now), .blob(body), .integer(Int64(body.count)),
                ])
        }
        logger.info(
            "events dropped, reported", metadata: ["count": "\(total)", "reasons": reasons.joined(separator: ",")])
    }
}
