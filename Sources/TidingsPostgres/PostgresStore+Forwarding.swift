import TidingsModel
import TidingsStore

extension PostgresStore {
    static let forwarderColumns = """
        id, app_id, kind, settings, filter, state, event_cursor, created_at, failing_since, last_error, \
        last_success_at, backfill_since, backfill_until, backfill_cursor
        """

    static let deadLetterColumns = """
        id, forwarder_id, app_id, first_seq, last_seq, event_count, status, error, state, attempts, created_at, \
        updated_at
        """

    /// Concurrent transactions take sequence numbers in one order and commit in another: an event may
    /// appear below a number already read until its transaction ends. Forwarding waits this long (well past a
    /// batch insert's transaction, which `statement_timeout` bounds) so the cursor passes no event unseen.
    public var eventVisibilityDelay: Int64 { 5_000 }

    public func createForwarder(_ forwarder: ForwarderRecord) throws {
        try write { db in
            guard try db.scalar("SELECT 1 FROM apps WHERE id = $1", [.text(forwarder.appID)]) != nil else {
                throw StoreError(code: .notFound, message: "there is no app \(forwarder.appID)")
            }
            guard try db.scalar("SELECT 1 FROM forwarders WHERE id = $1", [.text(forwarder.id)]) == nil else {
                throw StoreError(code: .conflict, message: "there is already a forwarder \(forwarder.id)")
            }
            try db.run(
                """
                INSERT INTO forwarders (\(Self.forwarderColumns))
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
                """,
                [
                    .text(forwarder.id), .text(forwarder.appID), .text(forwarder.kind.rawValue),
                    .text(
                        try secrets.storedText(
                            ForwarderRecord.storedText(settings: forwarder.settings),
                            context: SealedSecret.forwarderContext(id: forwarder.id))),
                    .text(forwarder.filter.storedText), .text(forwarder.state.rawValue), .integer(forwarder.cursor),
                    .integer(forwarder.createdAt), Self.optional(forwarder.failingSince),
                    forwarder.lastError.map(PostgresValue.text) ?? .null, Self.optional(forwarder.lastSuccessAt),
                    Self.optional(forwarder.backfill?.since), Self.optional(forwarder.backfill?.until),
                    Self.optional(forwarder.backfill?.cursor),
                ])
        }
    }

    public func forwarder(appID: String, id: String) throws -> ForwarderRecord? {
        try read { db in
            try db.query(
                "SELECT \(Self.forwarderColumns) FROM forwarders WHERE app_id = $1 AND id = $2",
                [.text(appID), .text(id)], row: forwarderRow
            ).first
        }
    }

    public func forwarders(appID: String?) throws -> [ForwarderRecord] {
        try read { db in
            if let appID {
                return try db.query(
                    "SELECT \(Self.forwarderColumns) FROM forwarders WHERE app_id = $1 ORDER BY created_at, id",
                    [.text(appID)], row: forwarderRow)
            }
            return try db.query(
                "SELECT \(Self.forwarderColumns) FROM forwarders ORDER BY created_at, id", row: forwarderRow)
        }
    }

    @discardableResult
    public func setForwarderState(appID: String, id: String, state: ForwarderRecord.State) throws -> ForwarderRecord {
        try write { db in
            let changed = try db.run(
                "UPDATE forwarders SET state = $3 WHERE app_id = $1 AND id = $2",
                [.text(appID), .text(id), .text(state.rawValue)])
            guard changed > 0 else { throw StoreError(code: .notFound, message: "there is no forwarder \(id)") }
            return try forwarder(db, id: id)
        }
    }

    @discardableResult
    public func removeForwarder(appID: String, id: String) throws -> Bool {
        try write { db in
            try db.run(
                "DELETE FROM forwarder_dead_letters WHERE app_id = $1 AND forwarder_id = $2", [.text(appID), .text(id)])
            try db.run(
                "DELETE FROM erasure_notices WHERE app_id = $1 AND forwarder_id = $2", [.text(appID), .text(id)])
            return try db.run("DELETE FROM forwarders WHERE app_id = $1 AND id = $2", [.text(appID), .text(id)]) > 0
        }
    }

    public func acquireForwarderLease(id: String, owner: String, now: Int64, until: Int64) throws -> Bool {
        try write { db in
            try db.run(
                """
                UPDATE forwarders SET lease_owner = $2, lease_until = $4
                WHERE id = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < $3)
                """, [.text(id), .text(owner), .integer(now), .integer(until)]) > 0
        }
    }

    public func releaseForwarderLease(id: String, owner: String) throws {
        try write { db in
            try db.run(
                "UPDATE forwarders SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2",
                [.text(id), .text(owner)])
        }
    }

    @discardableResult
    public func advanceForwarderCursor(id: String, owner: String, to sequence: Int64, now: Int64) throws -> Bool {
        try write { db in
            try db.run(
                """
                UPDATE forwarders SET event_cursor = GREATEST(event_cursor, $3), last_success_at = $4, failing_since = NULL,
                    last_error = NULL
                WHERE id = $1 AND lease_owner = $2
                """, [.text(id), .text(owner), .integer(sequence), .integer(now)]) > 0
        }
    }

