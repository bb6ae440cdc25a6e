/// Translates an expression into a SQL condition on `installations i`, collecting its parameters.
///
/// `not` is pushed down to the conditions (De Morgan), so the conditions that are not negated stay plain
/// comparisons an index can serve. A condition on a field the row has no value for is NULL in SQL, which a
/// `WHERE` treats as false; a negated condition is `NOT COALESCE(condition, FALSE)`, which is then true, as the
/// language says.
struct AudienceSQLBuilder {
    let dialect: AudienceSQLDialect
    /// When the audience is resolved, unix milliseconds: what `30d ago` counts back from.
    let now: Int64
    var values: [AudienceSQLValue]

    mutating func bind(_ value: AudienceSQLValue) -> String {
        values.append(value)
        return dialect.placeholder(values.count)
    }

    mutating func translate(_ expression: AudienceExpression, negated: Bool) -> String {
        switch expression {
        case .not(let inner):
            return translate(inner, negated: !negated)
        case .and, .or:
            // A chain of the same connective is one list, cheapest operands first: SQL stops at the first that
            // settles the result, so a tag lookup or a version key is computed only for rows still in question.
            var isAnd = false
            if case .and = expression { isAnd = true }
            let conjunction = isAnd != negated
            var operands: [AudienceExpression] = []
            Self.collect(expression, negated: negated, conjunction: conjunction, into: &operands)
            let ordered = operands.enumerated()
                .sorted { (Self.cost($0.element), $0.offset) < (Self.cost($1.element), $1.offset) }
                .map(\.element)
            var parts: [String] = []
            for operand in ordered { parts.append(translate(operand, negated: negated)) }
            return "(" + parts.joined(separator: conjunction ? " AND " : " OR ") + ")"
        case .condition(let condition):
            let positive = translate(condition)
            return negated ? "NOT COALESCE(\(positive), FALSE)" : positive
        case .attribute(let condition):
            let positive = translate(condition)
            return negated ? "NOT COALESCE(\(positive), FALSE)" : positive
        case .event(let condition):
            let positive = translate(condition)
            return negated ? "NOT COALESCE(\(positive), FALSE)" : positive
        }
    }

    /// The operands of the chain of `conjunction`s (under `negated`) that `expression` heads, left to right.
    private static func collect(
        _ expression: AudienceExpression, negated: Bool, conjunction: Bool, into operands: inout [AudienceExpression]
    ) {
        switch expression {
        case .and(let left, let right) where conjunction != negated,
            .or(let left, let right) where conjunction == negated:
            collect(left, negated: negated, conjunction: conjunction, into: &operands)
            collect(right, negated: negated, conjunction: conjunction, into: &operands)
        default:
            operands.append(expression)
        }
    }

    /// A rough rank of what evaluating `expression` per row costs: column comparisons, then language ranges
    /// (`LIKE`), then version keys and attributes (function calls), then tags and user attributes (a lookup in
    /// another table), then events (a set read once per statement, but the largest).
    private static func cost(_ expression: AudienceExpression) -> Int {
        switch expression {
        case .condition(let condition):
            switch condition.comparison {
            case .isNull, .isNotNull: 0
            default:
                switch condition.field.kind {
                case .tagSet: 3
                case .version: 2
                case .language: 1
                default: 0
                }
            }
        case .attribute(let condition): condition.scope == .user ? 3 : 2
        case .event: 4
        case .not(let inner): cost(inner)
        case .and(let left, let right), .or(let left, let right): max(cost(left), cost(right))
        }
    }

    /// True exactly when the condition holds; false or NULL otherwise.
    mutating func translate(_ condition: AudienceCondition) -> String {
        let field = condition.field
        switch condition.comparison {
        case .isNull: return "(\(Self.storedColumn(field)) IS NULL)"
        case .isNotNull: return "(\(Self.storedColumn(field)) IS NOT NULL)"
        default: break
        }
        switch field.kind {
        case .tagSet:
            let tags = condition.values.map { bind(parameter($0)) }
            let exists =
                "EXISTS (SELECT 1 FROM user_tags audience_tags WHERE audience_tags.app_id = i.app_id"
                + " AND audience_tags.user_id = i.user_id AND audience_tags.tag IN (\(tags.joined(separator: ", "))))"
            return condition.comparison == .equal || condition.comparison == .isIn ? exists : "NOT \(exists)"
        case .language:
            let column = "lower(i.language)"
            let matches = condition.values.map { value -> String in
                let tag = bind(parameter(value))
                let range = bind(.text((value.text ?? "") + "-%"))
                return "\(column) = \(tag) OR \(column) LIKE \(range)"
            }
            switch condition.comparison {
            case .equal, .isIn: return "(" + matches.joined(separator: " OR ") + ")"
            default:
                // Known and none of them: NULL (left out) when the language is unknown.
                return "(\(column) IS NOT NULL AND NOT (" + matches.joined(separator: " OR ") + "))"
            }
        default:
            let column = comparedColumn(field)
            switch condition.comparison {
            case .isIn, .isNotIn:
                let list = condition.values.map { bind(parameter($0)) }.joined(separator: ", ")
                return "(\(column) \(condition.comparison == .isIn ? "IN" : "NOT IN") (\(list)))"
            case .notEqual:
                return "(\(column) <> \(bind(parameter(condition.values[0]))))"
            default:
                return "(\(column) \(condition.comparison.rawValue) \(bind(parameter(condition.values[0]))))"
            }
        }
    }

    /// The column a value is compared with.
    private func comparedColumn(_ field: AudienceField) -> String {
        switch field {
        case .region: "upper(i.country)"
        case .platform: "lower(i.platform)"
        case .appVersion: dialect.appVersionKey
        case .osVersion: dialect.versionKey("i.os_version")
        default: Self.storedColumn(field)
        }
    }

    /// The column `is null` tests.
    private static func storedColumn(_ field: AudienceField) -> String {
        switch field {
        case .installationID: "i.installation_id"
        case .userID: "i.user_id"
        case .tag: "i.user_id"
        case .language: "i.language"
        case .region: "i.country"
        case .timeZone: "i.timezone"
        case .appVersion: "i.app_version"
        case .osVersion: "i.os_version"
        case .platform: "i.platform"
        case .pushRoute:
            // The service an alert goes through: APNs when the installation has an APNs token, else FCM.
            "(CASE WHEN i.apns_token IS NOT NULL THEN 'apns' WHEN i.fcm_token IS NOT NULL THEN 'fcm' END)"
        case .lastSeen: "i.updated_at"
        case .firstSeen: "i.created_at"
        case .consentNotifications: "i.consent_notifications"
        case .consentAds: "i.consent_ads"
        case .consentNightAds: "i.consent_night_ads"
        }
    }

    private func parameter(_ value: AudienceValue) -> AudienceSQLValue {
        switch value {
        case .text(let text): .text(text)
        case .version(_, let key): .text(key)
        case .boolean(let flag): .integer(flag ? 1 : 0)
        case .secondsAgo(let seconds): .integer(now - seconds * 1000)
        case .time(let milliseconds): .integer(milliseconds)
        }
    }
}
