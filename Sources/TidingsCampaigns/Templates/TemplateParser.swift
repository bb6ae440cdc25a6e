/// Reads a template: text with `{{ expression | filter: "argument" | filter }}` tags.
///
/// tag := `{{` expression (`|` filter)* `}}`; expression := name(`.`name)* | string;
/// filter := name (`:` string)?; string := `"…"` or `'…'` with `\"`, `\'` and `\\` escapes.
/// Spaces are allowed between the parts. `}}` outside a tag is text; `{{` inside a tag is an error unless it is in
/// a quoted string, which is how a literal `{{` is written: `{{ "{{" }}`.
struct TemplateParser {
    /// The most tags one template may hold.
    static let maximumTags = 32
    /// The most filters one tag may have.
    static let maximumFilters = 8
    /// The longest template, in characters.
    static let maximumLength = 4096
    /// The longest quoted string, in UTF-8 bytes.
    static let maximumLiteralBytes = 256

    private let characters: [Character]
    private var index = 0

    init(_ text: String) {
        characters = Array(text)
    }

    mutating func parse() throws(TemplateError) -> [Template.Segment] {
        guard characters.count <= Self.maximumLength else {
            throw TemplateError(
                code: .tooLong, position: Self.maximumLength,
                message: "a template may be at most \(Self.maximumLength) characters; this one has \(characters.count)")
        }
        var segments: [Template.Segment] = []
        var text = ""
        var tags = 0
        while index < characters.count {
            if isAt("{{") {
                tags += 1
                guard tags <= Self.maximumTags else {
                    throw TemplateError(
                        code: .tooLong, position: index,
                        message: "a template may have at most \(Self.maximumTags) tags")
                }
                if !text.isEmpty { segments.append(.text(text)) }
                text = ""
                segments.append(.tag(try tag()))
            } else {
                text.append(characters[index])
                index += 1
            }
        }
        if !text.isEmpty { segments.append(.text(text)) }
        return segments
    }

    private func isAt(_ pair: String) -> Bool {
        let pair = Array(pair)
        return index + 1 < characters.count && characters[index] == pair[0] && characters[index + 1] == pair[1]
    }

    private mutating func skipSpaces() {
        while index < characters.count, characters[index] == " " || characters[index] == "\t" { index += 1 }
    }

    private mutating func tag() throws(TemplateError) -> TemplateTag {
        let start = index
        index += 2
        skipSpaces()
        guard index < characters.count else { throw unclosed(start) }
        if isAt("}}") {
            throw TemplateError(code: .emptyTag, position: start, message: "a tag needs something inside: {{ }}")
        }
        let expression = try self.expression(tagStart: start)
        var filters: [TemplateFilter] = []
        while true {
            skipSpaces()
            guard index < characters.count else { throw unclosed(start) }
            if isAt("}}") {
                index += 2
                return TemplateTag(expression: expression, filters: filters, position: start)
            }
            if isAt("{{") { throw nested() }
            guard characters[index] == "|" else { throw unexpected("| or }}") }
            index += 1
            skipSpaces()
            guard filters.count < Self.maximumFilters else {
                throw TemplateError(
                    code: .tooLong, position: index, message: "a tag may have at most \(Self.maximumFilters) filters")
            }
            filters.append(try filter(tagStart: start))
        }
    }

    private mutating func expression(tagStart: Int) throws(TemplateError) -> TemplateTag.Expression {
        if isAt("{{") { throw nested() }
        if characters[index] == "\"" || characters[index] == "'" { return .literal(try string(tagStart: tagStart)) }
        let start = index
        var path: [String] = []
        while true {
            guard let name = name() else {
                throw unexpected("a name such as attributes.first_name, or a quoted string")
            }
            path.append(name)
            guard index < characters.count, characters[index] == "." else { break }
            index += 1
        }
        return .variable(try TemplateVariable.resolve(path, position: start))
    }

    private mutating func filter(tagStart: Int) throws(TemplateError) -> TemplateFilter {
        let start = index
        if index < characters.count && isAt("{{") { throw nested() }
        guard index < characters.count else { throw unclosed(tagStart) }
        guard let name = name() else {
            throw unexpected("a filter name (\(TemplateFilter.names.joined(separator: ", ")))")
        }
        skipSpaces()
        var argument: String?
        if index < characters.count, characters[index] == ":" {
            index += 1
            skipSpaces()
            guard index < characters.count else { throw unclosed(tagStart) }
            guard characters[index] == "\"" || characters[index] == "'" else { throw unexpected("a quoted string") }
            argument = try string(tagStart: tagStart)
        }
        return try TemplateFilter.make(name, argument: argument, position: start)
    }

    /// A name: a letter or `_`, then letters, digits and `_`; nil (nothing read) when none starts here.
    private mutating func name() -> String? {
        guard index < characters.count, characters[index].isASCII,
            characters[index].isLetter || characters[index] == "_"
        else { return nil }
        var name = ""
        while index < characters.count, characters[index].isASCII,
            characters[index].isLetter || characters[index].isNumber || characters[index] == "_"
        {
            name.append(characters[index])
            index += 1
        }
        return name
    }

    private mutating func string(tagStart: Int) throws(TemplateError) -> String {
        let start = index
        let quote = characters[index]
        index += 1
        var text = ""
        while true {
            guard index < characters.count else {
                throw TemplateError(
                    code: .unterminatedString, position: start, message: "a quoted string has no closing \(quote)")
            }
            let character = characters[index]
            if character == quote {
                index += 1
                break
            }
            if character == "\\" {
                guard index + 1 < characters.count, ["\"", "'", "\\"].contains(characters[index + 1]) else {
                    throw TemplateError(
                        code: .invalidEscape, position: index,
                        message: #"only \", \' and \\ may follow a backslash in a quoted string"#)
                }
                text.append(characters[index + 1])
                index += 2
                continue
            }
            text.append(character)
            index += 1
        }
        guard text.utf8.count <= Self.maximumLiteralBytes else {
            throw TemplateError(
                code: .tooLong, position: start,
                message:
                    "a quoted string may be at most \(Self.maximumLiteralBytes) bytes; this one has \(text.utf8.count)")
        }
        return text
    }

    private func unclosed(_ start: Int) -> TemplateError {
        TemplateError(code: .unclosedTag, position: start, message: "the tag opened here has no closing }}")
    }

    private func nested() -> TemplateError {
        TemplateError(
            code: .nestedTag, position: index,
            message: #"a tag cannot contain another tag; write a literal {{ as {{ "{{" }}"#)
    }

    private func unexpected(_ expected: String) -> TemplateError {
        let found = index < characters.count ? "'\(characters[index])'" : "the end"
        return TemplateError(
            code: .unexpectedCharacter, position: index, message: "expected \(expected), found \(found)")
    }
}
