/// One lexical unit of an audience expression, with the 1-based column it starts at.
struct AudienceToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case open
        case close
        case comma
        case colon
        /// `=`, `!=`, `<`, `<=`, `>`, `>=`.
        case comparison(AudienceCondition.Operator)
        /// A quoted string, unescaped.
        case string(String)
        /// Anything else between separators: a field name, a keyword or an unquoted value.
        case word(String)
    }

    var kind: Kind
    var column: Int

    /// The word in lower case when it is one of the language's keywords.
    var keyword: String? {
        guard case .word(let word) = kind else { return nil }
        let lowered = word.lowercased()
        return Self.keywords.contains(lowered) ? lowered : nil
    }

    static let keywords: Set<String> = ["and", "or", "not", "in", "is", "null", "ago"]

    /// How the token reads in an error message.
    var quoted: String {
        switch kind {
        case .open: "'('"
        case .close: "')'"
        case .comma: "','"
        case .colon: "':'"
        case .comparison(let comparison): "'\(comparison.rawValue)'"
        case .string(let text): "\"\(text)\""
        case .word(let word): "'\(word)'"
        }
    }
}
