/// A boolean expression over user tags: `(vip AND ios) OR NOT churned`.
///
/// Operators are the upper-case words `NOT`, `AND` and `OR`, binding in that order (NOT tightest), with
/// parentheses to group. Anything else between spaces and parentheses is a tag. An installation without
/// a user has no tags, so `NOT churned` matches it.
///
/// ```swift
/// let expression = try TagExpression.parse("vip AND NOT churned")
/// expression.matches(["vip"])  // true
/// ```
public indirect enum TagExpression: Sendable, Hashable, CustomStringConvertible {
    case tag(String)
    case not(TagExpression)
    case and(TagExpression, TagExpression)
    case or(TagExpression, TagExpression)

    /// The longest expression accepted, in characters.
    public static let maximumLength = 4096

    /// Whether a user with `tags` matches.
    public func matches(_ tags: Set<String>) -> Bool {
        switch self {
        case .tag(let tag): tags.contains(tag)
        case .not(let inner): !inner.matches(tags)
        case .and(let left, let right): left.matches(tags) && right.matches(tags)
        case .or(let left, let right): left.matches(tags) || right.matches(tags)
        }
    }

    /// Every tag the expression names.
    public var tags: Set<String> {
        switch self {
        case .tag(let tag): [tag]
        case .not(let inner): inner.tags
        case .and(let left, let right), .or(let left, let right): left.tags.union(right.tags)
        }
    }

    /// Fully parenthesised, for logs and tests.
    public var description: String {
        switch self {
        case .tag(let tag): tag
        case .not(let inner): "(NOT \(inner))"
        case .and(let left, let right): "(\(left) AND \(right))"
        case .or(let left, let right): "(\(left) OR \(right))"
        }
    }

    /// Parses `text`.
    /// - Throws: ``TagExpressionError`` with the character offset of the problem.
    public static func parse(_ text: String) throws(TagExpressionError) -> TagExpression {
        guard text.count <= maximumLength else {
            throw TagExpressionError(
                code: .tooLong, position: maximumLength,
                message: "the expression is \(text.count) characters; the limit is \(maximumLength)")
        }
        var parser = TagExpressionParser(tokens: TagExpressionParser.tokenize(text), end: text.count)
        return try parser.parseAll()
    }
}
