import TidingsModel

/// The conditions beyond installation fields: custom attributes, events and saved segments.
extension AudienceExpressionParser {
    /// The longest event type, as events.md allows.
    static let maximumEventTypeBytes = 64

    /// `attributes.KEY OP VALUE`, `user.KEY OP VALUE`, `... contains VALUE`, `... [not] in (...)`,
    /// `... is [not] null`; the field token is current.
    mutating func parseAttribute(_ fieldToken: AudienceToken, scope: AudienceAttributeCondition.Scope, key: String)
        throws(AudienceExpressionError) -> AudienceAttributeCondition
    {
        let name = "\(scope.rawValue).\(key)"
        guard AttributeLimits().isValidKey(key) else {
            throw AudienceExpressionError(
                code: .invalidValue, column: fieldToken.column,
                message:
                    "'\(name)' does not name an attribute; a key is 1 to 64 characters of A-Z a-z 0-9 _, starting with a letter"
            )
        }
        index += 1
        guard let operatorToken = peek else { throw ended(expecting: "an operator after '\(name)'") }
        let comparison: AudienceAttributeCondition.Operator
        switch (operatorToken.kind, operatorToken.keyword) {
        case (.comparison(let written), _):
            guard let converted = AudienceAttributeCondition.Operator(rawValue: written.rawValue) else {
                throw unexpected(operatorToken, expecting: "an operator")
            }
            comparison = converted
        case (_, "in"): comparison = .isIn
        case (_, "not"):
            index += 1
            guard peek?.keyword == "in" else {
                if let next = peek { throw unexpected(next, expecting: "'in' after 'not'") }
                throw ended(expecting: "'in' after 'not'")
            }
            comparison = .isNotIn
        case (_, "is"):
            index += 1
            let negated = peek?.keyword == "not"
            if negated { index += 1 }
            guard peek?.keyword == "null" else {
                if let next = peek { throw unexpected(next, expecting: negated ? "'null'" : "'null' or 'not null'") }
                throw ended(expecting: "'null'")
            }
            comparison = negated ? .isNotNull : .isNull
        case (.word(let word), nil) where word.lowercased() == "contains":
            comparison = .contains
        default:
            throw unexpected(
                operatorToken, expecting: "an operator (=, !=, <, <=, >, >=, in, not in, is null, contains)")
        }
        index += 1
        var condition = AudienceAttributeCondition(scope: scope, key: key, comparison: comparison, values: [])
        switch comparison {
        case .isNull, .isNotNull:
            break
        case .isIn, .isNotIn:
            guard let open = peek else { throw ended(expecting: "'(' and a list of values") }
            guard open.kind == .open else { throw unexpected(open, expecting: "'(' and a list of values") }
            index += 1
            while true {
                condition.values.append(try parseAttributeValue(name))
                guard let next = peek else {
                    throw AudienceExpressionError(
                        code: .unbalancedParenthesis, column: open.column, message: "the list's '(' is never closed")
                }
                index += 1
                if next.kind == .close { break }
                guard next.kind == .comma else { throw unexpected(next, expecting: "',' or ')'") }
            }
        default:
            let valueToken = peek
            let value = try parseAttributeValue(name)
            if comparison == .contains, !value.isString {
                throw AudienceExpressionError(
                    code: .invalidValue, column: valueToken?.column ?? endColumn,
                    message: "'contains' tests a list of strings; \(value) is not a string")
            }
            if case .boolean = value, comparison != .equal, comparison != .notEqual {
                throw AudienceExpressionError(
                    code: .unsupportedOperator, column: operatorToken.column,
                    message: "a boolean is compared with '=' or '!=', not '\(comparison.rawValue)'")
            }
            condition.values = [value]
        }
        return condition
    }

    /// A value compared with an attribute, typed by how it is written: `true`/`false`, a number, a time
    /// (`30d ago`, `2026-11-01`, `date "2026-11-01T09:00:00+09:00"`), or else a string (quote one that looks
    /// like something else: `"42"`).
    mutating func parseAttributeValue(_ name: String) throws(AudienceExpressionError) -> AudienceAttributeValue {
        let (token, text) = try valueText(for: name)
        let bytes = text.utf8
        guard bytes.count <= Self.maximumValueBytes else {
            throw AudienceExpressionError(
                code: .invalidValue, column: token.column,
                message: "\(token.quoted) is longer than \(Self.maximumValueBytes) bytes, the limit for a value")
        }
        guard case .word = token.kind else { return .string(text) }
        switch text.lowercased() {
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "date":
            // `date "..."` is a date-time, which must be quoted for its colons; `date` alone is the string.
            guard let next = peek, case .string(let written) = next.kind else { return .string(text) }
            index += 1
            guard let milliseconds = Self.timestamp(written) else {
                throw AudienceExpressionError(
                    code: .invalidValue, column: next.column,
                    message: "\(next.quoted) is not a date; write 2026-11-01 or an RFC 3339 date-time with its offset")
            }
            return .date(milliseconds)
        default: break
        }
        if bytes.allSatisfy({ Self.isNumberByte($0) }), let number = Double(text), number.isFinite {
            return .number(number)
        }
        if let seconds = Self.durationSeconds(text), peek?.keyword == "ago" {
            index += 1
            guard seconds <= Self.maximumSecondsAgo else {
                throw AudienceExpressionError(
                    code: .invalidValue, column: token.column,
                    message: "\(token.quoted) reaches back more than \(Self.maximumSecondsAgo / 86400) days, the limit")
            }
            return .secondsAgo(seconds)
        }
        if bytes.count == 10, let milliseconds = Self.timestamp(text) { return .date(milliseconds) }
        return .string(text)
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
            || byte == UInt8(ascii: "+")
    }

