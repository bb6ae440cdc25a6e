import TidingsModel
import TidingsStore

extension PostgresStore {
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
    /// A batch of deliveries in one statement, bound as one array per column: one executor start-up per batch
    /// instead of one per row, which was most of PostgreSQL's CPU per delivery (issue #39). `ORDER BY ord`
    /// keeps the batch's order, so of a repeated installation id the first is the one kept.
    private static let insertDeliveriesSQL = """
        INSERT INTO message_deliveries (\(deliveryColumns), updated_at, claimed_by, claim_expires_at, claim_epoch)
        SELECT $1, installation_id, $2, token, token_type, environment,
            CASE WHEN state = 'claimed' AND $18::text IS NULL THEN 'pending' ELSE state END, reason, attempts,
            not_before, target_user_id, variant, language, due_at, expires_at, split_user_id, $3,
            CASE WHEN state = 'claimed' THEN $18::text END, CASE WHEN state = 'claimed' THEN $19::bigint END,
            CASE WHEN state = 'claimed' AND $18::text IS NOT NULL THEN $20::bigint ELSE 0 END
        FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[],
                $11::bigint[], $12::text[], $13::text[], $14::text[], $15::bigint[], $16::bigint[], $17::text[])
            WITH ORDINALITY AS d(installation_id, token, token_type, environment, state, reason, attempts, not_before,
                target_user_id, variant, language, due_at, expires_at, split_user_id, ord)
        ORDER BY ord
        ON CONFLICT (message_id, installation_id) DO NOTHING
        RETURNING installation_id, state = 'claimed'
        """
    /// Rows bound per statement of ``insertDeliveriesSQL``: a resolution chunk in one, and a message created
    /// with a long list of installations in a few, each array's text a few hundred kilobytes at most.
    static let deliveriesPerStatement = 5_000

    /// Stores the message, then its deliveries (``insertDeliveries(_:_:message:app:now:)``), in one transaction.
    public func createMessage(_ message: MessageRecord, deliveries: [MessageDelivery]) throws {
        do {
            try write { db in
                if try db.scalar("SELECT 1 FROM messages WHERE id = $1", [.text(message.id)]) != nil {
                    throw StoreError(code: .conflict, message: "a message with id \(message.id) already exists")
                }
                try db.run(
                    """
                    INSERT INTO messages (\(Self.messageColumns))
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
                    """, Self.messageValues(message))
                try Self.insertDeliveries(
                    db, deliveries, message: message.id, app: message.appID, now: message.createdAt)
            }
        } catch let error as PostgresError where error.isUniqueViolation {
            throw StoreError(code: .conflict, message: "a message with id \(message.id) already exists")
        }
    }

    /// Inserts deliveries, a statement per ``deliveriesPerStatement``; a repeated installation id is one target:
    /// the primary key keeps the first. With `handover`, the claimed ones are written claimed by its worker
    /// (``ClaimHandover``).
    /// - Returns: the installation ids written claimed.
    @discardableResult
    static func insertDeliveries(
        _ db: PostgresConnection, _ deliveries: [MessageDelivery], message messageID: String, app appID: String,
        now: Int64, handover: ClaimHandover? = nil
    ) throws -> Set<String> {
        var claimed = Set<String>()
        for start in stride(from: 0, to: deliveries.count, by: deliveriesPerStatement) {
            let batch = deliveries[start..<min(start + deliveriesPerStatement, deliveries.count)]
            func column(_ value: (MessageDelivery) -> PostgresValue) -> PostgresValue { .array(batch.map(value)) }
            let written = try db.query(
                insertDeliveriesSQL,
                [
                    .text(messageID), .text(appID), .integer(now), column { .text($0.installationID) },
                    column { .text($0.token) }, column { .text($0.tokenType.rawValue) },
                    column { .text($0.environment) }, column { .text($0.state.rawValue) },
                    column { PostgresValue($0.reason) }, column { .integer(Int64($0.attempts)) },
                    column { .integer($0.notBefore) }, column { PostgresValue($0.targetUserID) },
                    column { PostgresValue($0.variant) }, column { PostgresValue($0.language) },
                    column { PostgresValue($0.dueAt) }, column { PostgresValue($0.expiresAt) },
                    column { PostgresValue($0.splitUserID) }, PostgresValue(handover?.worker),
                    PostgresValue(handover?.leaseUntil), .integer(ClaimHandover.epoch),
                ]
            ) { row in (row.text(0), row.bool(1)) }
            for (installationID, isClaimed) in written where isClaimed && handover != nil {
                claimed.insert(installationID)
            }
        }
        return claimed
    }

