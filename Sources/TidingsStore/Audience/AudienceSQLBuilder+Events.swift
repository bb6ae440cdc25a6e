/// Event conditions in SQL: the installations with at least N events of a type (in a window) are one set,
/// computed once per statement from the `events_type_time` index (app, type, time, installation), so the cost
/// is the matching events, not every event and not a lookup per installation.
extension AudienceSQLBuilder {
    mutating func translate(_ condition: AudienceEventCondition) -> String {
        let (lower, upper, complement) = condition.bounds
        var parts: [String] = []
        if lower > 0 { parts.append(installations(condition, atLeast: lower, negated: false)) }
        if let upper {
            parts.append(upper > 0 ? installations(condition, atLeast: upper, negated: true) : "(1 = 0)")
        }
        let range = parts.isEmpty ? "(1 = 1)" : "(" + parts.joined(separator: " AND ") + ")"
        return complement ? "(NOT \(range))" : range
    }

    /// Whether the installation has (or, `negated`, has not) at least `count` events matching `condition`.
    ///
    /// SQLite evaluates an uncorrelated `IN (SELECT ...)` once into a temporary index and probes it per row.
    /// PostgreSQL hashes it for `IN`, but may not for `NOT IN` (whose answer for a NULL differs), so there the
    /// complement is a `NOT EXISTS` matching the same set by installation, which PostgreSQL runs as one anti
    /// join against the set computed once.
    private mutating func installations(_ condition: AudienceEventCondition, atLeast count: Int, negated: Bool)
        -> String
    {
        let app = dialect.placeholder(1)
        let type = bind(.text(condition.type))
        var window = ""
        if let seconds = condition.withinSeconds {
            window = " AND audience_events.occurred_at >= \(bind(.integer(now - seconds * 1000)))"
        }
        let having = count > 1 ? " HAVING count(*) >= \(bind(.integer(Int64(count))))" : ""
        let typeParameter = dialect == .postgres ? "\(type)::text" : type
        let group = count > 1 ? " GROUP BY audience_events.installation_id" : ""
        let set =
            "SELECT audience_events.installation_id FROM events audience_events"
            + " WHERE audience_events.app_id = \(app) AND audience_events.type = \(typeParameter)\(window)\(group)\(having)"
        if negated && dialect == .postgres {
            return "NOT EXISTS (SELECT 1 FROM (\(set)) audience_set"
                + " WHERE audience_set.installation_id = i.installation_id)"
        }
        return "(i.installation_id \(negated ? "NOT IN" : "IN") (\(set)))"
    }
}
