import TidingsModel
import TidingsSQLite

extension SQLiteStore {
    static let forwarderColumns = """
        id, app_id, kind, settings, filter, state, event_cursor, created_at, failing_since, last_error, \
        last_success_at, backfill_since, backfill_until, backfill_cursor
        """

    static let deadLetterColumns = """
        id, forwarder_id, app_id, first_seq, last_seq, event_count, status, error, state, attempts, created_at, \
        updated_at
        """

    public var eventVisibilityDelay: Int64 { 0 }

    public func createForwarder(_ forwarder: ForwarderRecord) throws {
        try database.write { db in
            guard try db.scalar("SELECT 1 FROM apps WHERE id = ?1", [.text(forwarder.appID)]) != nil else {
                throw StoreError(code: .notFound, message: "there is no app \(forwarder.appID)")
            }
            guard try db.scalar("SELECT 1 FROM forwarders WHERE id = ?1", [.text(forwarder.id)]) == nil else {
                throw StoreError(code: .conflict, message: "there is already a forwarder \(forwarder.id)")
            }
            try db.run(
                """
                INSERT INTO forwarders (\(Self.forwarderColumns))
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                """,
                [
                    .text(forwarder.id), .text(forwarder.appID), .text(forwarder.kind.rawValue),
                    .text(
                        try secrets.storedText(
                            ForwarderRecord.storedText(settings: forwarder.settings),
                            context: SealedSecret.forwarderContext(id: forwarder.id))),
                    .text(forwarder.filter.storedText), .text(forwarder.state.rawValue), .integer(forwarder.cursor),
                    .integer(forwarder.createdAt), Self.optional(forwarder.failingSince),
                    forwarder.lastError.map(SQLiteValue.text) ?? .null, Self.optional(forwarder.lastSuccessAt),
                    Self.optional(forwarder.backfill?.since), Self.optional(forwarder.backfill?.until),
                    Self.optional(forwarder.backfill?.cursor),
                ])
        }
    }

    public func forwarder(appID: String, id: String) throws -> ForwarderRecord? {
        try reader.read { db in
            try db.query(
                "SELECT \(Self.forwarderColumns) FROM forwarders WHERE app_id = ?1 AND id = ?2",
                [.text(appID), .text(id)], row: forwarderRow
            ).first
        }
    }

    public func forwarders(appID: String?) throws -> [ForwarderRecord] {
        try reader.read { db in
            if let appID {
                return try db.query(
                    "SELECT \(Self.forwarderColumns) FROM forwarders WHERE app_id = ?1 ORDER BY created_at, id",
                    [.text(appID)], row: forwarderRow)
            }
            return try db.query(
                "SELECT \(Self.forwarderColumns) FROM forwarders ORDER BY created_at, id", row: forwarderRow)
        }
    }

    @discardableResult
    public func setForwarderState(appID: String, id: String, state: ForwarderRecord.State) throws -> ForwarderRecord {
        try database.write { db in
            let changed = try db.run(
                "UPDATE forwarders SET state = ?3 WHERE app_id = ?1 AND id = ?2",
                [.text(appID), .text(id), .text(state.rawValue)])
            guard changed > 0 else { throw StoreError(code: .notFound, message: "there is no forwarder \(id)") }
            return try forwarder(db, id: id)
        }
    }

    @discardableResult
    public func removeForwarder(appID: String, id: String) throws -> Bool {
        try database.write { db in
            try db.run(
                "DELETE FROM forwarder_dead_letters WHERE app_id = ?1 AND forwarder_id = ?2", [.text(appID), .text(id)])
            try db.run(
                "DELETE FROM erasure_notices WHERE app_id = ?1 AND forwarder_id = ?2", [.text(appID), .text(id)])
            return try db.run("DELETE FROM forwarders WHERE app_id = ?1 AND id = ?2", [.text(appID), .text(id)]) > 0
        }
    }

    public func acquireForwarderLease(id: String, owner: String, now: Int64, until: Int64) throws -> Bool {
        try database.write { db in
            try db.run(
                """
                UPDATE forwarders SET lease_owner = ?2, lease_until = ?4
                WHERE id = ?1 AND (lease_owner IS NULL OR lease_owner = ?2 OR lease_until < ?3)
                """, [.text(id), .text(owner), .integer(now), .integer(until)]) > 0
        }
    }

