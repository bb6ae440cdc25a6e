import TidingsStore

extension PostgresStore {
    static let liveActivityColumns = """
        app_id, installation_id, kind, scope, attributes_type, token, environment, created_at, updated_at,
        last_sent_at, last_outcome
        """

    public func upsertLiveActivityToken(_ token: LiveActivityToken) throws -> (token: LiveActivityToken, created: Bool)
    {
        try write { db in
            guard
                try db.scalar(
                    "SELECT 1 FROM installations WHERE app_id = $1 AND installation_id = $2",
                    [.text(token.appID), .text(token.installationID)]) != nil
            else {
                throw StoreError(code: .notFound, message: "there is no installation \(token.installationID)")
            }
            let key: [PostgresValue] = [
                .text(token.appID), .text(token.installationID), .text(token.kind.rawValue), .text(token.scope),
            ]
            let existing = try db.query(
                """
                SELECT \(Self.liveActivityColumns) FROM live_activity_tokens
                WHERE app_id = $1 AND installation_id = $2 AND kind = $3 AND scope = $4 FOR UPDATE
                """, key, row: Self.liveActivityRow
            ).first
            // A token belongs to one row: another row holding it is stale (a reinstall, a restarted activity).
            _ = try db.run(
                """
                DELETE FROM live_activity_tokens WHERE app_id = $1 AND token = $2
                AND NOT (installation_id = $3 AND kind = $4 AND scope = $5)
                """,
                [
                    .text(token.appID), .text(token.token), .text(token.installationID), .text(token.kind.rawValue),
                    .text(token.scope),
                ])
            var stored = token
            stored.createdAt = existing?.createdAt ?? token.createdAt
            stored.lastSentAt = nil
            stored.lastOutcome = nil
            _ = try db.run(
                """
                INSERT INTO live_activity_tokens (\(Self.liveActivityColumns))
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, NULL)
                ON CONFLICT (app_id, installation_id, kind, scope) DO UPDATE SET
                    attributes_type = excluded.attributes_type, token = excluded.token,
                    environment = excluded.environment, updated_at = excluded.updated_at,
                    last_sent_at = NULL, last_outcome = NULL
                """,
                key + [
                    .text(stored.attributesType), .text(stored.token), .text(stored.environment),
                    .integer(stored.createdAt), .integer(stored.updatedAt),
                ])
            return (stored, existing == nil)
        }
    }

    @discardableResult
    public func removeLiveActivityToken(
        appID: String, installationID: String, kind: LiveActivityToken.Kind, scope: String
    ) throws -> Bool {
        try write { db in
            try db.run(
                """
                DELETE FROM live_activity_tokens WHERE app_id = $1 AND installation_id = $2 AND kind = $3
                AND scope = $4
                """, [.text(appID), .text(installationID), .text(kind.rawValue), .text(scope)]) > 0
        }
    }

    @discardableResult
    public func removeLiveActivityToken(appID: String, token: String) throws -> Bool {
        try write { db in
            try db.run(
                "DELETE FROM live_activity_tokens WHERE app_id = $1 AND token = $2", [.text(appID), .text(token)]) > 0
        }
    }

    public func liveActivityTokens(appID: String, activityID: String) throws -> [LiveActivityToken] {
        try read { db in
            try db.query(
                """
                SELECT \(Self.liveActivityColumns) FROM live_activity_tokens
                WHERE app_id = $1 AND kind = 'update' AND scope = $2 ORDER BY installation_id
                """, [.text(appID), .text(activityID)], row: Self.liveActivityRow)
        }
    }

    /// Each installation's tokens of `kind` looked up alone, in a lateral subquery that `OFFSET 0` keeps from
    /// being flattened, under ``indexLookupsOnlySQL``: as `installation_id IN (...)`, under statistics that
    /// predate the app's tokens, PostgreSQL may walk every token of the app with the ids as a filter
    /// (docs/postgres.md, *Look-ups by a set of keys*).
    public func liveActivityTokens(
        appID: String, installationIDs: [String], kind: LiveActivityToken.Kind
    ) throws -> [LiveActivityToken] {
        guard !installationIDs.isEmpty else { return [] }
        let tokens = PostgresConnection.Statement(
            sql: """
                SELECT \(Self.qualified(Self.liveActivityColumns, by: "t")) FROM unnest($3::text[]) AS k(installation_id)
                CROSS JOIN LATERAL (
                    SELECT * FROM live_activity_tokens
                    WHERE app_id = $1 AND installation_id = k.installation_id AND kind = $2 OFFSET 0) AS t
                """,
            parameters: [.text(appID), .text(kind.rawValue), .array(Set(installationIDs).sorted().map { .text($0) })])
        return try readByIndexLookups(tokens, row: Self.liveActivityRow)
            .sorted { ($0.installationID, $0.scope) < ($1.installationID, $1.scope) }
    }

    public func recordLiveActivityOutcome(appID: String, token: String, outcome: String, at: Int64) throws {
        try write { db in
            _ = try db.run(
                "UPDATE live_activity_tokens SET last_sent_at = $3, last_outcome = $4 WHERE app_id = $1 AND token = $2",
                [.text(appID), .text(token), .integer(at), .text(outcome)])
        }
    }

    public func takeLiveActivityBudget(appID: String, activityID: String, windowStart: Int64, limit: Int) throws -> Bool
    {
        guard limit > 0 else { return false }
        // One statement, so two instances cannot both take the last unit: a new window starts at 1; in the
        // same window the row changes (and the statement reports a change) only while `used < limit`.
        return try write { db in
            try db.run(
                """
                INSERT INTO live_activity_budgets (app_id, activity_id, window_start, used) VALUES ($1, $2, $3, 1)
                ON CONFLICT (app_id, activity_id) DO UPDATE SET
                    used = CASE WHEN live_activity_budgets.window_start < excluded.window_start THEN 1
                        ELSE live_activity_budgets.used + 1 END,
                    window_start = GREATEST(live_activity_budgets.window_start, excluded.window_start)
                WHERE live_activity_budgets.window_start < excluded.window_start OR live_activity_budgets.used < $4
                """, [.text(appID), .text(activityID), .integer(windowStart), .integer(Int64(limit))]) > 0
        }
    }

    @discardableResult
    public func pruneLiveActivityTokens(appID: String, updatedBefore: Int64) throws -> Int {
        try write { db in
            try db.run(
                "DELETE FROM live_activity_tokens WHERE app_id = $1 AND kind = 'update' AND updated_at < $2",
                [.text(appID), .integer(updatedBefore)])
        }
    }

    static func liveActivityRow(_ row: PostgresRow) -> LiveActivityToken {
        let kind = LiveActivityToken.Kind(rawValue: row.text(2)) ?? .update
        return LiveActivityToken(
            appID: row.text(0), installationID: row.text(1), kind: kind,
            activityID: kind == .update ? row.text(3) : nil, attributesType: row.text(4), token: row.text(5),
            environment: row.text(6), createdAt: row.int64(7), updatedAt: row.int64(8),
            lastSentAt: row.optionalInt64(9), lastOutcome: row.optionalText(10))
    }
}
