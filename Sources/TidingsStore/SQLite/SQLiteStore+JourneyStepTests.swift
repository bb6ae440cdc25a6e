import TidingsModel
import TidingsSQLite

extension SQLiteStore {
    static let journeyStepTestColumns = """
        app_id, journey_id, version, step_id, started_at, test_ends_at, decide_at, rule, decided_at, winner, decision
        """

    static func journeyStepTestRow(_ row: SQLiteStatement) -> JourneyStepTestRecord {
        JourneyStepTestRecord(
            appID: row.text(at: 0), journeyID: row.text(at: 1), version: row.int(at: 2), stepID: row.text(at: 3),
            startedAt: row.int64(at: 4), testEndsAt: row.int64(at: 5), decideAt: row.int64(at: 6),
            rule: row.text(at: 7), decidedAt: row.isNull(at: 8) ? nil : row.int64(at: 8),
            winner: row.optionalText(at: 9), decision: row.optionalText(at: 10))
    }

    public func startJourneyStepTest(_ test: JourneyStepTestRecord) throws -> JourneyStepTestRecord {
        // Read first: every walk through the step asks, and only the first needs a write.
        if let started = try reader.read({ try Self.journeyStepTest(db: $0, test) }) { return started }
        return try database.write { db in
            try db.run(
                """
                INSERT INTO journey_step_tests (\(Self.journeyStepTestColumns))
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, NULL, NULL, NULL)
                ON CONFLICT (journey_id, version, step_id) DO NOTHING
                """,
                [
                    .text(test.appID), .text(test.journeyID), .integer(Int64(test.version)), .text(test.stepID),
                    .integer(test.startedAt), .integer(test.testEndsAt), .integer(test.decideAt), .text(test.rule),
                ])
            return try Self.journeyStepTest(db: db, test) ?? test
        }
    }

    static func journeyStepTest(db: SQLiteConnection, _ test: JourneyStepTestRecord) throws -> JourneyStepTestRecord? {
        try db.query(
            """
            SELECT \(journeyStepTestColumns) FROM journey_step_tests
            WHERE app_id = ?1 AND journey_id = ?2 AND version = ?3 AND step_id = ?4
            """,
            [.text(test.appID), .text(test.journeyID), .integer(Int64(test.version)), .text(test.stepID)],
            row: journeyStepTestRow
        ).first
    }

    public func journeyStepTests(appID: String, journeyID: String) throws -> [JourneyStepTestRecord] {
        try reader.read { db in
            try db.query(
                """
                SELECT \(Self.journeyStepTestColumns) FROM journey_step_tests
                WHERE app_id = ?1 AND journey_id = ?2 ORDER BY version, step_id
                """, [.text(appID), .text(journeyID)], row: Self.journeyStepTestRow)
        }
    }

    public func dueJourneyStepTests(now: Int64, limit: Int) throws -> [JourneyStepTestRecord] {
        try reader.read { db in
            try db.query(
                """
                SELECT \(Self.journeyStepTestColumns) FROM journey_step_tests
                WHERE decided_at IS NULL AND decide_at <= ?1 ORDER BY decide_at, journey_id, version, step_id LIMIT ?2
                """, [.integer(now), .integer(Int64(max(0, limit)))], row: Self.journeyStepTestRow)
        }
    }

    public func recordJourneyStepDecision(
        appID: String, journeyID: String, version: Int, stepID: String, decidedAt: Int64, winner: String,
        decision: String
    ) throws -> Bool {
        try database.write { db in
            try db.run(
                """
                UPDATE journey_step_tests SET decided_at = ?5, winner = ?6, decision = ?7
                WHERE app_id = ?1 AND journey_id = ?2 AND version = ?3 AND step_id = ?4 AND decided_at IS NULL
                """,
                [
                    .text(appID), .text(journeyID), .integer(Int64(version)), .text(stepID), .integer(decidedAt),
                    .text(winner), .text(decision),
                ]) > 0
        }
    }

    /// Notes `run`'s test sends (message id: step), in the transaction that stores its messages.
    static func insertJourneyStepTestSends(_ db: SQLiteConnection, run: JourneyRunRecord, _ sends: [String: String])
        throws
    {
        for (messageID, stepID) in sends.sorted(by: { $0.key < $1.key }) {
            try db.run(
                """
                INSERT INTO journey_step_test_sends (app_id, journey_id, version, step_id, message_id)
                VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING
                """,
                [.text(run.appID), .text(run.journeyID), .integer(Int64(run.version)), .text(stepID), .text(messageID)])
        }
    }

    public func journeyStepTestSends(appID: String, journeyID: String, version: Int, stepID: String) throws
        -> [String]
    {
        try reader.read { db in
            try db.query(
                """
                SELECT message_id FROM journey_step_test_sends
                WHERE app_id = ?1 AND journey_id = ?2 AND version = ?3 AND step_id = ?4 ORDER BY message_id
                """, [.text(appID), .text(journeyID), .integer(Int64(version)), .text(stepID)]
            ) { $0.text(at: 0) }
        }
    }
}
