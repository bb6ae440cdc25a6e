/// The SQL both backends run to count a message's conversions per arm (``CampaignStore/conversions(appID:messageID:event:withinMilliseconds:from:openingActions:)``).
///
/// Recipients are the message's sent deliveries and its control group's (skipped `control`), each counted as
/// its unit: the user it was assigned by (`split_user_id`), else the installation. A recipient converted when
/// an event of the goal's type was recorded within the window after its start, on the same installation or,
/// for a user, by the same user on any device. The start is the first `delivery` event (else the time the
/// push was sent) or the first open; for the control group, the time it would have been sent.
package enum ConversionQuery {
    /// The statement and its text values after the first four parameters (app id, message id, event type and
    /// window in milliseconds, bound by the caller): rows of arm (`''` without variants), recipients,
    /// converted.
    ///
    /// Each part reads its table once (the message's events, its deliveries, the events of the goal's type)
    /// and they meet in joins, never in a subquery per delivery, so a message of a million recipients costs
    /// a few scans rather than a million.
    ///
    /// - Parameter messageEvents: the `FROM` and the start of the `WHERE` of the message's events, aliased
    ///   `e` (the SQLite store reads them through its event ranges, PostgreSQL through its index).
    package static func sql(
        from: ConversionStart, openingActions: [String: Set<String>], messageEvents: String,
        parameter: (Int) -> String
    ) -> (sql: String, values: [String]) {
        var values: [String] = []
        func bind(_ value: String) -> String {
            values.append(value)
            return parameter(4 + values.count)
        }
        let (app, message, event, window) = (parameter(1), parameter(2), parameter(3), parameter(4))
        let starts: String
        let start: String
        switch from {
        case .delivery:
            starts = "e.type = 'delivery'"
            start = "COALESCE(f.at, d.updated_at)"
        case .open:
            let opening = FunnelStage.openingAction(openingActions: openingActions, bind: bind)
            starts = "(e.type IN ('open', 'link_open', 'deeplink_open', 'screen_open') OR \(opening))"
            start = "f.at"
        }
        let sql = """
            WITH firsts AS (
                SELECT e.installation_id, MIN(e.occurred_at) AS at \(messageEvents) AND \(starts)
                GROUP BY e.installation_id
            ),
            recipients AS (
                SELECT COALESCE(d.variant, '') AS arm, d.installation_id, d.split_user_id,
                    CASE WHEN d.split_user_id IS NULL THEN 'installation:' || d.installation_id
                        ELSE 'user:' || d.split_user_id END AS unit,
                    CASE WHEN d.state = 'skipped' THEN d.not_before ELSE \(start) END AS start
                FROM message_deliveries d LEFT JOIN firsts f ON f.installation_id = d.installation_id
                WHERE d.message_id = \(message) AND d.app_id = \(app)
                    AND (d.state = 'sent' OR (d.state = 'skipped' AND d.reason = 'control'))
            ),
            goals AS (SELECT c.installation_id, c.user_id, c.occurred_at FROM events c WHERE c.app_id = \(app) AND c.type = \(event)),
            converted AS (
                SELECT s.unit FROM recipients s JOIN goals g ON g.installation_id = s.installation_id
                    AND g.occurred_at >= s.start AND g.occurred_at <= s.start + \(window)
                UNION
                SELECT s.unit FROM recipients s JOIN goals g ON g.user_id = s.split_user_id
                    AND g.occurred_at >= s.start AND g.occurred_at <= s.start + \(window)
            )
            SELECT s.arm, COUNT(DISTINCT s.unit), COUNT(DISTINCT v.unit)
            FROM recipients s LEFT JOIN converted v ON v.unit = s.unit
            GROUP BY s.arm
            """
        return (sql, values)
    }
}
