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

/// A recursive-descent parser: or := and (OR and)*; and := not (AND not)*; not := NOT not | primary;
/// primary := ( or ) | tag.
struct TagExpressionParser {
    struct Token {
        enum Kind: Equatable { case open, close, and, or, not, tag(String) }
        var kind: Kind
        var position: Int
    }

    static let maximumDepth = 64

    let tokens: [Token]
    let end: Int
    var index = 0
    var depth = 0

    init(tokens: [Token], end: Int) {
        self.tokens = tokens
        self.end = end
    }

    static func tokenize(_ text: String) -> [Token] {
        var tokens: [Token] = []
        var word = ""
        var wordStart = 0
        func flush() {
            guard !word.isEmpty else { return }
            let kind: Token.Kind =
                switch word {
                case "AND": .and
                case "OR": .or
                case "NOT": .not
                default: .tag(word)
                }
            tokens.append(Token(kind: kind, position: wordStart))
            word = ""
        }
        for (offset, character) in text.enumerated() {
            if character == "(" || character == ")" {
                flush()
                tokens.append(Token(kind: character == "(" ? .open : .close, position: offset))
            } else if character.isWhitespace {
                flush()
            } else {
                if word.isEmpty { wordStart = offset }
                word.append(character)
            }
        }
        flush()
        return tokens
    }

    mutating func parseAll() throws(TagExpressionError) -> TagExpression {
        guard !tokens.isEmpty else {
            throw TagExpressionError(code: .empty, position: 0, message: "the tag expression is empty")
        }
        let expression = try parseOr()
        if index < tokens.count {
            let token = tokens[index]
            if token.kind == .close {
                throw TagExpressionError(
                    code: .unbalancedParenthesis, position: token.position, message: "')' without a matching '('")
            }
            throw unexpected(token, expecting: "AND, OR or the end")
        }
        return expression
    }

    private mutating func parseOr() throws(TagExpressionError) -> TagExpression {
        var left = try parseAnd()
        while index < tokens.count, tokens[index].kind == .or {
            index += 1
            left = .or(left, try parseAnd())
        }
        return left
    }

    private mutating func parseAnd() throws(TagExpressionError) -> TagExpression {
        var left = try parseNot()
        while index < tokens.count, tokens[index].kind == .and {
            index += 1
            left = .and(left, try parseNot())
        }
        return left
    }

    private mutating func parseNot() throws(TagExpressionError) -> TagExpression {
        guard index < tokens.count else {
            throw TagExpressionError(
                code: .unexpectedEnd, position: end, message: "the expression ends where a tag was expected")
        }
        let token = tokens[index]
        switch token.kind {
        case .not:
            index += 1
            return .not(try nested { (parser: inout TagExpressionParser) throws(TagExpressionError) in
                try parser.parseNot()
            })
        case .open:
            index += 1
            let inner = try nested { (parser: inout TagExpressionParser) throws(TagExpressionError) in
                try parser.parseOr()
            }
            guard index < tokens.count, tokens[index].kind == .close else {
                throw TagExpressionError(
                    code: .unbalancedParenthesis, position: token.position, message: "'(' is never closed")
            }
            index += 1
            return inner
        case .tag(let tag):
            index += 1
            return .tag(tag)
        case .and, .or, .close:
            throw unexpected(token, expecting: "a tag, NOT or '('")
        }
    }

    private mutating func nested(
        _ body: (inout TagExpressionParser) throws(TagExpressionError) -> TagExpression
    ) throws(TagExpressionError) -> TagExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw TagExpressionError(
                code: .tooDeep, position: tokens[max(0, index - 1)].position,
                message: "the expression nests deeper than \(Self.maximumDepth) levels")
        }
        return try body(&self)
    }

    private func unexpected(_ token: Token, expecting: String) -> TagExpressionError {
        let text: String =
            switch token.kind {
            case .open: "'('"
            case .close: "')'"
            case .and: "AND"
            case .or: "OR"
            case .not: "NOT"
            case .tag(let tag): "'\(tag)'"
            }
        return TagExpressionError(
            code: .unexpectedToken, position: token.position,
            message: "unexpected \(text) at position \(token.position); expected \(expecting)")
    }
}
