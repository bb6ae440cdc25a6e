import Foundation
import TidingsModel

/// A recursive-descent parser over ``AudienceToken``s:
///
///     or        := and ("or" and)*
///     and       := not ("and" not)*
///     not       := "not" not | primary
///     primary   := "(" or ")" | condition
///     condition := "tag" ":" value
///                | field comparison value
///                | field ["not"] "in" "(" value ("," value)* ")"
///                | field "is" ["not"] "null"
///                | attribute "contains" value                    (attributes.KEY or user.KEY)
///                | "event" type ["count" comparison n] ["within" duration]
///                | "segment" ":" name                             (the segment's expression, parsed in place)
///
/// Keywords are matched without case. Every error carries the column of the token at fault.
struct AudienceExpressionParser {
    let tokens: [AudienceToken]
    /// The column one past the end of the text, where "ends too soon" errors point.
    let endColumn: Int
    var index = 0
    var depth = 0
    var terms = 0
    var values = 0
    /// Saved segments by name, whose expressions `segment:NAME` stands for.
    var segments: [String: String] = [:]
    /// The segments being expanded, outermost first: one named again is a cycle.
    var expanding: [String] = []

    /// The longest text value (ids, tags, time zones), in UTF-8 bytes.
    static let maximumValueBytes = 256
    /// The furthest back a relative time may reach: ten years.
    static let maximumSecondsAgo: Int64 = 10 * 366 * 24 * 3600

    init(tokens: [AudienceToken], endColumn: Int) {
        self.tokens = tokens
        self.endColumn = endColumn
    }

    mutating func parseAll() throws(AudienceExpressionError) -> AudienceExpression {
        guard !tokens.isEmpty else {
            throw AudienceExpressionError(code: .empty, column: 1, message: "the audience expression is empty")
        }
        let expression = try parseOr()
        if let token = peek {
            if token.kind == .close {
                throw AudienceExpressionError(
                    code: .unbalancedParenthesis, column: token.column, message: "')' without a matching '('")
            }
            throw unexpected(token, expecting: "'and', 'or' or the end")
        }
        return expression
    }

    var peek: AudienceToken? { index < tokens.count ? tokens[index] : nil }

    private mutating func parseOr() throws(AudienceExpressionError) -> AudienceExpression {
        var left = try parseAnd()
        while peek?.keyword == "or" {
            index += 1
            left = .or(left, try parseAnd())
        }
        return left
    }

    private mutating func parseAnd() throws(AudienceExpressionError) -> AudienceExpression {
        var left = try parseNot()
        while peek?.keyword == "and" {
            index += 1
            left = .and(left, try parseNot())
        }
        return left
    }

