/// Why a tag expression does not parse, and where.
public struct TagExpressionError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        case empty
        case unexpectedToken = "unexpected_token"
        case unexpectedEnd = "unexpected_end"
        case unbalancedParenthesis = "unbalanced_parenthesis"
        case tooLong = "too_long"
        case tooDeep = "too_deep"
    }

    public var code: Code
    /// The 0-based character offset of the problem.
    public var position: Int
    public var message: String

    public var description: String { "\(message) (at position \(position))" }
}
