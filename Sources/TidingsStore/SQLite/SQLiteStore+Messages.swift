import TidingsModel
import TidingsSQLite

extension SQLiteStore {
    static let messageColumns = """
        id, app_id, state, kind, message_type, campaign_id, topic, payload, priority, expires_at, collapse_id, \
        created_at, finished_at, night_policy, plan, resolve_at, payload_variants, rate_per_second
        """
    static let deliveryColumns = """
        message_id, installation_id, app_id, token, token_type, environment, state, reason, attempts, not_before, \
        target_user_id, variant, language, due_at, expires_at, split_user_id
        """
    /// How many columns ``messageColumns`` names: the index of a column selected after them.
    static let messageColumnCount = Int32(messageColumns.split(separator: ",").count)
    /// How many columns ``deliveryColumns`` names: the index of a column selected after them.
    static let deliveryColumnCount = Int32(deliveryColumns.split(separator: ",").count)

    public func createMessage(_ message: MessageRecord, deliveries: [MessageDelivery]) throws {
        try database.write { db in
            if try db.scalar("SELECT 1 FROM messages WHERE id = ?1", [.text(message.id)]) != nil {
                throw StoreError(code: .conflict, message: "a message with id \(message.id) already exists")
            }
            try db.run(
                """
                INSERT INTO messages (\(Self.messageColumns))
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
                """, Self.messageValues(message))
            try Self.insertDeliveries(db, deliveries, message: message.id, app: message.appID, now: message.createdAt)
        }
    }

    /// Inserts deliveries; a repeated installation id is one target: the unique key keeps the first. With
    /// `handover`, the claimed ones are written claimed by its worker (``ClaimHandover``).
    /// - Returns: the installation ids written claimed.
    @discardableResult
    static func insertDeliveries(
        _ db: SQLiteConnection, _ deliveries: [MessageDelivery], message messageID: String, app appID: String,
        now: Int64, handover: ClaimHandover? = nil
    ) throws -> Set<String> {
        var claimed = Set<String>()
        for delivery in deliveries {
            let handed = handover.flatMap { delivery.state == .claimed ? $0 : nil }
            let written = try db.run(
                """
                INSERT INTO message_deliveries (\(Self.deliveryColumns), updated_at, claimed_by, claim_expires_at,
                    claim_epoch)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)
                ON CONFLICT (message_id, installation_id) DO NOTHING
                """,
                [
                    .text(messageID), .text(delivery.installationID), .text(appID),
                    .text(delivery.token), .text(delivery.tokenType.rawValue), .text(delivery.environment),
                    .text(handed == nil && delivery.state == .claimed ? "pending" : delivery.state.rawValue),
                    SQLiteValue(delivery.reason), .integer(Int64(delivery.attempts)), .integer(delivery.notBefore),
                    SQLiteValue(delivery.targetUserID), SQLiteValue(delivery.variant), SQLiteValue(delivery.language),
                    SQLiteValue(delivery.dueAt), SQLiteValue(delivery.expiresAt), SQLiteValue(delivery.splitUserID),
                    .integer(now), SQLiteValue(handed?.worker), SQLiteValue(handed?.leaseUntil),
                    .integer(handed == nil ? 0 : ClaimHandover.epoch),
                ])
            if written > 0, handed != nil { claimed.insert(delivery.installationID) }
        }
        return claimed
    }

    /// The values of ``messageColumns`` for `message`, in order.
    static func messageValues(_ message: MessageRecord) -> [SQLiteValue] {
        [
            .text(message.id), .text(message.appID), .text(message.state.rawValue),
            .text(message.kind.rawValue), .text(message.messageType.rawValue), SQLiteValue(message.campaignID),
            .text(message.topic), .blob(message.payload), .integer(Int64(message.priority)),
            SQLiteValue(message.expiresAt), SQLiteValue(message.collapseID), .integer(message.createdAt),
            SQLiteValue(message.finishedAt), .text(message.nightPolicy.rawValue), SQLiteValue(message.plan),
            SQLiteValue(message.resolveAt), SQLiteValue(message.encodedPayloadVariants),
            SQLiteValue(message.ratePerSecond.map(Int64.init)),
        ]
    }

