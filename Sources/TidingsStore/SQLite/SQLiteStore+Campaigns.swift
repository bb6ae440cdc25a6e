import TidingsModel
import TidingsSQLite

extension SQLiteStore {
    public func createCampaign(_ message: MessageRecord, resolver: String?, leaseUntil: Int64?) throws {
        try createCampaign(message, resolver: resolver, leaseUntil: leaseUntil, splitDecision: nil)
    }

    public func createCampaign(
        _ message: MessageRecord, resolver: String?, leaseUntil: Int64?, splitDecision: SplitDecisionRecord?
    ) throws {
        try database.write { db in
            try Self.insertCampaign(db, message, resolver: resolver, leaseUntil: leaseUntil)
            if let splitDecision { try Self.insertSplitDecision(db, splitDecision) }
        }
    }

    static func insertCampaign(_ db: SQLiteConnection, _ message: MessageRecord, resolver: String?, leaseUntil: Int64?)
        throws
    {
        if try db.scalar("SELECT 1 FROM messages WHERE id = ?1", [.text(message.id)]) != nil {
            throw StoreError(code: .conflict, message: "a message with id \(message.id) already exists")
        }
        try db.run(
            """
            INSERT INTO messages (\(Self.messageColumns), resolver, resolver_expires_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)
            """, Self.messageValues(message) + [SQLiteValue(resolver), SQLiteValue(leaseUntil)])
    }

    public func claimResolution(resolver: String, now: Int64, leaseUntil: Int64) throws -> ResolutionClaim? {
        try database.write { db in
            let found = try db.query(
                """
                SELECT \(Self.messageColumns), resolve_cursor FROM messages
                WHERE state IN ('scheduled', 'resolving') AND resolve_at <= ?1
                    AND (resolver IS NULL OR resolver_expires_at <= ?1)
                ORDER BY resolve_at, id LIMIT 1
                """, [.integer(now)]
            ) { row in
                ResolutionClaim(message: Self.messageRow(row), cursor: row.optionalText(at: Self.messageColumnCount))
            }.first
            guard var claim = found else { return nil }
            try db.run(
                """
                UPDATE messages SET state = 'resolving', resolver = ?2, resolver_expires_at = ?3 WHERE id = ?1
                """, [.text(claim.message.id), .text(resolver), .integer(leaseUntil)])
            claim.message.state = .resolving
            return claim
        }
    }

    public func appendDeliveries(
        messageID: String, resolver: String, deliveries: [MessageDelivery], cursor: String?, finished: Bool,
        leaseUntil: Int64, now: Int64, handover: ClaimHandover?
    ) throws -> Set<String>? {
        try database.write { db in
            let changed = try db.run(
                """
                UPDATE messages SET resolve_cursor = ?3, state = ?4, resolver = ?5, resolver_expires_at = ?6
                WHERE id = ?1 AND resolver = ?2 AND state = 'resolving'
                """,
                [
                    .text(messageID), .text(resolver), SQLiteValue(cursor), .text(finished ? "sending" : "resolving"),
                    finished ? .null : .text(resolver), finished ? .null : .integer(leaseUntil),
                ])
            guard changed > 0 else { return nil }
            if finished {
                // A split test's decision is due its wait after the test's audience is complete.
                try db.run(
                    """
                    UPDATE split_decisions SET decide_at = MAX(?2 + after_ms, not_before)
                    WHERE message_id = ?1 AND decide_at IS NULL
                    """, [.text(messageID), .integer(now)])
            }
            guard let appID = deliveries.first?.appID else { return [] }
            return try Self.insertDeliveries(
                db, deliveries, message: messageID, app: appID, now: now, handover: handover)
        }
    }

    public func resolutionDue(now: Int64, excluding messageID: String) throws -> Bool {
        try database.read { db in
            try db.scalar(
                """
                SELECT 1 FROM messages
                WHERE state IN ('scheduled', 'resolving') AND resolve_at <= ?1 AND id <> ?2
                    AND (resolver IS NULL OR resolver_expires_at <= ?1)
                LIMIT 1
                """, [.integer(now), .text(messageID)]) != nil
        }
    }

    public func releaseResolution(messageID: String, resolver: String) throws {
        try database.write { db in
            try db.run(
                "UPDATE messages SET resolver = NULL, resolver_expires_at = NULL WHERE id = ?1 AND resolver = ?2",
                [.text(messageID), .text(resolver)])
        }
    }

