import TidingsModel
import TidingsStore

extension PostgresStore {
    public func userProfile(appID: String, userID: String) throws -> UserProfile? {
        try read { db in try Self.userProfile(db, appID: appID, userID: userID, forUpdate: false) }
    }

    public func userAttributes(appID: String, userIDs: [String]) throws -> [String: [String: AttributeValue]] {
        var found: [String: [String: AttributeValue]] = [:]
        for chunk in stride(from: 0, to: userIDs.count, by: 500).map({ userIDs[$0..<min($0 + 500, userIDs.count)] }) {
            let placeholders = (2..<(chunk.count + 2)).map { "$\($0)" }.joined(separator: ", ")
            let rows = try read { db in
                try db.query(
                    "SELECT user_id, attributes::text FROM user_profiles WHERE app_id = $1 AND user_id IN (\(placeholders))",
                    [.text(appID)] + chunk.map { .text($0) },
                    row: { ($0.text(0), Installation.decodeAttributes($0.text(1))) })
            }
            for (userID, attributes) in rows { found[userID] = attributes }
        }
        return found
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
