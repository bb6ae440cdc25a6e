import TidingsSQLite

extension SQLiteStore {
    public func erasureKey(appID: String, proposed: [UInt8]?, now: Int64) throws -> [UInt8]? {
        if let key = try reader.read({ db in
            try db.query("SELECT key FROM erasure_keys WHERE app_id = ?1", [.text(appID)]) { $0.blob(at: 0) }.first
        }) {
            return key
        }
        guard let proposed else { return nil }
        return try announcing(.erasures(appID: appID)) {
            try database.write { db in
                guard try db.scalar("SELECT 1 FROM apps WHERE id = ?1", [.text(appID)]) != nil else {
                    throw StoreError(code: .notFound, message: "no app \(appID)")
                }
                try db.run(
                    "INSERT INTO erasure_keys (app_id, key, created_at) VALUES (?1, ?2, ?3) ON CONFLICT (app_id) DO NOTHING",
                    [.text(appID), .blob(proposed), .integer(now)])
                return try db.query("SELECT key FROM erasure_keys WHERE app_id = ?1", [.text(appID)]) { $0.blob(at: 0) }
                    .first ?? proposed
            }
        }
    }

    public func eraseUser(_ erasure: UserErasure) throws -> ForgottenUser {
        let app = SQLiteValue.text(erasure.appID)
        let user = SQLiteValue.text(erasure.userID)
        let pseudonym = SQLiteValue.text(erasure.pseudonym)
        let forgotten = try announcing(.erasures(appID: erasure.appID)) {
            try database.write { db in
                let installations = try db.run(
                    "UPDATE installations SET user_id = NULL, attributes = NULL WHERE app_id = ?1 AND user_id = ?2",
                    [app, user])
                let tags = try Self.tags(db, appID: erasure.appID, userID: erasure.userID)
                for tag in tags { try Self.removeTag(db, appID: erasure.appID, userID: erasure.userID, tag: tag) }
                let events = try db.run(
                    "UPDATE events SET user_id = NULL, value = NULL, attributes = NULL WHERE app_id = ?1 AND user_id = ?2",
                    [app, user])
                let profiles = try db.run(
                    "DELETE FROM user_profiles WHERE app_id = ?1 AND user_id = ?2", [app, user])
                // Deliveries of messages sent to the user remember whom they were for. Those not sent yet are
                // skipped (the user no longer has installations), and all of them forget the user id.
                try db.run(
                    """
                    UPDATE message_deliveries SET state = 'skipped', reason = 'user_changed'
                    WHERE app_id = ?1 AND target_user_id = ?2 AND state = 'pending'
                    """, [app, user])
                try db.run(
                    "UPDATE message_deliveries SET target_user_id = NULL WHERE app_id = ?1 AND target_user_id = ?2",
                    [app, user])
                // A split test by person keeps the person's arm under the pseudonym: its conversions still group.
                try db.run(
                    "UPDATE message_deliveries SET split_user_id = ?3 WHERE app_id = ?1 AND split_user_id = ?2",
                    [app, user, .text(erasure.pseudonym)])
                let plans = try db.query(
                    "SELECT id, plan FROM messages WHERE app_id = ?1 AND plan IS NOT NULL AND instr(plan, ?2) > 0",
                    [app, .text(erasure.quotedUserID)]
                ) { ($0.text(at: 0), $0.text(at: 1)) }
                var messages = 0
                for (id, plan) in plans {
                    guard let erased = ErasedPlan.replacing(erasure.userID, with: erasure.pseudonym, in: plan) else {
                        continue
                    }
                    messages += try db.run("UPDATE messages SET plan = ?2 WHERE id = ?1", [.text(id), .text(erased)])
                }
                let prefix = SQLiteValue.text(erasure.auditTargetPrefix)
                let auditEntries = try db.run(
                    """
                    UPDATE audit_log SET target = '/v1/users/' || ?3 || substr(target, length(?2) + 1)
                    WHERE (app_id = ?1 OR app_id IS NULL)
                        AND (target = ?2 OR substr(target, 1, length(?2) + 1) = ?2 || '/')
                    """, [app, prefix, pseudonym])
                try db.run(
                    """
                    DELETE FROM idempotency_keys
                    WHERE substr(scope, 1, length(?1) + 1) = ?1 || char(10) AND instr(CAST(body AS TEXT), ?2) > 0
                    """, [app, .text(erasure.quotedUserID)])
                try db.run(
                    """
                    INSERT INTO erased_users (app_id, digest, erased_at) VALUES (?1, ?2, ?3)
                    ON CONFLICT (app_id, digest) DO UPDATE SET erased_at = excluded.erased_at
                    """, [app, .blob(erasure.digest), .integer(erasure.erasedAt)])
                // The user's journeys: runs in progress end where they stand, every run forgets whom it was for,
                // and the entry history and queued signals go.
                let subject = "user:" + erasure.userID
                let stopped = try db.query(
                    """
                    SELECT journey_id, step_id FROM journey_runs
                    WHERE app_id = ?1 AND subject = ?2 AND state IN ('ready', 'waiting')
                    """, [app, .text(subject)]
                ) { ($0.text(at: 0), $0.text(at: 1)) }
                for (journeyID, stepID) in stopped {
                    try Self.addJourneyCounts(
                        db, journeyID: journeyID, [JourneyCount(stepID: stepID, metric: "exited:erased", count: 1)])
                }
                try db.run(
                    """
                    UPDATE journey_runs SET subject = ?3,
                        end_reason = CASE WHEN state IN ('ready', 'waiting') THEN 'erased' ELSE end_reason END,
                        ended_at = COALESCE(ended_at, ?4), due_at = NULL, owner = NULL, epoch = epoch + 1,
                        state = CASE WHEN state IN ('ready', 'waiting') THEN 'exited' ELSE state END
                    WHERE app_id = ?1 AND subject = ?2
                    """, [app, .text(subject), .text("user:" + erasure.pseudonym), .integer(erasure.erasedAt)])
                try db.run(
                    """
                    DELETE FROM journey_entries
                    WHERE subject = ?2 AND journey_id IN (SELECT id FROM journeys WHERE app_id = ?1)
                    """, [app, .text(subject)])
                try db.run(
                    """
                    DELETE FROM journey_segment_members
                    WHERE subject = ?2 AND journey_id IN (SELECT id FROM journeys WHERE app_id = ?1)
                    """, [app, .text(subject)])
                try db.run("DELETE FROM journey_signals WHERE app_id = ?1 AND user_id = ?2", [app, user])
                var notices = 0
                let forwarders = try db.query("SELECT id FROM forwarders WHERE app_id = ?1", [app]) { $0.text(at: 0) }
                for forwarder in forwarders {
                    notices += try db.run(
                        """
                        INSERT INTO erasure_notices (id, forwarder_id, app_id, user_id, pseudonym, erased_at)
                        VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (id) DO NOTHING
                        """,
                        [
                            .text(erasure.noticeID(forwarderID: forwarder)), .text(forwarder), app, user, pseudonym,
                            .integer(erasure.erasedAt),
                        ])
                }
                return ForgottenUser(
                    installations: installations, tags: tags.count, events: events, messages: messages,
                    auditEntries: auditEntries, forwarderNotices: notices, profiles: profiles)
            }
        }
        try truncateLog()
        return forgotten
    }

