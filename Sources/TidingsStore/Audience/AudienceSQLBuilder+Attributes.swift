import TidingsModel

/// Custom attributes in SQL: each is read from the JSON object of the installation (`i.attributes`) or of its
/// user's profile (`user_profiles`), and compared only when its JSON type is the value's, so a comparison with
/// an attribute held in another type is NULL, which a `WHERE` treats as false.
extension AudienceSQLBuilder {
    /// The attribute types a value can compare with.
    enum AttributeType {
        case string, number, boolean, date
    }

    mutating func translate(_ condition: AudienceAttributeCondition) -> String {
        let source =
            switch condition.scope {
            case .installation: "i.attributes"
            case .user:
                "(SELECT audience_profiles.attributes FROM user_profiles audience_profiles"
                    + " WHERE audience_profiles.app_id = i.app_id AND audience_profiles.user_id = i.user_id)"
            }
        let key = condition.key
        switch condition.comparison {
        case .isNull: return "(\(member(source, key)) IS NULL)"
        case .isNotNull: return "(\(member(source, key)) IS NOT NULL)"
        case .contains:
            guard case .string(let text) = condition.values.first else { return "FALSE" }
            return contains(source, key, text)
        case .isIn:
            return "(" + condition.values.map { compare(source, key, "=", $0) }.joined(separator: " OR ") + ")"
        case .isNotIn:
            let any = condition.values.map { compare(source, key, "=", $0) }.joined(separator: " OR ")
            return "(\(member(source, key)) IS NOT NULL AND NOT COALESCE((\(any)), FALSE))"
        case .notEqual: return compare(source, key, "<>", condition.values[0])
        default: return compare(source, key, condition.comparison.rawValue, condition.values[0])
        }
    }

    /// `key`'s JSON member of `source`: NULL when absent.
    private mutating func member(_ source: String, _ key: String) -> String {
        switch dialect {
        case .sqlite: "json_type(\(source), \(bind(.text("$." + key))))"
        case .postgres: "(\(source) -> \(bind(.text(key)))::text)"
        }
    }

    /// `key`'s value when its JSON type is `type`, else NULL, in a form that compares as that type.
    private mutating func typed(_ source: String, _ key: String, _ type: AttributeType) -> String {
        switch dialect {
        case .sqlite:
            let path = bind(.text("$." + key))
            switch type {
            case .string:
                return "(CASE WHEN json_type(\(source), \(path)) = 'text' THEN json_extract(\(source), \(path)) END)"
            case .number:
                return
                    "(CASE WHEN json_type(\(source), \(path)) IN ('integer', 'real') THEN json_extract(\(source), \(path)) END)"
            case .boolean:
                return
                    "(CASE WHEN json_type(\(source), \(path)) IN ('true', 'false') THEN json_type(\(source), \(path)) END)"
            case .date:
                // Dates are stored as {"date": "<RFC 3339 in UTC>"}; the first 19 characters order them by the
                // second whatever the fraction.
                let datePath = bind(.text("$." + key + ".date"))
                return
                    "(CASE WHEN json_type(\(source), \(datePath)) = 'text' THEN substr(json_extract(\(source), \(datePath)), 1, 19) END)"
            }
        case .postgres:
            let member = "(\(source) -> \(bind(.text(key)))::text)"
            switch type {
            case .string:
                return "(CASE WHEN jsonb_typeof(\(member)) = 'string' THEN \(member) #>> '{}' END) COLLATE \"C\""
            case .number:
                return "(CASE WHEN jsonb_typeof(\(member)) = 'number' THEN (\(member) #>> '{}')::double precision END)"
            case .boolean: return "(CASE WHEN jsonb_typeof(\(member)) = 'boolean' THEN \(member) #>> '{}' END)"
            case .date:
                return
                    "(CASE WHEN jsonb_typeof(\(member) -> 'date') = 'string' THEN left(\(member) ->> 'date', 19) END) COLLATE \"C\""
            }
        }
    }

    private mutating func compare(
        _ source: String, _ key: String, _ sqlOperator: String, _ value: AudienceAttributeValue
    )
        -> String
    {
        let type: AttributeType
        let parameter: String
        switch value {
        case .string(let text):
            type = .string
            parameter = textParameter(text)
        case .number(let number):
            type = .number
            let bound = bind(.text(String(number)))
            parameter = dialect == .sqlite ? "CAST(\(bound) AS REAL)" : "\(bound)::double precision"
        case .boolean(let flag):
            type = .boolean
            parameter = textParameter(flag ? "true" : "false")
        case .secondsAgo(let seconds):
            type = .date
            parameter = textParameter(String(RFC3339.format(milliseconds: now - seconds * 1000).prefix(19)))
        case .date(let milliseconds):
            type = .date
            parameter = textParameter(String(RFC3339.format(milliseconds: milliseconds).prefix(19)))
        }
        return "(\(typed(source, key, type)) \(sqlOperator) \(parameter))"
    }

    private mutating func textParameter(_ text: String) -> String {
        let bound = bind(.text(text))
        return dialect == .sqlite ? bound : "\(bound)::text"
    }

    /// Whether `key` is a list holding `text`.
    private mutating func contains(_ source: String, _ key: String, _ text: String) -> String {
        switch dialect {
        case .sqlite:
            let path = bind(.text("$." + key))
            return "(json_type(\(source), \(path)) = 'array' AND EXISTS (SELECT 1 FROM json_each(\(source), \(path))"
                + " audience_items WHERE audience_items.type = 'text' AND audience_items.value = \(bind(.text(text)))))"
        case .postgres:
            let member = "(\(source) -> \(bind(.text(key)))::text)"
            return "(jsonb_typeof(\(member)) = 'array' AND \(member) @> jsonb_build_array(\(bind(.text(text)))::text))"
        }
    }
}