    public func messages(appID: String, query: MessageListQuery) throws -> [MessageRecord] {
        var conditions = ["app_id = ?1"]
        var arguments: [SQLiteValue] = [.text(appID)]
        if let state = query.state {
            arguments.append(.text(state.rawValue))
            conditions.append("state = ?\(arguments.count)")
        }
        if let campaignID = query.campaignID {
            arguments.append(.text(campaignID))
            conditions.append("campaign_id = ?\(arguments.count)")
        }
        if let after = query.after {
            arguments.append(.integer(after.createdAt))
            arguments.append(.text(after.id))
            conditions.append(
                "(created_at < ?\(arguments.count - 1) OR (created_at = ?\(arguments.count - 1) AND id < ?\(arguments.count)))"
            )
        }
        arguments.append(.integer(Int64(max(0, query.limit))))
        return try reader.read { db in
            try db.query(
                """
                SELECT \(Self.messageColumns) FROM messages WHERE \(conditions.joined(separator: " AND "))
                ORDER BY created_at DESC, id DESC LIMIT ?\(arguments.count)
                """, arguments, row: Self.messageRow)
        }
    }

    public func messageCounts(messageID: String, by grouping: DeliveryGrouping) throws -> [String: MessageCounts] {
        try reader.read { db in
            let rows = try db.query(
                """
                SELECT \(grouping.rawValue), state, reason, COUNT(*) FROM message_deliveries
                WHERE message_id = ?1 AND \(grouping.rawValue) IS NOT NULL
                GROUP BY \(grouping.rawValue), state, reason
                """, [.text(messageID)]
            ) { row in (row.text(at: 0), row.text(at: 1), row.optionalText(at: 2), Int(row.int64(at: 3))) }
            var counts: [String: MessageCounts] = [:]
            for (group, state, reason, count) in rows {
                counts[group, default: MessageCounts()].add(state: state, reason: reason, count: count)
            }
            return counts
        }
    }

    public func messageCountsByDueTime(messageID: String) throws -> [Int64: MessageCounts] {
        try reader.read { db in
            let rows = try db.query(
                """
                SELECT due_at, state, reason, COUNT(*) FROM message_deliveries
                WHERE message_id = ?1 AND due_at IS NOT NULL
                GROUP BY due_at, state, reason
                """, [.text(messageID)]
            ) { row in (row.int64(at: 0), row.text(at: 1), row.optionalText(at: 2), Int(row.int64(at: 3))) }
            var counts: [Int64: MessageCounts] = [:]
            for (due, state, reason, count) in rows {
                counts[due, default: MessageCounts()].add(state: state, reason: reason, count: count)
            }
            return counts
        }
    }

    public func funnel(
        appID: String, messageID: String, by grouping: DeliveryGrouping, openingActions: [String: Set<String>]
    ) throws -> [String: EventFunnel] {
        try reader.read { db in
            try db.transaction(immediate: false) {
                let join =
                    EventScope.message.rows(
                        app: "?1", value: "?2",
                        joining: """
                            JOIN message_deliveries d
                                ON d.message_id = e.message_id AND d.installation_id = e.installation_id
                            """) + " AND d.\(grouping.rawValue) IS NOT NULL"
                var funnels: [String: EventFunnel] = [:]
                let rows = try db.query(
                    """
                    SELECT d.\(grouping.rawValue), e.type, COUNT(*), COUNT(DISTINCT e.installation_id) \(join)
                    GROUP BY d.\(grouping.rawValue), e.type
                    """, [.text(appID), .text(messageID)]
                ) { row in (row.text(at: 0), row.text(at: 1), row.int(at: 2), row.int(at: 3)) }
                for (group, type, events, installations) in rows {
                    funnels[group, default: EventFunnel()].eventsByType[type] = events
                    funnels[group, default: EventFunnel()].installationsByType[type] = installations
                }
                let columns = FunnelStage.columns(
                    openingActions: openingActions, parameter: { "?\($0)" }, first: 3)
                let width = FunnelStage.allCases.count + 2
                let totals = try db.query(
                    """
                    SELECT d.\(grouping.rawValue), COUNT(DISTINCT e.installation_id), \(columns.sql) \(join)
                    GROUP BY d.\(grouping.rawValue)
                    """, [.text(appID), .text(messageID)] + columns.values.map { .text($0) }
                ) { row in (row.text(at: 0), (1...Int32(width)).map { row.int(at: $0) }) }
                for (group, values) in totals {
                    funnels[group, default: EventFunnel()].uniqueInstallations = values[0]
                    funnels[group, default: EventFunnel()].setStages(Array(values.dropFirst()))
                }
                return funnels
            }
        }
    }
}

extension SQLiteStore {
    public func conversions(
        appID: String, messageID: String, event: String, withinMilliseconds: Int64, from: ConversionStart,
        openingActions: [String: Set<String>]
    ) throws -> [String: ConversionCount] {
        let query = ConversionQuery.sql(
            from: from, openingActions: openingActions, messageEvents: EventScope.message.rows(app: "?1", value: "?2"),
            parameter: { "?\($0)" })
        return try reader.read { db in
            let rows = try db.query(
                query.sql,
                [.text(appID), .text(messageID), .text(event), .integer(withinMilliseconds)]
                    + query.values.map { .text($0) }
            ) { row in (row.text(at: 0), ConversionCount(recipients: row.int(at: 1), converted: row.int(at: 2))) }
            return Dictionary(rows, uniquingKeysWith: { first, _ in first })
        }
    }
}
