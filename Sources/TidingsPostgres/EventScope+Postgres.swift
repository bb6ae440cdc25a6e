import TidingsStore

extension EventScope {
    /// The events of the app in parameter `app` whose column is the value in parameter `value`, as the `FROM`
    /// and the start of the `WHERE` of a PostgreSQL query, with `joining` (more tables) after `e`.
    ///
    /// `events` is `e`, the ranges `r`. Each range is read as a span of `events_app_seq`, in one partition: a
    /// range's events share its batch's `received_at`, the partition key, so PostgreSQL skips the other months
    /// at run time. `OFFSET 0` keeps the value's condition out of the span's read: pushed into it, it lets the
    /// planner, which cannot tell how short a span of `seq` is, prefer reading every event of the app through
    /// `events_type_time` (whose last column is the installation) once for all the spans.
    func postgresRows(app: String, value: String, joining: String = "") -> String {
        """
        FROM event_ranges r CROSS JOIN LATERAL (
            SELECT * FROM events WHERE app_id = r.app_id AND received_at = r.received_at
                AND seq BETWEEN r.first_seq AND r.last_seq OFFSET 0) e \(joining)
        WHERE r.app_id = \(app) AND r.scope = '\(rawValue)' AND r.scope_id = \(value) AND e.\(column) = \(value)
        """
    }
}