    public func message(appID: String, messageID: String) throws -> MessageRecord? {
        try database.read { db in
            try db.query(
                "SELECT \(Self.messageColumns) FROM messages WHERE id = ?1 AND app_id = ?2",
                [.text(messageID), .text(appID)], row: Self.messageRow
            ).first
        }
    }

    public func lastMessageCreated(appID: String, kind: MessageKind) throws -> Int64? {
        try database.read { db in
            try db.scalar(
                "SELECT MAX(created_at) FROM messages WHERE app_id = ?1 AND kind = ?2",
                [.text(appID), .text(kind.rawValue)])?.integerValue
        }
    }

    public func messageCounts(messageID: String) throws -> MessageCounts {
        try deliveryCounts(where: "message_id = ?1", [.text(messageID)])
    }

    public func campaignCounts(appID: String, campaignID: String) throws -> MessageCounts {
        try deliveryCounts(
            where: "message_id IN (SELECT id FROM messages WHERE app_id = ?1 AND campaign_id = ?2)",
            [.text(appID), .text(campaignID)])
    }

    private func deliveryCounts(where condition: String, _ arguments: [SQLiteValue]) throws -> MessageCounts {
        try database.read { db in
            var counts = MessageCounts()
            let rows = try db.query(
                """
                SELECT state, reason, COUNT(*) FROM message_deliveries WHERE \(condition)
                GROUP BY state, reason
                """, arguments
            ) { row in (row.text(at: 0), row.optionalText(at: 1), Int(row.int64(at: 2))) }
            for (state, reason, count) in rows { counts.add(state: state, reason: reason, count: count) }
            return counts
        }
    }

    /// Every delivery not yet handed to the provider becomes `cancelled`: the waiting ones, and the claimed
    /// ones, whose claim's worker and epoch stay on the row so that a push already in flight still records its
    /// answer; the worker's next check of its claims finds them no longer claimed and drops them unsent.
    public func cancelMessage(appID: String, messageID: String, now: Int64) throws -> MessageRecord? {
        let (message, cancelled) = try database.write { db in
            let changed = try db.run(
                """
                UPDATE messages SET state = 'cancelled', finished_at = ?3
                WHERE id = ?1 AND app_id = ?2 AND state IN ('queued', 'scheduled', 'resolving', 'sending')
                """, [.text(messageID), .text(appID), .integer(now)])
            if changed > 0 {
                try db.run(
                    """
                    UPDATE message_deliveries SET state = 'cancelled', reason = NULL, updated_at = ?2
                    WHERE message_id = ?1 AND state IN ('pending', 'claimed')
                    """, [.text(messageID), .integer(now)])
                // A split test cancelled before its decision sends no winner.
                try db.run(
                    "UPDATE split_decisions SET state = 'cancelled' WHERE message_id = ?1 AND state = 'testing'",
                    [.text(messageID)])
            }
            let message = try db.query(
                "SELECT \(Self.messageColumns) FROM messages WHERE id = ?1 AND app_id = ?2",
                [.text(messageID), .text(appID)], row: Self.messageRow
            ).first
            return (message, changed > 0)
        }
        if cancelled { changes.publish(.messageCancelled(id: messageID)) }
        return message
    }

    public func releaseAllClaims(now: Int64) throws -> Int {
        try database.write { db in
            // Resolution held by a process that stopped resumes from its cursor.
            try db.run("UPDATE messages SET resolver = NULL, resolver_expires_at = NULL WHERE resolver IS NOT NULL")
            return try db.run(
                """
                UPDATE message_deliveries SET state = 'pending', claimed_by = NULL, claim_expires_at = NULL,
                    claim_epoch = claim_epoch + 1,
                    updated_at = ?1
                WHERE state = 'claimed'
                """, [.integer(now)])
        }
    }

