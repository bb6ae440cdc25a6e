/// One test of an installation field: `app_version >= 2.3.1`, `language in (ja, en)`, `user_id is null`.
///
/// A comparison with a field the installation has no value for is false (so `language != ja` leaves out
/// installations without a language, and `not language = ja` takes them in); `is null` asks for it.
public struct AudienceCondition: Sendable, Hashable {
    public enum Operator: String, Sendable, Hashable {
        case equal = "="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case isIn = "in"
        case isNotIn = "not in"
        case isNull = "is null"
        case isNotNull = "is not null"
    }

    public var field: AudienceField
    public var comparison: Operator
    /// One value, several for `in` and `not in`, none for `is null` and `is not null`.
    public var values: [AudienceValue]

    public init(field: AudienceField, comparison: Operator, values: [AudienceValue]) {
        self.field = field
        self.comparison = comparison
        self.values = values
    }
}
