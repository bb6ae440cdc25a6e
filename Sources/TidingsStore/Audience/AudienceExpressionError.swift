/// Why an audience expression does not parse, and where.
///
/// `column` is 1-based and counts characters, so a console or terminal can underline the spot:
///
/// ```swift
/// do { _ = try AudienceExpression.parse("language = ja and") } catch {
///     print(error.pointing(into: "language = ja and"))
///     // language = ja and
///     //                  ^ the expression ends where a condition was expected
/// }
/// ```
public struct AudienceExpressionError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        case empty
        case unexpectedToken = "unexpected_token"
        case unexpectedEnd = "unexpected_end"
        case unbalancedParenthesis = "unbalanced_parenthesis"
        case unterminatedString = "unterminated_string"
        case unknownField = "unknown_field"
        case unsupportedOperator = "unsupported_operator"
        case invalidValue = "invalid_value"
        case tooLong = "too_long"
        case tooDeep = "too_deep"
        case tooManyTerms = "too_many_terms"
        case tooManyValues = "too_many_values"
        case unknownSegment = "unknown_segment"
        case segmentCycle = "segment_cycle"
    }

    public var code: Code
    /// The 1-based character column of the problem; one past the last character when the text ends too soon.
    public var column: Int
    /// What is wrong, without the position (which ``description`` adds).
    public var message: String

    public init(code: Code, column: Int, message: String) {
        self.code = code
        self.column = column
        self.message = message
    }

    public var description: String { "\(message) (at column \(column))" }

    /// `text` on one line and a caret under the problem followed by the message on the next.
    public func pointing(into text: String) -> String {
        let line = text.map { $0.isNewline ? " " : $0 }
        return String(line) + "\n" + String(repeating: " ", count: max(0, column - 1)) + "^ " + message
    }
}