    @discardableResult
    public func completeDelivery(
        messageID: String, installationID: String, worker: String, result: DeliveryResult, now: Int64
    ) throws -> Bool {
        let (state, reason, notBefore, extraAttempt): (String, String?, Int64?, Int64) =
            switch result {
            case .sent: ("sent", nil, nil, 1)
            case .failed(let reason): ("failed", reason, nil, 1)
            case .skipped(let reason): ("skipped", reason, nil, 0)
            case .retry(let reason, let notBefore): ("pending", reason, notBefore, 1)
            case .deferred(let reason, let notBefore): ("pending", reason, notBefore, 0)
            }
        return try database.write { db in
            let changed = try db.run(
                """
                UPDATE message_deliveries SET
                    state = CASE WHEN state = 'claimed' OR ?4 IN ('sent', 'failed') THEN ?4 ELSE state END,
                    reason = CASE WHEN state = 'claimed' OR ?4 IN ('sent', 'failed') THEN ?5 ELSE reason END,
                    attempts = attempts + ?6, not_before = COALESCE(?7, not_before), claimed_by = NULL,
                    claim_expires_at = NULL, updated_at = ?8
                WHERE message_id = ?1 AND installation_id = ?2 AND state IN ('claimed', 'cancelled')
                    AND claimed_by = ?3
                """,
                [
                    .text(messageID), .text(installationID), .text(worker), .text(state), SQLiteValue(reason),
                    .integer(extraAttempt), SQLiteValue(notBefore), .integer(now),
                ])
            if changed > 0, state == "pending" {
                // A retry of a message cancelled while the push was in flight will never be claimed.
                try db.run(
                    """
                    UPDATE message_deliveries SET state = 'cancelled', reason = NULL
                    WHERE message_id = ?1 AND installation_id = ?2 AND state = 'pending'
                        AND EXISTS (SELECT 1 FROM messages WHERE id = ?1 AND state = 'cancelled')
                    """, [.text(messageID), .text(installationID)])
            }
            return changed > 0
        }
    }

    public func finishMessages(now: Int64) throws -> [String] {
        try database.write { db in
            let finished = try db.query(
                """
                SELECT m.id FROM messages m WHERE m.state IN ('queued', 'sending') AND NOT EXISTS (
                    SELECT 1 FROM message_deliveries d
                    WHERE d.message_id = m.id AND d.state IN ('pending', 'claimed'))
                """
            ) { $0.text(at: 0) }
            for id in finished {
                try db.run(
                    "UPDATE messages SET state = 'done', finished_at = ?2 WHERE id = ?1", [.text(id), .integer(now)])
            }
            return finished
        }
    }

    public func finishMessages(ids: [String], now: Int64) throws -> [String] {
        guard !ids.isEmpty else { return [] }
        return try database.write { db in
            let claimed = Set(
                try db.query(
                    """
                    SELECT DISTINCT message_id FROM message_deliveries INDEXED BY message_deliveries_claimed
                    WHERE state = 'claimed'
                    """
                ) { $0.text(at: 0) })
            return try Set(ids).subtracting(claimed).sorted().filter { id in
                try db.run(
                    """
                    UPDATE messages SET state = 'done', finished_at = ?2
                    WHERE id = ?1 AND state IN ('queued', 'sending') AND NOT EXISTS (
                        SELECT 1 FROM message_deliveries INDEXED BY message_deliveries_due_by_message
                        WHERE message_id = ?1 AND state = 'pending')
                    """, [.text(id), .integer(now)]) > 0
            }
        }
    }

