import TidingsSQLite

extension SQLiteStore {
    public func tags(appID: String, userID: String) throws -> [String] {
        try reader.read { db in try Self.tags(db, appID: appID, userID: userID) }
    }

    public func replaceTags(appID: String, userID: String, tags: Set<String>, limits: TagLimits) throws -> [String] {
        try changeTags(appID: appID, userID: userID, limits: limits) { _ in tags }
    }

    public func addTags(appID: String, userID: String, tags: Set<String>, limits: TagLimits) throws -> [String] {
        try changeTags(appID: appID, userID: userID, limits: limits) { $0.union(tags) }
    }

    public func removeTags(appID: String, userID: String, tags: Set<String>?) throws -> [String] {
        try changeTags(appID: appID, userID: userID, limits: nil) { current in
            tags.map { current.subtracting($0) } ?? []
        }
    }

    /// Applies `change` to the user's tags, keeping `app_tags` (distinct tags per app, with user counts) in step.
    private func changeTags(
        appID: String, userID: String, limits: TagLimits?, _ change: (Set<String>) -> Set<String>
    ) throws -> [String] {
        try database.write { db in try Self.changeTags(db, appID: appID, userID: userID, limits: limits, change) }
    }

    /// ``changeTags(appID:userID:limits:_:)`` inside the caller's transaction (an import's batch).
    static func changeTags(
        _ db: SQLiteConnection, appID: String, userID: String, limits: TagLimits?,
        _ change: (Set<String>) -> Set<String>
    ) throws -> [String] {
        let current = Set(try Self.tags(db, appID: appID, userID: userID))
        let wanted = change(current)
        let added = wanted.subtracting(current)
        let removed = current.subtracting(wanted)
        if let limits, !added.isEmpty {
            try limits.checkPerUser(wanted.count)
            var newDistinct = 0
            for tag in added
            where try db.scalar(
                "SELECT 1 FROM app_tags WHERE app_id = ?1 AND tag = ?2", [.text(appID), .text(tag)])
                == nil
            {
                newDistinct += 1
            }
            if newDistinct > 0 {
                let distinct =
                    try db.scalar("SELECT COUNT(*) FROM app_tags WHERE app_id = ?1", [.text(appID)])?.integerValue
                    ?? 0
                var freed = 0
                for tag in removed
                where try db.scalar(
                    "SELECT users FROM app_tags WHERE app_id = ?1 AND tag = ?2", [.text(appID), .text(tag)]
                )?.integerValue == 1 {
                    freed += 1
                }
                try limits.checkDistinctPerApp(Int(distinct) - freed + newDistinct)
            }
        }
        for tag in removed { try Self.removeTag(db, appID: appID, userID: userID, tag: tag) }
        for tag in added {
            try db.run(
                "INSERT INTO user_tags (app_id, user_id, tag) VALUES (?1, ?2, ?3)",
                [.text(appID), .text(userID), .text(tag)])
            try db.run(
                """
                INSERT INTO app_tags (app_id, tag, users) VALUES (?1, ?2, 1)
                ON CONFLICT (app_id, tag) DO UPDATE SET users = app_tags.users + 1
                """, [.text(appID), .text(tag)])
        }
        return wanted.sorted()
    }

    /// Removes one of the user's tags, keeping `app_tags` in step.
    static func removeTag(_ db: SQLiteConnection, appID: String, userID: String, tag: String) throws {
        try db.run(
            "DELETE FROM user_tags WHERE app_id = ?1 AND user_id = ?2 AND tag = ?3",
            [.text(appID), .text(userID), .text(tag)])
        try db.run("UPDATE app_tags SET users = users - 1 WHERE app_id = ?1 AND tag = ?2", [.text(appID), .text(tag)])
        try db.run("DELETE FROM app_tags WHERE app_id = ?1 AND tag = ?2 AND users <= 0", [.text(appID), .text(tag)])
    }

    static func tags(_ db: SQLiteConnection, appID: String, userID: String) throws -> [String] {
        try db.query(
            "SELECT tag FROM user_tags WHERE app_id = ?1 AND user_id = ?2 ORDER BY tag", [.text(appID), .text(userID)]
        ) { $0.text(at: 0) }
    }
}