    /// The values of ``messageColumns`` for `message`, in order.
    static func messageValues(_ message: MessageRecord) -> [PostgresValue] {
        [
            .text(message.id), .text(message.appID), .text(message.state.rawValue),
            .text(message.kind.rawValue), .text(message.messageType.rawValue),
            PostgresValue(message.campaignID), .text(message.topic), .bytes(message.payload),
            .integer(Int64(message.priority)), PostgresValue(message.expiresAt),
            PostgresValue(message.collapseID), .integer(message.createdAt),
            PostgresValue(message.finishedAt), .text(message.nightPolicy.rawValue), PostgresValue(message.plan),
            PostgresValue(message.resolveAt), PostgresValue(message.encodedPayloadVariants),
            PostgresValue(message.ratePerSecond.map(Int64.init)),
        ]
    }

    public func message(appID: String, messageID: String) throws -> MessageRecord? {
        try read { db in try Self.message(db, appID: appID, messageID: messageID) }
    }

    static func message(_ db: PostgresConnection, appID: String, messageID: String) throws -> MessageRecord? {
        try db.query(
            "SELECT \(messageColumns) FROM messages WHERE id = $1 AND app_id = $2", [.text(messageID), .text(appID)],
            row: messageRow
        ).first
    }

    public func lastMessageCreated(appID: String, kind: MessageKind) throws -> Int64? {
        try read { db in
            try db.scalar(
                "SELECT MAX(created_at) FROM messages WHERE app_id = $1 AND kind = $2",
                [.text(appID), .text(kind.rawValue)])
        }
    }

    public func messageCounts(messageID: String) throws -> MessageCounts {
        try deliveryCounts(where: "message_id = $1", [.text(messageID)])
    }

    public func campaignCounts(appID: String, campaignID: String) throws -> MessageCounts {
        try deliveryCounts(
            where: "message_id IN (SELECT id FROM messages WHERE app_id = $1 AND campaign_id = $2)",
            [.text(appID), .text(campaignID)])
    }

    private func deliveryCounts(where condition: String, _ arguments: [PostgresValue]) throws -> MessageCounts {
        let rows = try read { db in
            try db.query(
                "SELECT state, reason, COUNT(*) FROM message_deliveries WHERE \(condition) GROUP BY state, reason",
                arguments
            ) { row in (row.text(0), row.optionalText(1), row.int(2)) }
        }
        var counts = MessageCounts()
        for (state, reason, count) in rows { counts.add(state: state, reason: reason, count: count) }
        return counts
    }