    private mutating func parseNot() throws(AudienceExpressionError) -> AudienceExpression {
        guard let token = peek else { throw ended(expecting: "a condition") }
        if token.keyword == "not" {
            index += 1
            try enter(token)
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        if token.kind == .open {
            index += 1
            try enter(token)
            defer { depth -= 1 }
            let inner = try parseOr()
            guard peek?.kind == .close else {
                if let next = peek { throw unexpected(next, expecting: "'and', 'or' or ')'") }
                throw AudienceExpressionError(
                    code: .unbalancedParenthesis, column: token.column, message: "'(' is never closed")
            }
            index += 1
            return inner
        }
        return try parseTerm()
    }

    mutating func enter(_ token: AudienceToken) throws(AudienceExpressionError) {
        depth += 1
        guard depth <= AudienceExpression.maximumDepth else {
            throw AudienceExpressionError(
                code: .tooDeep, column: token.column,
                message:
                    "the expression nests deeper than \(AudienceExpression.maximumDepth) levels of parentheses and 'not'"
            )
        }
    }

    /// A condition on a field, an attribute or events, or a saved segment's expression.
    private mutating func parseTerm() throws(AudienceExpressionError) -> AudienceExpression {
        guard let fieldToken = peek else { throw ended(expecting: "a condition") }
        guard case .word(let name) = fieldToken.kind, fieldToken.keyword == nil else {
            throw unexpected(fieldToken, expecting: "a field name, 'not' or '('")
        }
        let lowered = name.lowercased()
        if lowered == "segment" { return try parseSegment(fieldToken) }
        try countTerm(fieldToken)
        if lowered == "event" { return .event(try parseEvent()) }
        for scope in [AudienceAttributeCondition.Scope.installation, .user]
        where lowered.hasPrefix(scope.rawValue + ".") {
            return .attribute(
                try parseAttribute(fieldToken, scope: scope, key: String(name.dropFirst(scope.rawValue.count + 1))))
        }
        guard let field = AudienceField(rawValue: lowered) else {
            throw AudienceExpressionError(
                code: .unknownField, column: fieldToken.column,
                message:
                    "unknown field '\(name)'; the fields are \(AudienceField.names), attributes.KEY, user.KEY, event TYPE and segment:NAME (a tag is written tag:NAME)"
            )
        }
        index += 1
        return .condition(try parseCondition(field, name: name))
    }

    mutating func countTerm(_ token: AudienceToken) throws(AudienceExpressionError) {
        terms += 1
        guard terms <= AudienceExpression.maximumTerms else {
            throw AudienceExpressionError(
                code: .tooManyTerms, column: token.column,
                message: "the expression has more than \(AudienceExpression.maximumTerms) conditions")
        }
    }

    private mutating func parseCondition(_ field: AudienceField, name: String) throws(AudienceExpressionError)
        -> AudienceCondition
    {
        guard let operatorToken = peek else { throw ended(expecting: "an operator after '\(name)'") }
        let comparison: AudienceCondition.Operator
        switch (operatorToken.kind, operatorToken.keyword) {
        case (.colon, _):
            guard field == .tag else {
                throw AudienceExpressionError(
                    code: .unsupportedOperator, column: operatorToken.column,
                    message: "only 'tag' takes ':'; compare '\(field.rawValue)' with '=' or another operator")
            }
            comparison = .equal
            index += 1
        case (.comparison(let written), _):
            comparison = written
            index += 1
        case (_, "in"):
            comparison = .isIn
            index += 1
        case (_, "not"):
            index += 1
            guard peek?.keyword == "in" else {
                if let next = peek { throw unexpected(next, expecting: "'in' after 'not'") }
                throw ended(expecting: "'in' after 'not'")
            }
            comparison = .isNotIn
            index += 1
        case (_, "is"):
            index += 1
            var negated = false
            if peek?.keyword == "not" {
                negated = true
                index += 1
            }
            guard peek?.keyword == "null" else {
                if let next = peek { throw unexpected(next, expecting: negated ? "'null'" : "'null' or 'not null'") }
                throw ended(expecting: "'null'")
            }
            comparison = negated ? .isNotNull : .isNull
            index += 1
        default:
            throw unexpected(operatorToken, expecting: "an operator (=, !=, <, <=, >, >=, in, not in, is null)")
        }
        guard field.operators.contains(comparison) else {
            throw AudienceExpressionError(
                code: .unsupportedOperator, column: operatorToken.column,
                message:
                    "'\(field.rawValue)' does not take '\(comparison.rawValue)'; it takes \(field.operators.map(\.rawValue).joined(separator: ", "))"
            )
        }
        switch comparison {
        case .isNull, .isNotNull:
            return AudienceCondition(field: field, comparison: comparison, values: [])
        case .isIn, .isNotIn:
            return AudienceCondition(field: field, comparison: comparison, values: try parseList(field))
        default:
            return AudienceCondition(field: field, comparison: comparison, values: [try parseValue(field)])
        }
    }

    private mutating func parseList(_ field: AudienceField) throws(AudienceExpressionError) -> [AudienceValue] {
        guard let open = peek else { throw ended(expecting: "'(' and a list of values") }
        guard open.kind == .open else { throw unexpected(open, expecting: "'(' and a list of values") }
        index += 1
        var list: [AudienceValue] = []
        while true {
            list.append(try parseValue(field))
            guard let next = peek else {
                throw AudienceExpressionError(
                    code: .unbalancedParenthesis, column: open.column, message: "the list's '(' is never closed")
            }
            index += 1
            if next.kind == .close { return list }
            guard next.kind == .comma else { throw unexpected(next, expecting: "',' or ')'") }
        }
    }

    /// The next token as a value's text, counted against the limit on values.
    mutating func valueText(for name: String) throws(AudienceExpressionError) -> (AudienceToken, String) {
        guard let token = peek else { throw ended(expecting: "a value for '\(name)'") }
        let text: String
        switch token.kind {
        case .string(let string): text = string
        case .word(let word) where token.keyword == nil: text = word
        default: throw unexpected(token, expecting: "a value for '\(name)'")
        }
        index += 1
        values += 1
        guard values <= AudienceExpression.maximumValues else {
            throw AudienceExpressionError(
                code: .tooManyValues, column: token.column,
                message: "the expression lists more than \(AudienceExpression.maximumValues) values")
        }
        return (token, text)
    }

    private mutating func parseValue(_ field: AudienceField) throws(AudienceExpressionError) -> AudienceValue {
        let (token, text) = try valueText(for: field.rawValue)
        func invalid(_ expected: String) -> AudienceExpressionError {
            AudienceExpressionError(
                code: .invalidValue, column: token.column,
                message: "\(token.quoted) is not a valid value for '\(field.rawValue)'; expected \(expected)")
        }
        let bytes = text.utf8
        switch field.kind {
        case .text, .tagSet:
            guard !bytes.isEmpty, bytes.count <= Self.maximumValueBytes else {
                throw invalid("1 to \(Self.maximumValueBytes) bytes of text")
            }
            return .text(text)
        case .caseInsensitive:
            switch field {
            case .region:
                guard bytes.count == 2, bytes.allSatisfy(Self.isLetter) else {
                    throw invalid("a two-letter ISO 3166 code")
                }
                return .text(text.uppercased())
            case .pushRoute:
                let route = text.lowercased()
                guard route == "apns" || route == "fcm" else { throw invalid("apns or fcm") }
                return .text(route)
            default:
                guard (1...16).contains(bytes.count), bytes.allSatisfy(Self.isLetter) else {
                    throw invalid("a platform name of 1 to 16 letters (ios, android...)")
                }
                return .text(text.lowercased())
            }
        case .language:
            let subtags = text.split(separator: "-", omittingEmptySubsequences: false)
            guard let first = subtags.first, (1...8).contains(first.utf8.count), first.utf8.allSatisfy(Self.isLetter),
                subtags.dropFirst().allSatisfy({
                    (1...8).contains($0.utf8.count) && $0.utf8.allSatisfy(Self.isAlphanumeric)
                })
            else { throw invalid("a BCP 47 language tag such as ja or pt-BR") }
            return .text(text.lowercased())
        case .version:
            guard let key = VersionKey.key(text), Self.isPlainVersion(text) else {
                throw invalid("a version of dot-separated numbers such as 2.3.1")
            }
            return .version(text, key: key)
        case .boolean:
            switch text.lowercased() {
            case "true": return .boolean(true)
            case "false": return .boolean(false)
            default: throw invalid("true or false")
            }
        case .time:
            if case .word = token.kind, let seconds = Self.durationSeconds(text) {
                guard peek?.keyword == "ago" else {
                    if let next = peek { throw unexpected(next, expecting: "'ago' after '\(text)'") }
                    throw ended(expecting: "'ago' after '\(text)'")
                }
                index += 1
                guard seconds <= Self.maximumSecondsAgo else {
                    throw AudienceExpressionError(
                        code: .invalidValue, column: token.column,
                        message:
                            "\(token.quoted) reaches back more than \(Self.maximumSecondsAgo / 86400) days, the limit")
                }
                return .secondsAgo(seconds)
            }
            guard let milliseconds = Self.timestamp(text) else {
                throw invalid(
                    #"a relative time such as 30d ago (s, m, h, d or w) or a date such as "2026-11-01T09:00:00Z""#)
            }
            return .time(milliseconds)
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Whether `text` is only dot-separated numbers (`2.3.1`), as versions in expressions must be.
    static func isPlainVersion(_ text: String) -> Bool {
        let components = text.split(separator: ".", omittingEmptySubsequences: false)
        return components.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }
    }

    /// `30d` → seconds; units s, m, h, d and w.
    static func durationSeconds(_ text: String) -> Int64? {
        guard let unit = text.last, let amount = Int64(text.dropLast()), amount >= 0, text.utf8.count <= 12 else {
            return nil
        }
        let seconds: Int64
        switch unit {
        case "s": seconds = 1
        case "m": seconds = 60
        case "h": seconds = 3600
        case "d": seconds = 86400
        case "w": seconds = 7 * 86400
        default: return nil
        }
        return amount * seconds
    }

    /// A date (`2026-11-01`, midnight UTC) or an ISO 8601 date and time with its offset, as unix milliseconds.
    static func timestamp(_ text: String) -> Int64? {
        RFC3339.parse(text.utf8.count == 10 ? text + "T00:00:00Z" : text)
    }

    func ended(expecting: String) -> AudienceExpressionError {
        AudienceExpressionError(
            code: .unexpectedEnd, column: endColumn, message: "the expression ends where \(expecting) was expected")
    }

    func unexpected(_ token: AudienceToken, expecting: String) -> AudienceExpressionError {
        AudienceExpressionError(
            code: .unexpectedToken, column: token.column, message: "unexpected \(token.quoted); expected \(expecting)")
    }
}