    public func releaseForwarderLease(id: String, owner: String) throws {
        try database.write { db in
            try db.run(
                "UPDATE forwarders SET lease_owner = NULL, lease_until = NULL WHERE id = ?1 AND lease_owner = ?2",
                [.text(id), .text(owner)])
        }
    }

    @discardableResult
    public func advanceForwarderCursor(id: String, owner: String, to sequence: Int64, now: Int64) throws -> Bool {
        try database.write { db in
            try db.run(
                """
                UPDATE forwarders SET event_cursor = MAX(event_cursor, ?3), last_success_at = ?4, failing_since = NULL,
                    last_error = NULL
                WHERE id = ?1 AND lease_owner = ?2
                """, [.text(id), .text(owner), .integer(sequence), .integer(now)]) > 0
        }
    }

    public func recordForwarderFailure(id: String, at: Int64, message: String) throws {
        try database.write { db in
            try db.run(
                "UPDATE forwarders SET failing_since = COALESCE(failing_since, ?2), last_error = ?3 WHERE id = ?1",
                [.text(id), .integer(at), .text(message)])
        }
    }

    @discardableResult
    public func startForwarderBackfill(appID: String, id: String, since: Int64, until: Int64) throws
        -> ForwarderRecord
    {
        try database.write { db in
            let changed = try db.run(
                """
                UPDATE forwarders SET backfill_since = ?3, backfill_until = ?4, backfill_cursor = 0
                WHERE app_id = ?1 AND id = ?2
                """, [.text(appID), .text(id), .integer(since), .integer(until)])
            guard changed > 0 else { throw StoreError(code: .notFound, message: "there is no forwarder \(id)") }
            return try forwarder(db, id: id)
        }
    }

    @discardableResult
    public func advanceForwarderBackfill(id: String, owner: String, to sequence: Int64?) throws -> Bool {
        try database.write { db in
            if let sequence {
                return try db.run(
                    "UPDATE forwarders SET backfill_cursor = ?3 WHERE id = ?1 AND lease_owner = ?2",
                    [.text(id), .text(owner), .integer(sequence)]) > 0
            }
            return try db.run(
                """
                UPDATE forwarders SET backfill_since = NULL, backfill_until = NULL, backfill_cursor = NULL
                WHERE id = ?1 AND lease_owner = ?2
                """, [.text(id), .text(owner)]) > 0
        }
    }

    @discardableResult
    public func parkDeadLetter(_ letter: DeadLetterRecord, owner: String, advancesCursor: Bool) throws -> Bool {
        try parkDeadLetters(
            [letter], forwarderID: letter.forwarderID, owner: owner,
            movingCursorTo: advancesCursor ? letter.lastSequence : nil)
    }

