import TidingsModel
import TidingsStore

extension PostgresStore {
    public func createCampaign(_ message: MessageRecord, resolver: String?, leaseUntil: Int64?) throws {
        try createCampaign(message, resolver: resolver, leaseUntil: leaseUntil, splitDecision: nil)
    }

    public func createCampaign(
        _ message: MessageRecord, resolver: String?, leaseUntil: Int64?, splitDecision: SplitDecisionRecord?
    ) throws {
        do {
            try write { db in
                try Self.insertCampaign(db, message, resolver: resolver, leaseUntil: leaseUntil)
                if let splitDecision { try Self.insertSplitDecision(db, splitDecision) }
            }
        } catch let error as PostgresError where error.isUniqueViolation {
            throw StoreError(code: .conflict, message: "a message with id \(message.id) already exists")
        }
    }

    static func insertCampaign(
        _ db: PostgresConnection, _ message: MessageRecord, resolver: String?, leaseUntil: Int64?
    ) throws {
        try db.run(
            """
            INSERT INTO messages (\(Self.messageColumns), resolver, resolver_expires_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
            """, Self.messageValues(message) + [PostgresValue(resolver), PostgresValue(leaseUntil)])
    }

    /// Claims with `FOR UPDATE SKIP LOCKED`: a message another instance is claiming right now is passed over,
    /// so each message has one resolver across the cluster.
    public func claimResolution(resolver: String, now: Int64, leaseUntil: Int64) throws -> ResolutionClaim? {
        let columns = Self.qualified(Self.messageColumns, by: "m")
        return try write { db in
            try db.query(
                """
                WITH due AS (
                    SELECT id FROM messages
                    WHERE state IN ('scheduled', 'resolving') AND resolve_at <= $1
                        AND (resolver IS NULL OR resolver_expires_at <= $1)
                    ORDER BY resolve_at, id LIMIT 1
                    FOR UPDATE SKIP LOCKED)
                UPDATE messages m SET state = 'resolving', resolver = $2, resolver_expires_at = $3
                FROM due WHERE m.id = due.id
                RETURNING \(columns), m.resolve_cursor
                """, [.integer(now), .text(resolver), .integer(leaseUntil)]
            ) { row in ResolutionClaim(message: Self.messageRow(row), cursor: row.optionalText(Self.messageColumnCount))
            }.first
        }
    }

    public func appendDeliveries(
        messageID: String, resolver: String, deliveries: [MessageDelivery], cursor: String?, finished: Bool,
        leaseUntil: Int64, now: Int64, handover: ClaimHandover?
    ) throws -> Set<String>? {
        try write { db in
            let changed = try db.run(
                """
                UPDATE messages SET resolve_cursor = $3, state = $4, resolver = $5, resolver_expires_at = $6::bigint
                WHERE id = $1 AND resolver = $2 AND state = 'resolving'
                """,
                [
                    .text(messageID), .text(resolver), PostgresValue(cursor), .text(finished ? "sending" : "resolving"),
                    finished ? .null : .text(resolver), finished ? .null : .integer(leaseUntil),
                ])
            guard changed > 0 else { return nil }
            if finished {
                // A split test's decision is due its wait after the test's audience is complete.
                try db.run(
                    """
                    UPDATE split_decisions SET decide_at = GREATEST($2 + after_ms, not_before)
                    WHERE message_id = $1 AND decide_at IS NULL
                    """, [.text(messageID), .integer(now)])
            }
            guard let appID = deliveries.first?.appID else { return [] }
            return try Self.insertDeliveries(
                db, deliveries, message: messageID, app: appID, now: now, handover: handover)
        }
    }

    public func resolutionDue(now: Int64, excluding messageID: String) throws -> Bool {
        try read { db in
            try db.scalar(
                """
                SELECT 1 FROM messages
                WHERE state IN ('scheduled', 'resolving') AND resolve_at <= $1 AND id <> $2
                    AND (resolver IS NULL OR resolver_expires_at <= $1)
                LIMIT 1
                """, [.integer(now), .text(messageID)]) as Int64? != nil
        }
    }

    public func releaseResolution(messageID: String, resolver: String) throws {
        try write { db in
            try db.run(
                "UPDATE messages SET resolver = NULL, resolver_expires_at = NULL WHERE id = $1 AND resolver = $2",
                [.text(messageID), .text(resolver)])
        }
    }

