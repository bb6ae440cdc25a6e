import TidingsModel
import TidingsStore

extension PostgresStore {
    public func userProfile(appID: String, userID: String) throws -> UserProfile? {
        try read { db in try Self.userProfile(db, appID: appID, userID: userID, forUpdate: false) }
    }

    /// Each user looked up alone, in a lateral subquery, under ``indexLookupsOnlySQL``: as one condition
    /// (`user_id IN (...)`), under statistics that predate the app's profiles, PostgreSQL read every profile of
    /// the table for each chunk of a templated message (`PostgresPlansUnderOldStatisticsTests`).
    public func userAttributes(appID: String, userIDs: [String]) throws -> [String: [String: AttributeValue]] {
        guard !userIDs.isEmpty else { return [:] }
        let profiles = PostgresConnection.Statement(
            sql: """
                SELECT p.user_id, p.attributes::text FROM unnest($2::text[]) AS k(user_id)
                CROSS JOIN LATERAL (
                    SELECT user_id, attributes FROM user_profiles WHERE app_id = $1 AND user_id = k.user_id
                    LIMIT 1) AS p
                """,
            parameters: [.text(appID), .array(Set(userIDs).sorted().map { .text($0) })])
        let rows = try readByIndexLookups(profiles) { ($0.text(0), Installation.decodeAttributes($0.text(1))) }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    public func updateUserProfile(
        appID: String, userID: String, now: Int64,
        signalling: (_ before: [String: AttributeValue], _ after: [String: AttributeValue]) -> [JourneySignal],
        _ change: ([String: AttributeValue]) throws -> [String: AttributeValue]
    ) throws -> UserProfile? {
        try write { db in
            // Two changes to one user take turns: the second merges into what the first wrote.
            try db.run(
                "SELECT pg_advisory_xact_lock(hashtextextended($1::text || chr(10) || $2::text, 0))",
                [.text(appID), .text(userID)])
            let current = try Self.userProfile(db, appID: appID, userID: userID, forUpdate: true)?.attributes ?? [:]
            let profile = UserProfile(userID: userID, attributes: try change(current), updatedAt: now)
            for signal in signalling(current, profile.attributes) { try Self.insertJourneySignal(db, signal) }
            guard !profile.attributes.isEmpty else {
                try db.run(
                    "DELETE FROM user_profiles WHERE app_id = $1 AND user_id = $2", [.text(appID), .text(userID)])
                return nil
            }
            try db.run(
                """
                INSERT INTO user_profiles (app_id, user_id, attributes, updated_at) VALUES ($1, $2, $3::jsonb, $4)
                ON CONFLICT (app_id, user_id) DO UPDATE SET attributes = excluded.attributes,
                    updated_at = excluded.updated_at
                """, [.text(appID), .text(userID), .text(profile.encodedAttributes), .integer(now)])
            return profile
        }
    }

    private static func userProfile(_ db: PostgresConnection, appID: String, userID: String, forUpdate: Bool) throws
        -> UserProfile?
    {
        try db.query(
            "SELECT attributes::text, updated_at FROM user_profiles WHERE app_id = $1 AND user_id = $2"
                + (forUpdate ? " FOR UPDATE" : ""),
            [.text(appID), .text(userID)]
        ) { row in
            UserProfile(
                userID: userID, attributes: Installation.decodeAttributes(row.text(0)), updatedAt: row.int64(1))
        }.first
    }
}
