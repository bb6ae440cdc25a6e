/// One test of a custom attribute: `attributes.plan = gold`, `user.orders >= 3`, `attributes.interests contains
/// shoes`, `user.vip is null`.
///
/// The value written decides the type compared: a number compares only with number attributes, `true`/`false`
/// only with booleans, a time (`30d ago`, an unquoted date) only with dates, anything else only with strings. An
/// attribute the installation (or its user) lacks, or holds in another type, makes the comparison false.
public struct AudienceAttributeCondition: Sendable, Hashable {
    /// Whose attributes are tested.
    public enum Scope: String, Sendable, Hashable {
        /// The installation's own (`attributes.KEY`).
        case installation = "attributes"
        /// The profile of the installation's user (`user.KEY`), the same for every device of the user.
        case user
    }

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
        /// A list attribute holds the string.
        case contains
    }

    public var scope: Scope
    /// The attribute's key, as the app wrote it (keys are case-sensitive).
    public var key: String
    public var comparison: Operator
    /// One value, several for `in` and `not in`, none for `is null` and `is not null`.
    public var values: [AudienceAttributeValue]

    public init(scope: Scope, key: String, comparison: Operator, values: [AudienceAttributeValue]) {
        self.scope = scope
        self.key = key
        self.comparison = comparison
        self.values = values
    }

    /// How the condition is written, so that parsing it again gives it back.
    public var text: String {
        let field = "\(scope.rawValue).\(key)"
        switch comparison {
        case .isNull, .isNotNull: return "\(field) \(comparison.rawValue)"
        case .isIn, .isNotIn:
            return "\(field) \(comparison.rawValue) (\(values.map(\.description).joined(separator: ", ")))"
        default: return "\(field) \(comparison.rawValue) \(values.first?.description ?? "")"
        }
    }
}