    /// Every delivery not yet handed to the provider becomes `cancelled`: the waiting ones, and the claimed
    /// ones, whose claim's worker and epoch stay on the row so that a push already in flight still records its
    /// answer. The message's row is locked first, so a chunk of its audience being written meanwhile
    /// (``appendDeliveries(messageID:resolver:deliveries:cursor:finished:leaseUntil:now:)`` locks it too) is
    /// either refused or committed before the deliveries are updated. Every instance is told (`NOTIFY`, on
    /// commit), and its workers drop the message's queued pushes at once.
    public func cancelMessage(appID: String, messageID: String, now: Int64) throws -> MessageRecord? {
        let change = StoreChange.messageCancelled(id: messageID)
        let (message, cancelled) = try write { db in
            let changed = try db.run(
                """
                UPDATE messages SET state = 'cancelled', finished_at = $3
                WHERE id = $1 AND app_id = $2 AND state IN ('queued', 'scheduled', 'resolving', 'sending')
                """, [.text(messageID), .text(appID), .integer(now)])
            if changed > 0 {
                // Rows are locked in key order, the order ``completeDeliveries(_:worker:now:)`` writes them in, so
                // a cancel and a worker recording its answers wait for each other instead of deadlocking.
                try db.run(
                    """
                    UPDATE message_deliveries SET state = 'cancelled', reason = NULL, updated_at = $2
                    WHERE message_id = $1 AND state IN ('pending', 'claimed') AND installation_id IN (
                        SELECT installation_id FROM message_deliveries
                        WHERE message_id = $1 AND state IN ('pending', 'claimed')
                        ORDER BY installation_id FOR UPDATE)
                    """, [.text(messageID), .integer(now)])
                // A split test cancelled before its decision sends no winner.
                try db.run(
                    "UPDATE split_decisions SET state = 'cancelled' WHERE message_id = $1 AND state = 'testing'",
                    [.text(messageID)])
                try db.run(
                    "SELECT pg_notify($1, $2)",
                    [.text(StoreChange.notificationChannel), .text(change.notificationPayload)])
            }
            return (try Self.message(db, appID: appID, messageID: messageID), changed > 0)
        }
        if cancelled { changes.publish(change) }
        return message
    }

