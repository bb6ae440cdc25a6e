extension EventScope {
    /// The events of the app in parameter `app` whose column is the value in parameter `value`, as the `FROM`
    /// and the start of the `WHERE` of a SQLite query, with `joining` (more tables) after `e`.
    ///
    /// `events` is `e`, the ranges `r`. The ranges drive the join (`CROSS JOIN` keeps SQLite from reordering
    /// it), and each is read as a span of `events`' primary key: the `+` keeps SQLite from reading the app's
    /// rows through `events_event_id` instead. A query ordered by `r.first_seq, e.seq` thus reads in `seq`
    /// order and stops at its `LIMIT`.
    func rows(app: String, value: String, joining: String = "") -> String {
        """
        FROM event_ranges r CROSS JOIN events e ON e.seq BETWEEN r.first_seq AND r.last_seq \(joining)
        WHERE r.app_id = \(app) AND r.scope = '\(rawValue)' AND r.scope_id = \(value)
            AND +e.app_id = \(app) AND e.\(column) = \(value)
        """
    }
}