    @discardableResult
    public func parkDeadLetters(
        _ letters: [DeadLetterRecord], forwarderID: String, owner: String, movingCursorTo sequence: Int64?
    ) throws -> Bool {
        if let stranger = letters.first(where: { $0.forwarderID != forwarderID }) {
            throw StoreError(
                code: .conflict, message: "dead letter \(stranger.id) is not forwarder \(forwarderID)'s")
        }
        return try database.write { db in
            guard
                try db.scalar(
                    "SELECT 1 FROM forwarders WHERE id = ?1 AND lease_owner = ?2",
                    [.text(forwarderID), .text(owner)]) != nil
            else { return false }
            for letter in letters {
                let values: [SQLiteValue] = [
                    .text(letter.id), .text(letter.forwarderID), .text(letter.appID), .integer(letter.firstSequence),
                    .integer(letter.lastSequence), .integer(Int64(letter.eventCount)),
                    Self.optional(letter.status.map(Int64.init)), .text(letter.error), .text(letter.state.rawValue),
                    .integer(Int64(letter.attempts)), .integer(letter.createdAt), .integer(letter.updatedAt),
                ]
                try db.run(
                    "INSERT INTO forwarder_dead_letters (\(Self.deadLetterColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                    values)
            }
            if let sequence {
                try db.run(
                    "UPDATE forwarders SET event_cursor = MAX(event_cursor, ?2) WHERE id = ?1",
                    [.text(forwarderID), .integer(sequence)])
            }
            return true
        }
    }

    public func deadLetters(appID: String, forwarderID: String) throws -> [DeadLetterRecord] {
        try reader.read { db in
            try db.query(
                """
                SELECT \(Self.deadLetterColumns) FROM forwarder_dead_letters
                WHERE app_id = ?1 AND forwarder_id = ?2 ORDER BY created_at, first_seq
                """, [.text(appID), .text(forwarderID)], row: Self.deadLetterRow)
        }
    }

    public func requestDeadLetterReplay(appID: String, forwarderID: String, ids: [String]?, now: Int64) throws -> Int {
        try database.write { db in
            let bindings: [SQLiteValue] = [.text(appID), .text(forwarderID), .integer(now)]
            let update = """
                UPDATE forwarder_dead_letters SET state = 'replaying', updated_at = ?3
                WHERE app_id = ?1 AND forwarder_id = ?2 AND state = 'parked'
                """
            guard let ids else { return try db.run(update, bindings) }
            var changed = 0
            for id in ids { changed += try db.run(update + " AND id = ?4", bindings + [.text(id)]) }
            return changed
        }
    }

    public func finishDeadLetterReplay(id: String, delivered: Bool, status: Int?, error: String, now: Int64) throws {
        try database.write { db in
            if delivered {
                try db.run("DELETE FROM forwarder_dead_letters WHERE id = ?1", [.text(id)])
            } else {
                try db.run(
                    """
                    UPDATE forwarder_dead_letters SET state = 'parked', status = ?2, error = ?3, attempts = attempts + 1,
                        updated_at = ?4
                    WHERE id = ?1
                    """, [.text(id), Self.optional(status.map(Int64.init)), .text(error), .integer(now)])
            }
        }
    }

    public func purgeDeadLetters(appID: String, forwarderID: String, ids: [String]?) throws -> Int {
        try database.write { db in
            let delete = "DELETE FROM forwarder_dead_letters WHERE app_id = ?1 AND forwarder_id = ?2"
            let bindings: [SQLiteValue] = [.text(appID), .text(forwarderID)]
            guard let ids else { return try db.run(delete, bindings) }
            var removed = 0
            for id in ids { removed += try db.run(delete + " AND id = ?3", bindings + [.text(id)]) }
            return removed
        }
    }

    /// How many sequence numbers one forwarding read scans at most when the app's events are sparse among
    /// other apps': the read stays bounded, and the cursor still moves past the scanned range.
    static let forwardingScanWindow: Int64 = 20_000

    public func forwardingEvents(appID: String, query: ForwardingEventQuery) throws -> ForwardingEventPage {
        let after = query.afterSequence
        let limit = max(1, query.limit)
        return try reader.read { db in
            // The newest sequence number first. The single writer commits in sequence order, so every event up
            // to it is visible to the scan below, and a scan bounded by it skips nothing a later read could find.
            let newest = try db.scalar("SELECT MAX(seq) FROM events")?.integerValue ?? 0
            var end = min(newest, after + max(Self.forwardingScanWindow, Int64(limit) * 4))
            var last = newest
            if let through = query.throughSequence {
                end = min(end, through)
                last = min(last, through)
            }
            guard end > after else { return ForwardingEventPage(rows: [], scannedThrough: after, reachedEnd: true) }
            // `seq` is the rowid: the scan walks the table from the cursor, never the app's whole history (the
            // `+` keeps SQLite from choosing an index on `app_id` and sorting every event of the app).
            var sql = "SELECT \(Self.eventColumns) FROM events WHERE seq > ?1 AND seq <= ?2 AND +app_id = ?3"
            var bindings: [SQLiteValue] = [.integer(after), .integer(end), .text(appID)]
            if let since = query.occurredSince {
                bindings.append(.integer(since))
                sql += " AND occurred_at >= ?\(bindings.count)"
            }
            if let until = query.occurredUntil {
                bindings.append(.integer(until))
                sql += " AND occurred_at < ?\(bindings.count)"
            }
            bindings.append(.integer(Int64(limit)))
            sql += " ORDER BY seq LIMIT ?\(bindings.count)"
            let rows = try db.query(sql, bindings, row: Self.forwardingRow)
            let scanned = rows.count == limit ? rows[rows.count - 1].sequence : end
            return ForwardingEventPage(rows: rows, scannedThrough: scanned, reachedEnd: scanned >= last)
        }
    }

    public func latestEventSequence(appID: String) throws -> Int64 {
        try reader.read { db in
            try db.scalar("SELECT MAX(seq) FROM events WHERE app_id = ?1", [.text(appID)])?.integerValue ?? 0
        }
    }

    public func eventBacklog(appID: String, afterSequence: Int64) throws -> (count: Int, oldestReceivedAt: Int64?) {
        try reader.read { db in
            try db.query(
                // Walks the rowid from the cursor (the backlog), not the index over the app's whole history.
                "SELECT COUNT(*), MIN(received_at) FROM events WHERE seq > ?2 AND +app_id = ?1",
                [.text(appID), .integer(afterSequence)]
            ) { row in (row.int(at: 0), row.isNull(at: 1) ? nil : row.int64(at: 1)) }.first ?? (0, nil)
        }
    }

    // MARK: Rows

    private static func optional(_ value: Int64?) -> SQLiteValue { value.map(SQLiteValue.integer) ?? .null }

    private func forwarder(_ db: SQLiteConnection, id: String) throws -> ForwarderRecord {
        guard
            let record = try db.query(
                "SELECT \(Self.forwarderColumns) FROM forwarders WHERE id = ?1", [.text(id)], row: forwarderRow
            ).first
        else { throw StoreError(code: .notFound, message: "there is no forwarder \(id)") }
        return record
    }

    private func forwarderRow(_ row: SQLiteStatement) throws -> ForwarderRecord {
        func optional(_ column: Int32) -> Int64? { row.isNull(at: column) ? nil : row.int64(at: column) }
        var backfill: ForwarderRecord.Backfill?
        if let since = optional(11), let until = optional(12) {
            backfill = ForwarderRecord.Backfill(since: since, until: until, cursor: optional(13) ?? 0)
        }
        return ForwarderRecord(
            id: row.text(at: 0), appID: row.text(at: 1),
            kind: ForwarderRecord.Kind(rawValue: row.text(at: 2)) ?? .webhook,
            settings: ForwarderRecord.settings(
                storedText: try secrets.plaintextText(
                    row.text(at: 3), context: SealedSecret.forwarderContext(id: row.text(at: 0)))),
            filter: ForwarderRecord.Filter(storedText: row.text(at: 4)),
            state: ForwarderRecord.State(rawValue: row.text(at: 5)) ?? .paused, cursor: row.int64(at: 6),
            createdAt: row.int64(at: 7), failingSince: optional(8), lastError: row.optionalText(at: 9),
            lastSuccessAt: optional(10), backfill: backfill)
    }

    /// A row of `eventColumns` as it is stored, for forwarding.
    static func forwardingRow(_ row: SQLiteStatement) -> ForwardingEventRow {
        ForwardingEventRow(
            sequence: row.int64(at: 0), receivedAt: row.int64(at: 4), eventID: row.text(at: 1), type: row.text(at: 2),
            occurredAt: row.int64(at: 3), installationID: row.text(at: 5), platform: row.text(at: 6),
            sdkVersion: row.optionalText(at: 7), appVersion: row.optionalText(at: 8),
            osVersion: row.optionalText(at: 9),
            deviceModel: row.optionalText(at: 10), userID: row.optionalText(at: 11),
            messageID: row.optionalText(at: 12), campaignID: row.optionalText(at: 13),
            dialect: row.optionalText(at: 14),
            source: row.optionalText(at: 15), appState: row.optionalText(at: 16), actionID: row.optionalText(at: 17),
            value: row.optionalText(at: 18), token: row.optionalText(at: 19), tokenType: row.optionalText(at: 20),
            environment: row.optionalText(at: 21), permission: row.optionalText(at: 22),
            attributesJSON: row.optionalText(at: 23))
    }

    private static func deadLetterRow(_ row: SQLiteStatement) -> DeadLetterRecord {
        DeadLetterRecord(
            id: row.text(at: 0), forwarderID: row.text(at: 1), appID: row.text(at: 2), firstSequence: row.int64(at: 3),
            lastSequence: row.int64(at: 4), eventCount: row.int(at: 5),
            status: row.isNull(at: 6) ? nil : row.int(at: 6), error: row.text(at: 7),
            state: DeadLetterRecord.State(rawValue: row.text(at: 8)) ?? .parked, attempts: row.int(at: 9),
            createdAt: row.int64(at: 10), updatedAt: row.int64(at: 11))
    }
}