    public func releaseAllClaims(now: Int64) throws -> Int {
        try write { db in
            // Resolution held by a process that stopped resumes from its cursor.
            try db.run("UPDATE messages SET resolver = NULL, resolver_expires_at = NULL WHERE resolver IS NOT NULL")
            return try db.run(
                """
                UPDATE message_deliveries SET state = 'pending', claimed_by = NULL, claim_expires_at = NULL,
                    claim_epoch = claim_epoch + 1,
                    updated_at = $1
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
        return try write { db in
            let changed = try db.run(
                """
                UPDATE message_deliveries SET
                    state = CASE WHEN state = 'claimed' OR $4::text IN ('sent', 'failed') THEN $4::text ELSE state END,
                    reason = CASE WHEN state = 'claimed' OR $4::text IN ('sent', 'failed') THEN $5::text ELSE reason END,
                    attempts = attempts + $6::bigint, not_before = COALESCE($7::bigint, not_before),
                    claimed_by = NULL, claim_expires_at = NULL, updated_at = $8
                WHERE message_id = $1 AND installation_id = $2 AND state IN ('claimed', 'cancelled')
                    AND claimed_by IS NOT DISTINCT FROM $3  -- through the primary key, as in completeDeliveries
                """,
                [
                    .text(messageID), .text(installationID), .text(worker), .text(state), PostgresValue(reason),
                    .integer(extraAttempt), PostgresValue(notBefore), .integer(now),
                ])
            if changed > 0, state == "pending" {
                // A retry of a message cancelled while the push was in flight will never be claimed.
                try db.run(
                    """
                    UPDATE message_deliveries SET state = 'cancelled', reason = NULL
                    WHERE message_id = $1 AND installation_id = $2 AND state = 'pending'
                        AND EXISTS (SELECT 1 FROM messages WHERE id = $1 AND state = 'cancelled')
                    """, [.text(messageID), .text(installationID)])
            }
            return changed > 0
        }
    }

    public func finishMessages(now: Int64) throws -> [String] {
        try write { db in
            try db.query(
                """
                UPDATE messages m SET state = 'done', finished_at = $1
                WHERE m.state IN ('queued', 'sending') AND NOT EXISTS (
                    SELECT 1 FROM message_deliveries d
                    WHERE d.message_id = m.id AND d.state IN ('pending', 'claimed'))
                RETURNING m.id
                """, [.integer(now)]
            ) { $0.text(0) }.sorted()
        }
    }

    /// One statement: the claimed rows read once (a hashed subplan over their partial index), each message's
    /// pending rows through theirs.
    public func finishMessages(ids: [String], now: Int64) throws -> [String] {
        guard !ids.isEmpty else { return [] }
        return try write { db in
            try db.query(
                """
                UPDATE messages m SET state = 'done', finished_at = $1
                WHERE m.id = ANY($2::text[]) AND m.state IN ('queued', 'sending')
                    AND NOT EXISTS (
                        SELECT 1 FROM message_deliveries d WHERE d.message_id = m.id AND d.state = 'pending')
                    AND m.id NOT IN (SELECT message_id FROM message_deliveries WHERE state = 'claimed')
                RETURNING m.id
                """, [.integer(now), .array(Set(ids).sorted().map { .text($0) })]
            ) { $0.text(0) }.sorted()
        }
    }

    @discardableResult
    public func deactivateToken(
        _ kind: TokenType, token: String, appID: String, installationID: String, invalidSince: Int64?, now: Int64
    ) throws -> Bool {
        try write { db in
            try db.run(
                """
                UPDATE installations
                SET \(kind.rawValue)_token = NULL, \(kind.rawValue)_token_registered_at = NULL, updated_at = $4
                WHERE app_id = $1 AND installation_id = $2 AND \(kind.rawValue)_token = $3
                    AND ($5::bigint IS NULL OR \(kind.rawValue)_token_registered_at IS NULL
                        OR \(kind.rawValue)_token_registered_at < $5::bigint)
                """,
                [.text(appID), .text(installationID), .text(token), .integer(now), PostgresValue(invalidSince)]) > 0
        }
    }

    @discardableResult
    public func markTokenMismatch(token: String, appID: String, installationID: String, now: Int64) throws -> Bool {
        try write { db in
            // The mark names the token, so a later registration of another token makes it moot by itself.
            try db.run(
                """
                UPDATE installations SET token_mismatch = $3, token_mismatch_at = $4
                WHERE app_id = $1 AND installation_id = $2
                    AND (apns_token = $3 OR voip_token = $3 OR fcm_token = $3)
                """, [.text(appID), .text(installationID), .text(token), .integer(now)]) > 0
        }
    }

    public func tokenMismatch(appID: String, installationID: String) throws -> (token: String, at: Int64)? {
        try read { db in
            try db.query(
                """
                SELECT token_mismatch, token_mismatch_at FROM installations
                WHERE app_id = $1 AND installation_id = $2 AND token_mismatch IS NOT NULL
                """, [.text(appID), .text(installationID)]
            ) { row in (token: row.text(0), at: row.int64(1)) }.first
        }
    }

    static func messageRow(_ row: PostgresRow) -> MessageRecord {
        MessageRecord(
            id: row.text(0), appID: row.text(1), state: MessageRecord.State(rawValue: row.text(2)) ?? .queued,
            kind: MessageKind(rawValue: row.text(3)) ?? .alert,
            messageType: MessageRecord.MessageType(rawValue: row.text(4)) ?? .notification,
            campaignID: row.optionalText(5), topic: row.text(6), payload: row.blob(7), priority: row.int(8),
            expiresAt: row.optionalInt64(9), collapseID: row.optionalText(10),
            nightPolicy: MessageRecord.NightPolicy(rawValue: row.text(13)) ?? .skip, createdAt: row.int64(11),
            finishedAt: row.optionalInt64(12), plan: row.optionalText(14), resolveAt: row.optionalInt64(15),
            payloadVariants: MessageRecord.decodePayloadVariants(row.optionalText(16)),
            ratePerSecond: row.optionalInt64(17).map(Int.init))
    }

    static func deliveryRow(_ row: PostgresRow) -> MessageDelivery {
        var delivery = MessageDelivery(
            messageID: row.text(0), appID: row.text(2), installationID: row.text(1), token: row.text(3),
            tokenType: TokenType(rawValue: row.text(4)) ?? .apns, environment: row.text(5),
            state: MessageDelivery.State(rawValue: row.text(6)) ?? .pending, reason: row.optionalText(7),
            attempts: row.int(8), notBefore: row.int64(9), targetUserID: row.optionalText(10),
            variant: row.optionalText(11), language: row.optionalText(12), dueAt: row.optionalInt64(13),
            expiresAt: row.optionalInt64(14))
        delivery.splitUserID = row.optionalText(15)
        return delivery
    }
}
