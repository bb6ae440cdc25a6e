import TidingsModel
import TidingsSQLite

extension SQLiteStore {
    /// Sent and failed deliveries of an app by day since a time, read through the partial index of exactly those
    /// (`message_deliveries_app_updated`).
    static let dailySendsSQL = """
        SELECT (updated_at / ?3) * ?3, state, COUNT(*) FROM message_deliveries
        WHERE app_id = ?1 AND updated_at >= ?2 AND state IN ('sent', 'failed')
        GROUP BY 1, 2
        """

    /// Failed deliveries by reason. The first condition on `state` is the index's own: SQLite reads a partial
    /// index only for a query that states its condition, and does not derive it from `state = 'failed'`.
    static let failuresByReasonSQL = """
        SELECT COALESCE(reason, 'unknown'), COUNT(*) FROM message_deliveries
        WHERE app_id = ?1 AND updated_at >= ?2 AND state IN ('sent', 'failed') AND state = 'failed'
        GROUP BY COALESCE(reason, 'unknown')
        """

    public func installationBreakdown(appID: String) throws -> InstallationBreakdown {
        try reader.read { db in
            try db.transaction(immediate: false) {
                var breakdown = InstallationBreakdown()
                let rows = try db.query(
                    """
                    SELECT platform, COALESCE(permission, 'unknown'), COUNT(*),
                        SUM(CASE WHEN apns_token IS NOT NULL OR voip_token IS NOT NULL OR fcm_token IS NOT NULL
                            THEN 1 ELSE 0 END),
                        SUM(CASE WHEN consent_notifications = 1 THEN 1 ELSE 0 END),
                        SUM(CASE WHEN consent_ads = 1 THEN 1 ELSE 0 END)
                    FROM installations WHERE app_id = ?1 GROUP BY platform, COALESCE(permission, 'unknown')
                    """, [.text(appID)]
                ) { row in
                    (row.text(at: 0), row.text(at: 1), row.int(at: 2), row.int(at: 3), row.int(at: 4), row.int(at: 5))
                }
                for (platform, permission, count, withToken, notifications, ads) in rows {
                    breakdown.total += count
                    breakdown.withToken += withToken
                    breakdown.byPlatform[platform, default: 0] += count
                    breakdown.byPermission[permission, default: 0] += count
                    breakdown.notificationConsent += notifications
                    breakdown.adConsent += ads
                }
                return breakdown
            }
        }
    }

    public func dailyActivity(appID: String, since: Int64) throws -> [DailyActivity] {
        let day = DailyActivity.dayMilliseconds
        let start = since - since % day
        return try reader.read { db in
            try db.transaction(immediate: false) {
                var days: [Int64: DailyActivity] = [:]
                let sends = try db.query(Self.dailySendsSQL, [.text(appID), .integer(start), .integer(day)]) { row in
                    (row.int64(at: 0), row.text(at: 1), row.int(at: 2))
                }
                for (date, state, count) in sends {
                    if state == "sent" { days[date, default: DailyActivity(day: date)].sent += count }
                    if state == "failed" { days[date, default: DailyActivity(day: date)].failed += count }
                }
                // Each delivery counts on the day it was first recorded, and is opened when the same message
                // was opened on the same installation: opens of messages delivered before the window, and repeated
                // opens, are left out, so the rate cannot pass 100%. One scan of the window's events, grouped by
                // message and installation.
                let deliveries = try db.query(
                    """
                    SELECT (first_at / ?3) * ?3, COUNT(*), SUM(opened) FROM (
                        SELECT MIN(CASE WHEN type = 'delivery' THEN occurred_at END) AS first_at,
                            MAX(CASE WHEN type IN ('open', 'link_open', 'deeplink_open', 'screen_open')
                                OR (type = 'action' AND opens_app = 1) THEN 1 ELSE 0 END) AS opened
                        FROM events WHERE app_id = ?1 AND occurred_at >= ?2 AND message_id IS NOT NULL
                        GROUP BY message_id, installation_id
                    ) pairs
                    WHERE first_at IS NOT NULL
                    GROUP BY 1
                    """, [.text(appID), .integer(start), .integer(day)]
                ) { row in (row.int64(at: 0), row.int(at: 1), row.int(at: 2)) }
                for (date, delivered, opened) in deliveries {
                    days[date, default: DailyActivity(day: date)].delivered += delivered
                    days[date, default: DailyActivity(day: date)].opened += opened
                }
                return days.values.sorted { $0.day < $1.day }
            }
        }
    }

    public func failuresByReason(appID: String, since: Int64) throws -> [String: Int] {
        try reader.read { db in
            let rows = try db.query(Self.failuresByReasonSQL, [.text(appID), .integer(since)]) { row in
                (row.text(at: 0), row.int(at: 1))
            }
            return Dictionary(rows, uniquingKeysWith: +)
        }
    }

    public func recentMessages(appID: String, createdBefore: Int64?, limit: Int) throws -> [MessageRecord] {
        try reader.read { db in
            try db.query(
                """
                SELECT \(Self.messageColumns) FROM messages WHERE app_id = ?1 AND created_at < ?2
                ORDER BY created_at DESC, id DESC LIMIT ?3
                """, [.text(appID), .integer(createdBefore ?? Int64.max), .integer(Int64(max(0, limit)))],
                row: Self.messageRow)
        }
    }

    public func deliveries(appID: String, installationID: String, limit: Int) throws -> [(
        delivery: MessageDelivery, updatedAt: Int64
    )] {
        try reader.read { db in
            try db.query(
                """
                SELECT \(Self.deliveryColumns), updated_at FROM message_deliveries
                WHERE app_id = ?1 AND installation_id = ?2 ORDER BY updated_at DESC LIMIT ?3
                """, [.text(appID), .text(installationID), .integer(Int64(max(0, limit)))]
            ) { row in (delivery: Self.deliveryRow(row), updatedAt: row.int64(at: Self.deliveryColumnCount)) }
        }
    }

    public func events(appID: String, installationID: String, limit: Int) throws -> [StoredEvent] {
        try reader.read { db in
            try db.query(
                """
                SELECT \(Self.eventColumns) \(EventScope.installation.rows(app: "?1", value: "?2"))
                ORDER BY r.first_seq DESC, e.seq DESC LIMIT ?3
                """, [.text(appID), .text(installationID), .integer(Int64(max(0, limit)))], row: Self.eventRow)
        }
    }

    public func installations(appID: String, tokenPrefix: String, limit: Int) throws -> [Installation] {
        // A range on each token's index: tokens are ASCII, so every token with the prefix sorts below
        // the prefix followed by U+FFFF.
        let upper = tokenPrefix + "\u{FFFF}"
        // One range per token index, each read in the index's order and cut at the limit, then joined: an `OR`
        // of the three would walk the app in key order instead, and a short prefix can match many tokens.
        let ranges = ["apns_token", "voip_token", "fcm_token"].map { column in
            """
            SELECT * FROM (SELECT \(Self.installationColumns) FROM installations
                WHERE app_id = ?1 AND \(column) >= ?2 AND \(column) < ?3 ORDER BY \(column) LIMIT ?4)
            """
        }
        return try reader.read { db in
            try db.query(
                """
                SELECT * FROM (\(ranges.joined(separator: " UNION "))) ORDER BY installation_id LIMIT ?4
                """, [.text(appID), .text(tokenPrefix), .text(upper), .integer(Int64(max(0, limit)))],
                row: Self.installationRow)
        }
    }
}
