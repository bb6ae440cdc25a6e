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
    package static func sql(
        from: ConversionStart, openingActions: [String: Set<String>], parameter: (Int) -> String
    ) -> (sql: String, values: [String]) {
        var values: [String] = []
        func bind(_ value: String) -> String {
            values.append(value)
            return parameter(4 + values.count)
        }
        let (app, message, event, window) = (parameter(1), parameter(2), parameter(3), parameter(4))
        let start: String
        switch from {
        case .delivery:
            start = """
                COALESCE((SELECT MIN(e.occurred_at) FROM events e WHERE e.app_id = \(app) AND e.message_id = d.message_id
                    AND e.installation_id = d.installation_id AND e.type = 'delivery'), d.updated_at)
                """
        case .open:
            let opening = FunnelStage.openingAction(openingActions: openingActions, bind: bind)
            start = """
                (SELECT MIN(e.occurred_at) FROM events e WHERE e.app_id = \(app) AND e.message_id = d.message_id
                    AND e.installation_id = d.installation_id
                    AND (e.type IN ('open', 'link_open', 'deeplink_open', 'screen_open') OR \(opening)))
                """
        }
        let sql = """
            SELECT s.arm, COUNT(DISTINCT s.unit), COUNT(DISTINCT CASE WHEN EXISTS (
                SELECT 1 FROM events c WHERE c.app_id = \(app) AND c.type = \(event)
                    AND c.occurred_at >= s.start AND c.occurred_at <= s.start + \(window)
                    AND (c.installation_id = s.installation_id
                        OR (s.split_user_id IS NOT NULL AND c.user_id = s.split_user_id))
            ) THEN s.unit END)
            FROM (
                SELECT COALESCE(d.variant, '') AS arm, d.installation_id, d.split_user_id,
                    CASE WHEN d.split_user_id IS NULL THEN 'installation:' || d.installation_id
                        ELSE 'user:' || d.split_user_id END AS unit,
                    CASE WHEN d.state = 'skipped' THEN d.not_before ELSE \(start) END AS start
                FROM message_deliveries d
                WHERE d.message_id = \(message) AND d.app_id = \(app)
                    AND (d.state = 'sent' OR (d.state = 'skipped' AND d.reason = 'control'))
            ) s
            GROUP BY s.arm
            """
        return (sql, values)
    }
}
