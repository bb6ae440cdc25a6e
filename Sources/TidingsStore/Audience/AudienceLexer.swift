/// Splits an audience expression into tokens: parentheses, commas, colons, comparison operators, quoted strings
/// (`"..."` or `'...'`, with `\` escaping the quote and itself) and words (runs of anything else but spaces).
enum AudienceLexer {
    static func tokens(in text: String) throws(AudienceExpressionError) -> [AudienceToken] {
        var tokens: [AudienceToken] = []
        let characters = Array(text)
        var index = 0
        func column(_ index: Int) -> Int { index + 1 }
        while index < characters.count {
            let character = characters[index]
            let start = index
            switch character {
            case _ where character.isWhitespace:
                index += 1
            case "(", ")", ",", ":":
                let kind: AudienceToken.Kind =
                    switch character {
                    case "(": .open
                    case ")": .close
                    case ",": .comma
                    default: .colon
                    }
                tokens.append(AudienceToken(kind: kind, column: column(start)))
                index += 1
            case "=", "<", ">", "!":
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let comparison: AudienceCondition.Operator
                switch (character, next) {
                case ("=", _): comparison = .equal
                case ("!", "="): comparison = .notEqual
                case ("<", "="): comparison = .lessOrEqual
                case ("<", ">"): comparison = .notEqual
                case ("<", _): comparison = .less
                case (">", "="): comparison = .greaterOrEqual
                case (">", _): comparison = .greater
                default:
                    throw AudienceExpressionError(
                        code: .unexpectedToken, column: column(start),
                        message: "unexpected '!'; write '!=' to compare, or 'not' to negate")
                }
                index += comparison.rawValue.count
                tokens.append(AudienceToken(kind: .comparison(comparison), column: column(start)))
            case "\"", "'":
                var value = ""
                index += 1
                var closed = false
                while index < characters.count {
                    let inner = characters[index]
                    if inner == "\\", index + 1 < characters.count,
                        characters[index + 1] == character || characters[index + 1] == "\\"
                    {
                        value.append(characters[index + 1])
                        index += 2
                    } else if inner == character {
                        index += 1
                        closed = true
                        break
                    } else {
                        value.append(inner)
                        index += 1
                    }
                }
                guard closed else {
                    throw AudienceExpressionError(
                        code: .unterminatedString, column: column(start),
                        message: "the string that starts here is never closed with \(character)")
                }
                tokens.append(AudienceToken(kind: .string(value), column: column(start)))
            default:
                var word = ""
                while index < characters.count, !isSeparator(characters[index]) {
                    word.append(characters[index])
                    index += 1
                }
                tokens.append(AudienceToken(kind: .word(word), column: column(start)))
            }
        }
        return tokens
    }

    private static func isSeparator(_ character: Character) -> Bool {
        character.isWhitespace || "(),:=<>!\"'".contains(character)
    }
}
