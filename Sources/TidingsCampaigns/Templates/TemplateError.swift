/// Why a message template does not parse or might not render, and where.
public struct TemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// `{{` without its `}}`.
        case unclosedTag = "unclosed_tag"
        /// `{{ }}` with nothing inside.
        case emptyTag = "empty_tag"
        /// `{{` inside a tag (outside a quoted string).
        case nestedTag = "nested_tag"
        /// A character that cannot come here.
        case unexpectedCharacter = "unexpected_character"
        /// A quoted string without its closing quote.
        case unterminatedString = "unterminated_string"
        /// A backslash before anything but a quote or a backslash.
        case invalidEscape = "invalid_escape"
        /// A name that is neither `attributes.NAME` nor a known `installation.FIELD`.
        case unknownVariable = "unknown_variable"
        /// A filter that does not exist, or given the wrong argument.
        case invalidFilter = "invalid_filter"
        /// A reference that may be missing for some installation, without a `default`.
        case missingDefault = "missing_default"
        /// Too many tags, filters, or too long a template or string.
        case tooLong = "too_long"
    }

    public var code: Code
    /// The 0-based character offset of the problem in the template.
    public var position: Int
    public var message: String

    public init(code: Code, position: Int, message: String) {
        self.code = code
        self.position = position
        self.message = message
    }

    public var description: String { "\(message) (\(code.rawValue) at position \(position))" }
}