    public func userErasedAt(appID: String, digest: [UInt8]) throws -> Int64? {
        try reader.read { db in
            try db.query(
                "SELECT erased_at FROM erased_users WHERE app_id = ?1 AND digest = ?2", [.text(appID), .blob(digest)]
            ) { $0.int64(at: 0) }.first
        }
    }

    public func erasureNotices(forwarderID: String, limit: Int) throws -> [ErasureNotice] {
        try reader.read { db in
            try db.query(
                """
                SELECT id, forwarder_id, app_id, user_id, pseudonym, erased_at FROM erasure_notices
                WHERE forwarder_id = ?1 ORDER BY erased_at, id LIMIT ?2
                """, [.text(forwarderID), .integer(Int64(limit))]
            ) { row in
                ErasureNotice(
                    id: row.text(at: 0), forwarderID: row.text(at: 1), appID: row.text(at: 2), userID: row.text(at: 3),
                    pseudonym: row.text(at: 4), erasedAt: row.int64(at: 5))
            }
        }
    }

    @discardableResult
    public func removeErasureNotices(forwarderID: String, ids: [String]) throws -> Int {
        guard !ids.isEmpty else { return 0 }
        let removed = try database.write { db in
            var removed = 0
            for id in ids {
                removed += try db.run(
                    "DELETE FROM erasure_notices WHERE forwarder_id = ?1 AND id = ?2", [.text(forwarderID), .text(id)])
            }
            return removed
        }
        if removed > 0 { try truncateLog() }
        return removed
    }
}
