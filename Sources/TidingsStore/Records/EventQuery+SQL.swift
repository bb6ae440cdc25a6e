extension EventQuery {
    /// The statement that reads this page of the app's events (the app is the first parameter), one row more
    /// than the limit to tell whether another page follows, with its parameters after the app.
    ///
    /// A message or a campaign is read through its ranges (`rows`, the store's ``EventScope`` join), in `seq`
    /// order since they never overlap; other filters walk the app's events by `seq`.
    /// - Parameters:
    ///   - columns: the selected columns of `events`, aliased `e`.
    ///   - rows: the `FROM` and the start of the `WHERE` of a scope's events, given the app's and the value's
    ///     placeholders.
    package func pageSQL(
        dialect: AudienceSQLDialect, columns: String, rows: (EventScope, _ app: String, _ value: String) -> String
    ) -> (sql: String, values: [AudienceSQLValue]) {
        var values: [AudienceSQLValue] = []
        var conditions: [String] = []
        func bind(_ value: AudienceSQLValue) -> String {
            values.append(value)
            return dialect.placeholder(values.count + 1)
        }
        let app = dialect.placeholder(1)
        var source = "FROM events e WHERE e.app_id = \(app)"
        var order = "e.seq"
        let scoped: (scope: EventScope, id: String)? =
            if let messageID {
                (.message, messageID)
            } else if let campaignID {
                (.campaign, campaignID)
            } else {
                nil
            }
        if let (scope, id) = scoped {
            source = rows(scope, app, bind(.text(id)))
            order = "r.first_seq, e.seq"
            if let afterSequence { conditions.append("r.last_seq > \(bind(.integer(afterSequence)))") }
        }
        if let type { conditions.append("e.type = \(bind(.text(type.rawValue)))") }
        if let campaignID, scoped?.scope != .campaign {
            conditions.append("e.campaign_id = \(bind(.text(campaignID)))")
        }
        if let userID { conditions.append("e.user_id = \(bind(.text(userID)))") }
        if let since { conditions.append("e.occurred_at >= \(bind(.integer(since)))") }
        if let until { conditions.append("e.occurred_at < \(bind(.integer(until)))") }
        if let receivedSince { conditions.append("e.received_at >= \(bind(.integer(receivedSince)))") }
        if let afterSequence { conditions.append("e.seq > \(bind(.integer(afterSequence)))") }
        let limit = bind(.integer(Int64(max(0, self.limit)) + 1))
        let sql = """
            SELECT \(columns) \(source) \(conditions.map { "AND \($0) " }.joined())
            ORDER BY \(order) LIMIT \(limit)
            """
        return (sql, values)
    }
}
