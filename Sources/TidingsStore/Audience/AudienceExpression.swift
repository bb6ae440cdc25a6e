/// Who a message goes to, as one boolean expression over installation fields and user tags.
///
/// ```swift
/// let audience = try AudienceExpression.parse(
///     #"tag:vip and language in (ja, en) and app_version >= 2.3.1 and last_seen > 30d ago"#)
/// ```
///
/// The language is described in docs/audiences.md. Parsing checks every field name, operator and value, so a
/// parsed expression always translates to SQL; the store evaluates it (``AudienceStore``).
public indirect enum AudienceExpression: Sendable, Hashable, CustomStringConvertible {
    case condition(AudienceCondition)
    case not(AudienceExpression)
    case and(AudienceExpression, AudienceExpression)
    case or(AudienceExpression, AudienceExpression)

    /// The longest expression accepted, in characters.
    public static let maximumLength = 4096
    /// The deepest nesting of parentheses and `not`.
    public static let maximumDepth = 32
    /// The most conditions one expression may hold.
    public static let maximumTerms = 100
    /// The most values all of an expression's conditions may list together.
    public static let maximumValues = 1000

    /// Parses `text`.
    /// - Throws: ``AudienceExpressionError`` with the 1-based column of the problem.
    public static func parse(_ text: String) throws(AudienceExpressionError) -> AudienceExpression {
        let length = text.count
        guard length <= maximumLength else {
            throw AudienceExpressionError(
                code: .tooLong, column: maximumLength + 1,
                message: "the expression is \(length) characters; the limit is \(maximumLength)")
        }
        var parser = AudienceExpressionParser(tokens: try AudienceLexer.tokens(in: text), endColumn: length + 1)
        return try parser.parseAll()
    }

    /// Whether the expression tests the user (a tag or `user_id`): deliveries then remember who they were for.
    public var involvesUser: Bool {
        switch self {
        case .condition(let condition): condition.field == .tag || condition.field == .userID
        case .not(let inner): inner.involvesUser
        case .and(let left, let right), .or(let left, let right): left.involvesUser || right.involvesUser
        }
    }

    /// Fully parenthesised, for logs and tests.
    public var description: String {
        switch self {
        case .condition(let condition):
            switch condition.comparison {
            case .isNull, .isNotNull: "\(condition.field.rawValue) \(condition.comparison.rawValue)"
            case .isIn, .isNotIn:
                "\(condition.field.rawValue) \(condition.comparison.rawValue) (\(condition.values.map(\.description).joined(separator: ", ")))"
            default:
                "\(condition.field.rawValue) \(condition.comparison.rawValue) \(condition.values.first?.description ?? "")"
            }
        case .not(let inner): "(not \(inner))"
        case .and(let left, let right): "(\(left) and \(right))"
        case .or(let left, let right): "(\(left) or \(right))"
        }
    }
}
