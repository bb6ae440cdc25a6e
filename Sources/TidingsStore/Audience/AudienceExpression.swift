/// Who a message goes to, as one boolean expression over installation fields, user tags, custom attributes of
/// installations and users, and the events installations sent.
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
    case attribute(AudienceAttributeCondition)
    case event(AudienceEventCondition)
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

    /// Parses `text`, putting the expression of each saved segment it names (`segment:NAME`, looked up in
    /// `segments`, name to expression) in its place.
    /// - Throws: ``AudienceExpressionError`` with the 1-based column of the problem.
    public static func parse(_ text: String, segments: [String: String] = [:]) throws(AudienceExpressionError)
        -> AudienceExpression
    {
        let length = text.count
        guard length <= maximumLength else {
            throw AudienceExpressionError(
                code: .tooLong, column: maximumLength + 1,
                message: "the expression is \(length) characters; the limit is \(maximumLength)")
        }
        var parser = AudienceExpressionParser(tokens: try AudienceLexer.tokens(in: text), endColumn: length + 1)
        parser.segments = segments
        return try parser.parseAll()
    }

    /// Whether the expression tests the user (a tag or `user_id`): deliveries then remember who they were for.
    public var involvesUser: Bool {
        switch self {
        case .condition(let condition): condition.field == .tag || condition.field == .userID
        case .attribute(let condition): condition.scope == .user
        case .event: false
        case .not(let inner): inner.involvesUser
        case .and(let left, let right), .or(let left, let right): left.involvesUser || right.involvesUser
        }
    }

    /// Fully parenthesised; parsing it gives the same expression, so it can stand for one whose segments were
    /// expanded.
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
        case .attribute(let condition): condition.text
        case .event(let condition): condition.text
        case .not(let inner): "(not \(inner))"
        case .and(let left, let right): "(\(left) and \(right))"
        case .or(let left, let right): "(\(left) or \(right))"
        }
    }
}