    public func recordForwarderFailure(id: String, at: Int64, message: String) throws {
        try write { db in
            try db.run(
                "UPDATE forwarders SET failing_since = COALESCE(failing_since, $2), last_error = $3 WHERE id = $1",
                [.text(id), .integer(at), .text(message)])
        }
    }

    @discardableResult
    public func startForwarderBackfill(appID: String, id: String, since: Int64, until: Int64) throws
        -> ForwarderRecord
    {
        try write { db in
            let changed = try db.run(
                """
                UPDATE forwarders SET backfill_since = $3, backfill_until = $4, backfill_cursor = 0
                WHERE app_id = $1 AND id = $2
                """, [.text(appID), .text(id), .integer(since), .integer(until)])
            guard changed > 0 else { throw StoreError(code: .notFound, message: "there is no forwarder \(id)") }
            return try forwarder(db, id: id)
        }
    }

    @discardableResult
    public func advanceForwarderBackfill(id: String, owner: String, to sequence: Int64?) throws -> Bool {
        try write { db in
            if let sequence {
                return try db.run(
                    "UPDATE forwarders SET backfill_cursor = $3 WHERE id = $1 AND lease_owner = $2",
                    [.text(id), .text(owner), .integer(sequence)]) > 0
            }
            return try db.run(
                """
                UPDATE forwarders SET backfill_since = NULL, backfill_until = NULL, backfill_cursor = NULL
                WHERE id = $1 AND lease_owner = $2
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
        return try write { db in
            guard
                try db.scalar(
                    "SELECT 1 FROM forwarders WHERE id = $1 AND lease_owner = $2",
                    [.text(forwarderID), .text(owner)]) != nil
            else { return false }
            for letter in letters {
                let values: [PostgresValue] = [
                    .text(letter.id), .text(letter.forwarderID), .text(letter.appID), .integer(letter.firstSequence),
                    .integer(letter.lastSequence), .integer(Int64(letter.eventCount)),
                    Self.optional(letter.status.map(Int64.init)), .text(letter.error), .text(letter.state.rawValue),
                    .integer(Int64(letter.attempts)), .integer(letter.createdAt), .integer(letter.updatedAt),
                ]
                try db.run(
                    "INSERT INTO forwarder_dead_letters (\(Self.deadLetterColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                    values)
            }
            if let sequence {
                try db.run(
                    "UPDATE forwarders SET event_cursor = GREATEST(event_cursor, $2) WHERE id = $1",
                    [.text(forwarderID), .integer(sequence)])
            }
            return true
        }
    }

    public func deadLetters(appID: String, forwarderID: String) throws -> [DeadLetterRecord] {
        try read { db in
            try db.query(
                """
                SELECT \(Self.deadLetterColumns) FROM forwarder_dead_letters
                WHERE app_id = $1 AND forwarder_id = $2 ORDER BY created_at, first_seq
                """, [.text(appID), .text(forwarderID)], row: Self.deadLetterRow)
        }
    }

    public func requestDeadLetterReplay(appID: String, forwarderID: String, ids: [String]?, now: Int64) throws -> Int {
        try write { db in
            let bindings: [PostgresValue] = [.text(appID), .text(forwarderID), .integer(now)]
            let update = """
                UPDATE forwarder_dead_letters SET state = 'replaying', updated_at = $3
                WHERE app_id = $1 AND forwarder_id = $2 AND state = 'parked'
                """
            guard let ids else { return try db.run(update, bindings) }
            var changed = 0
            for id in ids { changed += try db.run(update + " AND id = $4", bindings + [.text(id)]) }
            return changed
        }
    }

    public func finishDeadLetterReplay(id: String, delivered: Bool, status: Int?, error: String, now: Int64) throws {
        try write { db in
            if delivered {
                try db.run("DELETE FROM forwarder_dead_letters WHERE id = $1", [.text(id)])
            } else {
                try db.run(
                    """
                    UPDATE forwarder_dead_letters SET state = 'parked', status = $2, error = $3, attempts = attempts + 1,
                        updated_at = $4
                    WHERE id = $1
                    """, [.text(id), Self.optional(status.map(Int64.init)), .text(error), .integer(now)])
            }
        }
    }

    public func purgeDeadLetters(appID: String, forwarderID: String, ids: [String]?) throws -> Int {
        try write { db in
            let delete = "DELETE FROM forwarder_dead_letters WHERE app_id = $1 AND forwarder_id = $2"
            let bindings: [PostgresValue] = [.text(appID), .text(forwarderID)]
            guard let ids else { return try db.run(delete, bindings) }
            var removed = 0
            for id in ids { removed += try db.run(delete + " AND id = $3", bindings + [.text(id)]) }
            return removed
        }
    }

    public func forwardingEvents(appID: String, query: ForwardingEventQuery) throws -> ForwardingEventPage {
        let limit = max(1, query.limit)
        var sql = "SELECT \(Self.eventColumns) FROM events WHERE app_id = $1 AND seq > $2"
        var bindings: [PostgresValue] = [.text(appID), .integer(query.afterSequence)]
        func add(_ condition: String, _ value: Int64?) {
            guard let value else { return }
            bindings.append(.integer(value))
            sql += " AND \(condition) $\(bindings.count)"
        }
        add("seq <=", query.throughSequence)
        add("occurred_at >=", query.occurredSince)
        add("occurred_at <", query.occurredUntil)
        bindings.append(.integer(Int64(limit)))
        sql += " ORDER BY seq LIMIT $\(bindings.count)"
        let rows = try read { db in try db.query(sql, bindings, row: Self.forwardingRow) }
        // Sequence numbers are taken before commit, so a gap below the newest row may still fill: the read
        // vouches only for the rows it returned (`events_app_seq` keeps the walk to this app's events).
        return ForwardingEventPage(
            rows: rows, scannedThrough: rows.last?.sequence ?? query.afterSequence, reachedEnd: rows.count < limit)
    }

    public func latestEventSequence(appID: String) throws -> Int64 {
        try read { db in
            try db.scalar("SELECT MAX(seq) FROM events WHERE app_id = $1", [.text(appID)]) ?? 0
        }
    }

    public func eventBacklog(appID: String, afterSequence: Int64) throws -> (count: Int, oldestReceivedAt: Int64?) {
        try read { db in
            try db.query(
                "SELECT COUNT(*), MIN(received_at) FROM events WHERE app_id = $1 AND seq > $2",
                [.text(appID), .integer(afterSequence)]
            ) { row in (row.int(0), row.isNull(1) ? nil : row.int64(1)) }.first ?? (0, nil)
        }
    }

    // MARK: Rows

    /// A row of `eventColumns` as it is stored, for forwarding.
    static func forwardingRow(_ row: PostgresRow) -> ForwardingEventRow {
        ForwardingEventRow(
            sequence: row.int64(0), receivedAt: row.int64(4), eventID: row.text(1), type: row.text(2),
            occurredAt: row.int64(3), installationID: row.text(5), platform: row.text(6),
            sdkVersion: row.optionalText(7), appVersion: row.optionalText(8), osVersion: row.optionalText(9),
            deviceModel: row.optionalText(10), userID: row.optionalText(11), messageID: row.optionalText(12),
            campaignID: row.optionalText(13), dialect: row.optionalText(14), source: row.optionalText(15),
            appState: row.optionalText(16), actionID: row.optionalText(17), value: row.optionalText(18),
            token: row.optionalText(19), tokenType: row.optionalText(20), environment: row.optionalText(21),
            permission: row.optionalText(22), attributesJSON: row.optionalText(23))
    }

    private static func optional(_ value: Int64?) -> PostgresValue { value.map(PostgresValue.integer) ?? .null }

    private func forwarder(_ db: PostgresConnection, id: String) throws -> ForwarderRecord {
        guard
            let record = try db.query(
                "SELECT \(Self.forwarderColumns) FROM forwarders WHERE id = $1", [.text(id)], row: forwarderRow
            ).first
        else { throw StoreError(code: .notFound, message: "there is no forwarder \(id)") }
        return record
    }

    private func forwarderRow(_ row: PostgresRow) throws -> ForwarderRecord {
        func optional(_ column: Int32) -> Int64? { row.isNull(column) ? nil : row.int64(column) }
        var backfill: ForwarderRecord.Backfill?
        if let since = optional(11), let until = optional(12) {
            backfill = ForwarderRecord.Backfill(since: since, until: until, cursor: optional(13) ?? 0)
        }
        return ForwarderRecord(
            id: row.text(0), appID: row.text(1),
            kind: ForwarderRecord.Kind(rawValue: row.text(2)) ?? .webhook,
            settings: ForwarderRecord.settings(
                storedText: try secrets.plaintextText(
                    row.text(3), context: SealedSecret.forwarderContext(id: row.text(0)))),
            filter: ForwarderRecord.Filter(storedText: row.text(4)),
            state: ForwarderRecord.State(rawValue: row.text(5)) ?? .paused, cursor: row.int64(6),
            createdAt: row.int64(7), failingSince: optional(8), lastError: row.optionalText(9),
            lastSuccessAt: optional(10), backfill: backfill)
    }

    private static func deadLetterRow(_ row: PostgresRow) -> DeadLetterRecord {
        DeadLetterRecord(
            id: row.text(0), forwarderID: row.text(1), appID: row.text(2), firstSequence: row.int64(3),
            lastSequence: row.int64(4), eventCount: row.int(5),
            status: row.isNull(6) ? nil : row.int(6), error: row.text(7),
            state: DeadLetterRecord.State(rawValue: row.text(8)) ?? .parked, attempts: row.int(9),
            createdAt: row.int64(10), updatedAt: row.int64(11))
    }
}