    public func messages(appID: String, query: MessageListQuery) throws -> [MessageRecord] {
        var conditions = ["app_id = $1"]
        var arguments: [PostgresValue] = [.text(appID)]
        if let state = query.state {
            arguments.append(.text(state.rawValue))
            conditions.append("state = $\(arguments.count)")
        }
        if let campaignID = query.campaignID {
            arguments.append(.text(campaignID))
            conditions.append("campaign_id = $\(arguments.count)")
        }
        if let after = query.after {
            arguments.append(.integer(after.createdAt))
            arguments.append(.text(after.id))
            conditions.append("(created_at, id) < ($\(arguments.count - 1)::bigint, $\(arguments.count))")
        }
        arguments.append(.integer(Int64(max(0, query.limit))))
        return try read { db in
            try db.query(
                """
                SELECT \(Self.messageColumns) FROM messages WHERE \(conditions.joined(separator: " AND "))
                ORDER BY created_at DESC, id DESC LIMIT $\(arguments.count)
                """, arguments, row: Self.messageRow)
        }
    }

    public func messageCounts(messageID: String, by grouping: DeliveryGrouping) throws -> [String: MessageCounts] {
        let rows = try read { db in
            try db.query(
                """
                SELECT \(grouping.rawValue), state, reason, COUNT(*) FROM message_deliveries
                WHERE message_id = $1 AND \(grouping.rawValue) IS NOT NULL
                GROUP BY \(grouping.rawValue), state, reason
                """, [.text(messageID)]
            ) { row in (row.text(0), row.text(1), row.optionalText(2), row.int(3)) }
        }
        var counts: [String: MessageCounts] = [:]
        for (group, state, reason, count) in rows {
            counts[group, default: MessageCounts()].add(state: state, reason: reason, count: count)
        }
        return counts
    }

    public func messageCountsByDueTime(messageID: String) throws -> [Int64: MessageCounts] {
        let rows = try read { db in
            try db.query(
                """
                SELECT due_at, state, reason, COUNT(*) FROM message_deliveries
                WHERE message_id = $1 AND due_at IS NOT NULL
                GROUP BY due_at, state, reason
                """, [.text(messageID)]
            ) { row in (row.int64(0), row.text(1), row.optionalText(2), row.int(3)) }
        }
        var counts: [Int64: MessageCounts] = [:]
        for (due, state, reason, count) in rows {
            counts[due, default: MessageCounts()].add(state: state, reason: reason, count: count)
        }
        return counts
    }

    public func funnel(
        appID: String, messageID: String, by grouping: DeliveryGrouping, openingActions: [String: Set<String>]
    ) throws -> [String: EventFunnel] {
        let columns = FunnelStage.columns(openingActions: openingActions, parameter: { "$\($0)" }, first: 3)
        let width = Int32(FunnelStage.allCases.count + 1)
        // One statement, so the per-type counts and each group's total and stages see the same snapshot.
        let rows = try read { db in
            try db.query(
                """
                SELECT d.\(grouping.rawValue), e.type, COUNT(*), COUNT(DISTINCT e.installation_id), \(columns.sql)
                \(EventScope.message.postgresRows(
                    app: "$1", value: "$2",
                    joining: "JOIN message_deliveries d ON d.message_id = e.message_id AND d.installation_id = e.installation_id"
                )) AND d.\(grouping.rawValue) IS NOT NULL
                GROUP BY GROUPING SETS ((d.\(grouping.rawValue), e.type), (d.\(grouping.rawValue)))
                """, [.text(appID), .text(messageID)] + columns.values.map { .text($0) }
            ) { row in
                (row.text(0), row.optionalText(1), row.int(2), row.int(3), (4..<4 + width).map { row.int($0) })
            }
        }
        var funnels: [String: EventFunnel] = [:]
        for (group, type, events, installations, stages) in rows {
            if let type {
                funnels[group, default: EventFunnel()].eventsByType[type] = events
                funnels[group, default: EventFunnel()].installationsByType[type] = installations
            } else {
                funnels[group, default: EventFunnel()].uniqueInstallations = installations
                funnels[group, default: EventFunnel()].setStages(stages)
            }
        }
        return funnels
    }
}

extension PostgresStore {
    public func conversions(
        appID: String, messageID: String, event: String, withinMilliseconds: Int64, from: ConversionStart,
        openingActions: [String: Set<String>]
    ) throws -> [String: ConversionCount] {
        let query = ConversionQuery.sql(
            from: from, openingActions: openingActions,
            messageEvents: EventScope.message.postgresRows(app: "$1", value: "$2"),
            parameter: { "$\($0)" })
        return try read { db in
            let rows = try db.query(
                query.sql,
                [.text(appID), .text(messageID), .text(event), .integer(withinMilliseconds)]
                    + query.values.map { .text($0) }
            ) { row in (row.text(0), ConversionCount(recipients: row.int(1), converted: row.int(2))) }
            return Dictionary(rows, uniquingKeysWith: { first, _ in first })
        }
    }
}