    /// `event TYPE [count OP N] [within DURATION]`; the `event` token is current.
    mutating func parseEvent() throws(AudienceExpressionError) -> AudienceEventCondition {
        index += 1
        let (typeToken, type) = try valueText(for: "event")
        let typeBytes = type.utf8
        guard let first = typeBytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
            typeBytes.count <= Self.maximumEventTypeBytes,
            typeBytes.allSatisfy({
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || $0 == UInt8(ascii: "_")
            })
        else {
            throw AudienceExpressionError(
                code: .invalidValue, column: typeToken.column,
                message:
                    "\(typeToken.quoted) is not an event type; a type is 1 to 64 lowercase letters, digits or _, starting with a letter (open, purchase)"
            )
        }
        var condition = AudienceEventCondition(type: type)
        if case .word(let word) = peek?.kind, word.lowercased() == "count" {
            index += 1
            guard let operatorToken = peek, case .comparison(let comparison) = operatorToken.kind else {
                if let next = peek { throw unexpected(next, expecting: "a comparison after 'count' (>= 2)") }
                throw ended(expecting: "a comparison after 'count'")
            }
            index += 1
            let (countToken, countText) = try valueText(for: "count")
            guard let count = Int(countText), (0...AudienceEventCondition.maximumCount).contains(count) else {
                throw AudienceExpressionError(
                    code: .invalidValue, column: countToken.column,
                    message:
                        "\(countToken.quoted) is not a count; expected a whole number from 0 to \(AudienceEventCondition.maximumCount)"
                )
            }
            condition.comparison = comparison
            condition.count = count
        }
        if case .word(let word) = peek?.kind, word.lowercased() == "within" {
            index += 1
            let (durationToken, durationText) = try valueText(for: "within")
            guard let seconds = Self.durationSeconds(durationText), seconds > 0 else {
                throw AudienceExpressionError(
                    code: .invalidValue, column: durationToken.column,
                    message: "\(durationToken.quoted) is not a duration; write a number and s, m, h, d or w (30d)")
            }
            guard seconds <= Self.maximumSecondsAgo else {
                throw AudienceExpressionError(
                    code: .invalidValue, column: durationToken.column,
                    message:
                        "\(durationToken.quoted) reaches back more than \(Self.maximumSecondsAgo / 86400) days, the limit"
                )
            }
            condition.withinSeconds = seconds
        }
        return condition
    }

    /// `segment:NAME`: the saved segment's expression, parsed in place; the `segment` token is current.
    mutating func parseSegment(_ segmentToken: AudienceToken) throws(AudienceExpressionError) -> AudienceExpression {
        index += 1
        guard let colon = peek, colon.kind == .colon || colon.kind == .comparison(.equal) else {
            if let next = peek { throw unexpected(next, expecting: "':' and a segment's name (segment:active_buyers)") }
            throw ended(expecting: "':' and a segment's name")
        }
        index += 1
        let (nameToken, name) = try valueText(for: "segment")
        guard let text = segments[name] else {
            throw AudienceExpressionError(
                code: .unknownSegment, column: nameToken.column, message: "there is no segment named '\(name)'")
        }
        guard !expanding.contains(name) else {
            throw AudienceExpressionError(
                code: .segmentCycle, column: nameToken.column,
                message:
                    "segment '\(name)' refers to itself: \((expanding + [name]).map { "'\($0)'" }.joined(separator: " → "))"
            )
        }
        let tokens: [AudienceToken]
        do { tokens = try AudienceLexer.tokens(in: text) } catch { throw inSegment(name, error, at: nameToken) }
        var inner = AudienceExpressionParser(tokens: tokens, endColumn: text.count + 1)
        inner.segments = segments
        inner.expanding = expanding + [name]
        inner.depth = depth
        inner.terms = terms
        inner.values = values
        let expression: AudienceExpression
        do { expression = try inner.parseAll() } catch { throw inSegment(name, error, at: nameToken) }
        terms = inner.terms
        values = inner.values
        return expression
    }

    /// An error in a segment's own expression, pointed at where the segment is named, saying where it is inside.
    private func inSegment(_ name: String, _ error: AudienceExpressionError, at token: AudienceToken)
        -> AudienceExpressionError
    {
        switch error.code {
        case .unknownSegment, .segmentCycle, .tooManyTerms, .tooManyValues, .tooDeep:
            AudienceExpressionError(
                code: error.code, column: token.column, message: "in segment '\(name)': \(error.message)")
        default:
            AudienceExpressionError(
                code: error.code, column: token.column,
                message: "in segment '\(name)': \(error.message) (at column \(error.column) of its expression)")
        }
    }
}
