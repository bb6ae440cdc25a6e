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
            return .not(
                try nested { (parser: inout TagExpressionParser) throws(TagExpressionError) in
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
