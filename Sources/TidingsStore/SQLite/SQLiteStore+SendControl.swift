import TidingsModel
import TidingsSQLite

extension SQLiteStore {
    /// Each message in flight with due rows, and how many (up to the limit ?2: nobody gets more), oldest first;
    /// only transactional ones when ?3 is 1. Read through `messages_in_flight`, so a claim's cost follows the
    /// messages sending now, not every message kept.
    static let claimableMessagesSQL = """
        SELECT m.id, m.message_type, m.rate_per_second, s.rate_per_second, (
            SELECT COUNT(*) FROM (
                SELECT 1 FROM message_deliveries d
                WHERE d.message_id = m.id AND d.state = 'pending' AND d.not_before <= ?1 LIMIT ?2))
        FROM messages m LEFT JOIN app_send_settings s ON s.app_id = m.app_id
        WHERE m.state IN ('queued', 'resolving', 'sending') AND (?3 = 0 OR m.message_type = 'transactional')
        ORDER BY m.created_at, m.id
        """

    public func claimDeliveries(worker: String, claim: DeliveryClaim, now: Int64, leaseUntil: Int64) throws
        -> [MessageDelivery]
    {
        let limit = Int64(max(0, claim.limit))
        guard limit > 0 else { return [] }
        let columns = Self.deliveryColumns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: ", ")
        return try database.write { db in
            // A worker that died (or stalled past its lease) gives its rows back; rows it had already
            // recorded as sent are not claimed, so they are never sent again.
            try db.run(
                """
                UPDATE message_deliveries SET state = 'pending', claimed_by = NULL, claim_expires_at = NULL,
                    claim_epoch = claim_epoch + 1
                WHERE state = 'claimed' AND claim_expires_at <= ?1
                """, [.integer(now)])
            let due = try db.query(
                Self.claimableMessagesSQL, [.integer(now), .integer(limit), .integer(claim.onlyTransactional ? 1 : 0)]
            ) { row in
                let transactional = row.text(at: 1) == "transactional"
                let available = claim.available(
                    due: Int(row.int64(at: 4)), transactional: transactional,
                    messageRate: row.isNull(at: 2) ? nil : Int(row.int64(at: 2)),
                    appRate: row.isNull(at: 3) ? nil : Int(row.int64(at: 3)))
                return (id: row.text(at: 0), transactional: transactional, available: available)
            }.filter { $0.available > 0 && !claim.excludedMessageIDs.contains($0.id) }
            var claimed: [MessageDelivery] = []
            for (messageID, count) in claim.allocate(due) {
                let rows = try db.query(
                    """
                    UPDATE message_deliveries SET state = 'claimed', claimed_by = ?3, claim_expires_at = ?4,
                        claim_epoch = claim_epoch + 1
                    WHERE message_id = ?1 AND installation_id IN (
                        SELECT installation_id FROM message_deliveries
                        WHERE message_id = ?1 AND state = 'pending' AND not_before <= ?5
                        ORDER BY not_before, installation_id LIMIT ?2)
                    RETURNING \(columns), claim_epoch
                    """,
                    [.text(messageID), .integer(Int64(count)), .text(worker), .integer(leaseUntil), .integer(now)]
                ) { row in
                    var delivery = Self.deliveryRow(row)
                    delivery.claimEpoch = row.int64(at: Self.deliveryColumnCount)
                    return delivery
                }
                try db.run(
                    "UPDATE messages SET state = 'sending' WHERE id = ?1 AND state = 'queued'", [.text(messageID)])
                // RETURNING has no order: give them back in the order they were due.
                claimed += rows.sorted { ($0.notBefore, $0.installationID) < ($1.notBefore, $1.installationID) }
            }
            return claimed
        }
    }

    @discardableResult
    public func completeDeliveries(_ completions: [DeliveryCompletion], worker: String, now: Int64) throws -> [Bool] {
        guard !completions.isEmpty else { return [] }
        return try database.write { db in
            try completions.map { completion in
                let (state, reason, notBefore, extraAttempt) = completion.columns
                let keys: [SQLiteValue] = [.text(completion.messageID), .text(completion.installationID)]
                // A row cancelled under its claim takes the answer of a push already handed to the provider
                // (`sent` or `failed`) and stays `cancelled` otherwise.
                let changed = try db.run(
                    """
                    UPDATE message_deliveries SET
                        state = CASE WHEN state = 'claimed' OR ?4 IN ('sent', 'failed') THEN ?4 ELSE state END,
                        reason = CASE WHEN state = 'claimed' OR ?4 IN ('sent', 'failed') THEN ?5 ELSE reason END,
                        attempts = attempts + ?6, not_before = COALESCE(?7, not_before), claimed_by = NULL,
                        claim_expires_at = NULL, updated_at = ?8
                    WHERE message_id = ?1 AND installation_id = ?2 AND state IN ('claimed', 'cancelled')
                        AND claimed_by = ?3 AND (?9 IS NULL OR claim_epoch = ?9)
                    """,
                    keys + [
                        .text(worker), .text(state), SQLiteValue(reason), .integer(extraAttempt),
                        SQLiteValue(notBefore), .integer(now), SQLiteValue(completion.claimEpoch),
                    ])
                guard changed > 0 else { return false }
                if state != "sent" {
                    // Not sent: the frequency-cap slot it may hold goes back (a retry takes one again).
                    try db.run(
                        "DELETE FROM frequency_slots WHERE app_id = ?3 AND installation_id = ?2 AND message_id = ?1",
                        keys + [.text(completion.appID)])
                }
                if state == "pending" {
                    // A retry of a message cancelled while the push was in flight will never be claimed.
                    try db.run(
                        """
                        UPDATE message_deliveries SET state = 'cancelled', reason = NULL
                        WHERE message_id = ?1 AND installation_id = ?2 AND state = 'pending'
                            AND EXISTS (SELECT 1 FROM messages WHERE id = ?1 AND state = 'cancelled')
                        """, keys)
                }
                return true
            }
        }
    }

    /// One read transaction, a primary-key lookup per delivery; the heartbeat's age on `now` (one host, one clock).
    public func checkClaims(_ deliveries: [MessageDelivery], worker: String, now: Int64) throws -> ClaimCheck {
        try database.read { db in
            let held = try deliveries.map { delivery in
                try db.scalar(
                    """
                    SELECT 1 FROM message_deliveries
                    WHERE message_id = ?1 AND installation_id = ?2 AND state = 'claimed' AND claimed_by = ?3
                        AND claim_epoch = ?4
                    """,
                    [
                        .text(delivery.messageID), .text(delivery.installationID), .text(worker),
                        .integer(delivery.claimEpoch),
                    ]) != nil
            }
            let heartbeat = try db.scalar(
                """
                SELECT max(heartbeat_at) FROM instances
                WHERE id = ?1 OR substr(?1, 1, length(id) + 1) = id || '/'
                """, [.text(worker)])
            return ClaimCheck(held: held, heartbeatAge: heartbeat?.integerValue.map { now - $0 })
        }
    }

    public func sendSettings(appID: String) throws -> AppSendSettings {
        try database.read { db in
            guard try db.scalar("SELECT 1 FROM apps WHERE id = ?1", [.text(appID)]) != nil else {
                throw StoreError(code: .notFound, message: "no app with id \(appID)")
            }
            return try db.query(
                """
                SELECT rate_per_second, frequency_cap_count, frequency_cap_window, default_ttl
                FROM app_send_settings WHERE app_id = ?1
                """, [.text(appID)]
            ) { row in
                AppSendSettings(
                    ratePerSecond: row.isNull(at: 0) ? nil : Int(row.int64(at: 0)),
                    frequencyCap: row.isNull(at: 1) || row.isNull(at: 2)
                        ? nil : FrequencyCap(count: Int(row.int64(at: 1)), windowSeconds: row.int64(at: 2)),
                    defaultTTLSeconds: row.isNull(at: 3) ? nil : row.int64(at: 3))
            }.first ?? AppSendSettings()
        }
    }

    public func updateSendSettings(appID: String, _ settings: AppSendSettings) throws {
        try database.write { db in
            guard try db.scalar("SELECT 1 FROM apps WHERE id = ?1", [.text(appID)]) != nil else {
                throw StoreError(code: .notFound, message: "no app with id \(appID)")
            }
            try db.run(
                """
                INSERT INTO app_send_settings (app_id, rate_per_second, frequency_cap_count, frequency_cap_window,
                    default_ttl)
                VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (app_id) DO UPDATE SET rate_per_second = excluded.rate_per_second,
                    frequency_cap_count = excluded.frequency_cap_count,
                    frequency_cap_window = excluded.frequency_cap_window, default_ttl = excluded.default_ttl
                """,
                [
                    .text(appID), SQLiteValue(settings.ratePerSecond.map(Int64.init)),
                    SQLiteValue(settings.frequencyCap.map { Int64($0.count) }),
                    SQLiteValue(settings.frequencyCap?.windowSeconds), SQLiteValue(settings.defaultTTLSeconds),
                ])
        }
    }

    public func reserveFrequencySlots(
        appID: String, messageID: String, installationIDs: [String], cap: FrequencyCap, now: Int64
    ) throws -> Set<String> {
        guard !installationIDs.isEmpty else { return [] }
        // One writer at a time: the count and the insert cannot be separated by another sender's.
        return try database.write { db in
            var granted = Set<String>()
            for installationID in Set(installationIDs).sorted() {
                let (held, others) = try Self.frequencySlots(
                    db, appID: appID, installationID: installationID, messageID: messageID,
                    since: now - cap.windowSeconds * 1000)
                if held {
                    granted.insert(installationID)
                } else if others < cap.count {
                    try db.run(
                        """
                        INSERT INTO frequency_slots (app_id, installation_id, message_id, reserved_at)
                        VALUES (?1, ?2, ?3, ?4)
                        """, [.text(appID), .text(installationID), .text(messageID), .integer(now)])
                    granted.insert(installationID)
                }
            }
            return granted
        }
    }

    /// Whether the installation already holds a slot for `messageID`, and how many slots other messages took
    /// after `since`; slots older than the window are removed on the way.
    private static func frequencySlots(
        _ db: SQLiteConnection, appID: String, installationID: String, messageID: String, since: Int64
    ) throws -> (held: Bool, others: Int) {
        let keys: [SQLiteValue] = [.text(appID), .text(installationID)]
        try db.run(
            "DELETE FROM frequency_slots WHERE app_id = ?1 AND installation_id = ?2 AND reserved_at <= ?3",
            keys + [.integer(since)])
        let rows = try db.query(
            "SELECT message_id FROM frequency_slots WHERE app_id = ?1 AND installation_id = ?2", keys
        ) { $0.text(at: 0) }
        let held = rows.contains(messageID)
        return (held, rows.count - (held ? 1 : 0))
    }

    public func frequencySlotCounts(appID: String, installationIDs: [String], since: Int64) throws -> [String: Int] {
        guard !installationIDs.isEmpty else { return [:] }
        return try reader.read { db in
            var counts: [String: Int] = [:]
            // Bounded statements: SQLite caps the number of parameters of one.
            for start in stride(from: 0, to: installationIDs.count, by: 500) {
                let ids = installationIDs[start..<min(start + 500, installationIDs.count)]
                let placeholders = (3...ids.count + 2).map { "?\($0)" }.joined(separator: ", ")
                let rows = try db.query(
                    """
                    SELECT installation_id, COUNT(*) FROM frequency_slots
                    WHERE app_id = ?1 AND reserved_at > ?2 AND installation_id IN (\(placeholders))
                    GROUP BY installation_id
                    """, [.text(appID), .integer(since)] + ids.map { .text($0) }
                ) { ($0.text(at: 0), Int($0.int64(at: 1))) }
                for (id, count) in rows { counts[id] = count }
            }
            return counts
        }
    }
}
