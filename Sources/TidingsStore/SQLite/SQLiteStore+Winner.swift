import TidingsModel
import TidingsSQLite

extension SQLiteStore {
    static let splitDecisionColumns = """
        message_id, app_id, state, after_ms, not_before, decide_at, decided_at, follow_up_message_id, decision
        """

    static func insertSplitDecision(_ db: SQLiteConnection, _ decision: SplitDecisionRecord) throws {
        try db.run(
            """
            INSERT INTO split_decisions (\(splitDecisionColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """,
            [
                .text(decision.messageID), .text(decision.appID), .text(decision.state.rawValue),
                .integer(decision.afterMilliseconds), .integer(decision.notBefore), SQLiteValue(decision.decideAt),
                SQLiteValue(decision.decidedAt), SQLiteValue(decision.followUpMessageID),
                SQLiteValue(decision.decision),
            ])
    }

    static func splitDecisionRow(_ row: SQLiteStatement) -> SplitDecisionRecord {
        func optional(_ column: Int32) -> Int64? { row.isNull(at: column) ? nil : row.int64(at: column) }
        return SplitDecisionRecord(
            messageID: row.text(at: 0), appID: row.text(at: 1),
            state: SplitDecisionRecord.State(rawValue: row.text(at: 2)) ?? .cancelled,
            afterMilliseconds: row.int64(at: 3), notBefore: row.int64(at: 4), decideAt: optional(5),
            decidedAt: optional(6), followUpMessageID: row.optionalText(at: 7), decision: row.optionalText(at: 8))
    }

    public func splitDecision(messageID: String) throws -> SplitDecisionRecord? {
        try reader.read { db in
            try db.query(
                "SELECT \(Self.splitDecisionColumns) FROM split_decisions WHERE message_id = ?1", [.text(messageID)],
                row: Self.splitDecisionRow
            ).first
        }
    }

    public func dueSplitDecisions(now: Int64, limit: Int) throws -> [SplitDecisionRecord] {
        try reader.read { db in
            try db.query(
                """
                SELECT \(Self.splitDecisionColumns) FROM split_decisions
                WHERE state = 'testing' AND decide_at <= ?1 ORDER BY decide_at, message_id LIMIT ?2
                """, [.integer(now), .integer(Int64(max(0, limit)))], row: Self.splitDecisionRow)
        }
    }

    public func recordSplitDecision(
        messageID: String, decidedAt: Int64, decision: String, followUp: MessageRecord, audit: AuditEntry
    ) throws -> Bool {
        try database.write { db in
            let changed = try db.run(
                """
                UPDATE split_decisions SET state = 'decided', decided_at = ?2, decision = ?3, follow_up_message_id = ?4
                WHERE message_id = ?1 AND state = 'testing'
                """, [.text(messageID), .integer(decidedAt), .text(decision), .text(followUp.id)])
            guard changed > 0 else { return false }
            try Self.insertCampaign(db, followUp, resolver: nil, leaseUntil: nil)
            _ = try Self.insertAudit(db, audit)
            return true
        }
    }
}