    @discardableResult
    public func deactivateToken(
        _ kind: TokenType, token: String, appID: String, installationID: String, invalidSince: Int64?, now: Int64
    ) throws -> Bool {
        try database.write { db in
            let changed = try db.run(
                """
                UPDATE installations
                SET \(kind.rawValue)_token = NULL, \(kind.rawValue)_token_registered_at = NULL, updated_at = ?4
                WHERE app_id = ?1 AND installation_id = ?2 AND \(kind.rawValue)_token = ?3
                    AND (?5 IS NULL OR \(kind.rawValue)_token_registered_at IS NULL
                        OR \(kind.rawValue)_token_registered_at < ?5)
                """,
                [.text(appID), .text(installationID), .text(token), .integer(now), SQLiteValue(invalidSince)])
            return changed > 0
        }
    }

    @discardableResult
    public func markTokenMismatch(token: String, appID: String, installationID: String, now: Int64) throws -> Bool {
        try database.write { db in
            // The mark names the token, so a later registration of another token makes it moot by itself.
            let changed = try db.run(
                """
                UPDATE installations SET token_mismatch = ?3, token_mismatch_at = ?4
                WHERE app_id = ?1 AND installation_id = ?2
                    AND (apns_token = ?3 OR voip_token = ?3 OR fcm_token = ?3)
                """, [.text(appID), .text(installationID), .text(token), .integer(now)])
            return changed > 0
        }
    }

    public func tokenMismatch(appID: String, installationID: String) throws -> (token: String, at: Int64)? {
        try reader.read { db in
            try db.query(
                """
                SELECT token_mismatch, token_mismatch_at FROM installations
                WHERE app_id = ?1 AND installation_id = ?2 AND token_mismatch IS NOT NULL
                """, [.text(appID), .text(installationID)]
            ) { row in (token: row.text(at: 0), at: row.int64(at: 1)) }.first
        }
    }

    static func messageRow(_ row: SQLiteStatement) -> MessageRecord {
        MessageRecord(
            id: row.text(at: 0), appID: row.text(at: 1),
            state: MessageRecord.State(rawValue: row.text(at: 2)) ?? .queued,
            kind: MessageKind(rawValue: row.text(at: 3)) ?? .alert,
            messageType: MessageRecord.MessageType(rawValue: row.text(at: 4)) ?? .notification,
            campaignID: row.optionalText(at: 5), topic: row.text(at: 6), payload: row.blob(at: 7),
            priority: Int(row.int64(at: 8)), expiresAt: row.isNull(at: 9) ? nil : row.int64(at: 9),
            collapseID: row.optionalText(at: 10),
            nightPolicy: MessageRecord.NightPolicy(rawValue: row.text(at: 13)) ?? .skip, createdAt: row.int64(at: 11),
            finishedAt: row.isNull(at: 12) ? nil : row.int64(at: 12), plan: row.optionalText(at: 14),
            resolveAt: row.isNull(at: 15) ? nil : row.int64(at: 15),
            payloadVariants: MessageRecord.decodePayloadVariants(row.optionalText(at: 16)),
            ratePerSecond: row.isNull(at: 17) ? nil : Int(row.int64(at: 17)))
    }

    static func deliveryRow(_ row: SQLiteStatement) -> MessageDelivery {
        var delivery = MessageDelivery(
            messageID: row.text(at: 0), appID: row.text(at: 2), installationID: row.text(at: 1),
            token: row.text(at: 3), tokenType: TokenType(rawValue: row.text(at: 4)) ?? .apns,
            environment: row.text(at: 5), state: MessageDelivery.State(rawValue: row.text(at: 6)) ?? .pending,
            reason: row.optionalText(at: 7), attempts: Int(row.int64(at: 8)), notBefore: row.int64(at: 9),
            targetUserID: row.optionalText(at: 10), variant: row.optionalText(at: 11),
            language: row.optionalText(at: 12), dueAt: row.isNull(at: 13) ? nil : row.int64(at: 13),
            expiresAt: row.isNull(at: 14) ? nil : row.int64(at: 14))
        delivery.splitUserID = row.optionalText(at: 15)
        return delivery
    }
}
