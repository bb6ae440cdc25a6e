extension InstallationQuery {
    /// The statement that lists this query's page of `appID`'s installations, shared by the SQL backends.
    ///
    /// Its parameters are `texts` in order, then the page size: a backend binds them as its own values, numbered
    /// after `placeholder` (`?` for SQLite, `$` for PostgreSQL).
    package func listing(appID: String, columns: String, placeholder: String) -> (sql: String, texts: [String]) {
        var texts = [appID]
        var conditions = ["i.app_id = \(placeholder)1"]
        func bind(_ value: String) -> String {
            texts.append(value)
            return "\(placeholder)\(texts.count)"
        }
        var from = "installations i"
        if let userID { conditions.append("i.user_id = \(bind(userID))") }
        if let tag {
            // Driven from the tag's users: `CROSS JOIN` keeps that order in SQLite, which otherwise walks every
            // installation of the app in key order to spare itself the sort.
            from = "user_tags t CROSS JOIN installations i"
            conditions.append("t.app_id = i.app_id AND t.user_id = i.user_id")
            conditions.append("t.tag = \(bind(tag))")
        }
        for (field, value) in fields.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            conditions.append(value.map { "i.\(field.rawValue) = \(bind($0))" } ?? "i.\(field.rawValue) IS NULL")
        }
        if let afterInstallationID { conditions.append("i.installation_id > \(bind(afterInstallationID))") }
        let qualified = columns.split(separator: ",").map { "i." + $0.trimmingCharacters(in: .whitespaces) }
        // A user's or a tag's installations are few beside the app's: sorting them beats walking the whole app
        // in key order, which SQLite would choose for a plain `ORDER BY` (an expression cannot come from the key).
        let order = userID != nil || tag != nil ? "i.installation_id || ''" : "i.installation_id"
        let sql = """
            SELECT \(qualified.joined(separator: ", ")) FROM \(from)
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order) LIMIT \(placeholder)\(texts.count + 1)
            """
        return (sql, texts)
    }
}
