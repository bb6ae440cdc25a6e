import Testing
import TidingsCampaigns

@Suite struct TemplateParserTests {
    func error(_ text: String) -> TemplateError? {
        do {
            _ = try Template.parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func textAndTagsWithFiltersAreRead() throws {
        let template = try Template.parse(
            #"Hi {{ attributes.first_name | default: "there" | upcase }}, {{installation.language|default:'en'}}!"#)
        #expect(template.segments.count == 5)
        guard case .tag(let first) = template.segments[1], case .tag(let second) = template.segments[3] else {
            Issue.record("tags not found: \(template.segments)")
            return
        }
        #expect(first.expression == .variable(.attribute("first_name")))
        #expect(first.filters == [.default("there"), .upcase])
        #expect(first.position == 3)
        #expect(second.expression == .variable(.installation(.language)))
        #expect(second.filters == [.default("en")])
        #expect(template.segments[0] == .text("Hi "))
        #expect(template.segments[4] == .text("!"))
        guard case .tag(let user)? = try Template.parse("{{ user.first_name }}").segments.first else {
            Issue.record("the user tag is not found")
            return
        }
        #expect(user.expression == .variable(.userAttribute("first_name")))
    }

    @Test func textWithoutTagsAndStrayClosingBracesIsText() throws {
        #expect(try Template.parse("Plain }} text { here").segments == [.text("Plain }} text { here")])
        #expect(try Template.parse("").segments.isEmpty)
        #expect(!Template.mayContainTags("a { b } c"))
    }

    @Test func quotedStringsEscapeBracesQuotesAndBackslashes() throws {
        let template = try Template.parse(#"{{ "{{" }}x{{ 'it\'s' }}{{ "a\"b\\c}}" }}"#)
        #expect(
            template.segments == [
                .tag(TemplateTag(expression: .literal("{{"), filters: [], position: 0)), .text("x"),
                .tag(TemplateTag(expression: .literal("it's"), filters: [], position: 11)),
                .tag(TemplateTag(expression: .literal(#"a"b\c}}"#), filters: [], position: 24)),
            ])
    }

    @Test(arguments: [
        ("Hi {{attributes.name", TemplateError.Code.unclosedTag, 3),
        ("Hi {{ }}", .emptyTag, 3),
        ("{{ attributes.a {{ b }} }}", .nestedTag, 16),
        ("{{ {{ }}", .nestedTag, 3),
        ("{{ attributes.a | {{ }}", .nestedTag, 18),
        ("{{ attributes.a b }}", .unexpectedCharacter, 16),
        ("{{ attributes. }}", .unexpectedCharacter, 14),
        ("{{ 42 }}", .unexpectedCharacter, 3),
        (#"{{ "open }}"#, .unterminatedString, 3),
        (#"{{ "a\n" }}"#, .invalidEscape, 5),
        ("{{ users.name }}", .unknownVariable, 3),
        ("{{ user.a.b }}", .unknownVariable, 3),
        ("{{ attributes }}", .unknownVariable, 3),
        ("{{ installation.password }}", .unknownVariable, 3),
        ("{{ attributes.a.b }}", .unknownVariable, 3),
        ("{{ attributes._x }}", .unknownVariable, 3),
        ("{{ attributes.a | shout }}", .invalidFilter, 18),
        ("{{ attributes.a | default }}", .invalidFilter, 18),
        ("{{ attributes.a | upcase: \"x\" }}", .invalidFilter, 18),
        ("{{ attributes.a | date: \"%Q\" }}", .invalidFilter, 18),
        ("{{ attributes.a | default: there }}", .unexpectedCharacter, 27),
        ("{{ attributes.a | }}", .unexpectedCharacter, 18),
    ])
    func malformedTemplatesSayWhatAndWhere(_ text: String, _ code: TemplateError.Code, _ position: Int) {
        let error = error(text)
        #expect(error?.code == code, "\(text): \(String(describing: error))")
        #expect(error?.position == position, "\(text): \(String(describing: error))")
        #expect(error?.message.isEmpty == false)
    }

    @Test func positionsCountCharactersNotBytes() {
        #expect(error("こんにちは {{ nope.x }}")?.position == 9)
    }

    @Test func limitsAreNamedWhenHit() {
        let manyTags = String(repeating: "{{ installation.id }}", count: 33)
        #expect(error(manyTags)?.code == .tooLong)
        #expect(error(manyTags)?.message.contains("at most 32 tags") == true)
        #expect(error(String(repeating: "{{ installation.id }}", count: 32)) == nil)
        let manyFilters = "{{ installation.id" + String(repeating: " | upcase", count: 9) + " }}"
        #expect(error(manyFilters)?.message.contains("at most 8 filters") == true)
        let longLiteral = "{{ \"" + String(repeating: "a", count: 257) + "\" }}"
        #expect(error(longLiteral)?.message.contains("at most 256 bytes") == true)
        let longText = String(repeating: "a", count: 4097)
        #expect(error(longText)?.message.contains("at most 4096 characters") == true)
    }

    @Test func aTagThatMightBeMissingNeedsADefault() throws {
        for text in [
            "{{ installation.id }}", "{{ installation.platform | upcase }}", #"{{ "x" }}"#,
            #"{{ attributes.a | downcase | default: "x" }}"#, #"{{ installation.language | default: "" }}"#,
        ] {
            #expect(throws: Never.self) { try Template.parse(text).requireRendersForEveryone() }
        }
        let missing = #expect(throws: TemplateError.self) {
            try Template.parse("Hello {{ attributes.first_name | upcase }}").requireRendersForEveryone()
        }
        #expect(missing?.code == .missingDefault)
        #expect(missing?.position == 6)
        #expect(missing?.message.contains(#"{{attributes.first_name | default: "..."}}"#) == true)
        let field = #expect(throws: TemplateError.self) {
            try Template.parse("{{ installation.country }}").requireRendersForEveryone()
        }
        #expect(field?.code == .missingDefault)
        let profile = #expect(throws: TemplateError.self) {
            try Template.parse("{{ user.first_name }}").requireRendersForEveryone()
        }
        #expect(profile?.code == .missingDefault, "a device with nobody logged in has no profile")
    }

    /// Every prefix and every one-character deletion of valid templates parses or fails with a position inside
    /// the text: the parser never traps on truncated or shuffled input.
    @Test func truncatedAndMutatedInputFailsCleanly() {
        let samples = [
            #"Hi {{ attributes.first_name | default: "there" | capitalize }}, {{ "{{" }} {{installation.id}}"#,
            #"{{ attributes.d | date: "%Y-%m-%d %%" | default: 'n\'a' }}"#,
        ]
        for sample in samples {
            let characters = Array(sample)
            var inputs: [String] = []
            for end in 0...characters.count { inputs.append(String(characters[..<end])) }
            for index in characters.indices {
                var mutated = characters
                mutated.remove(at: index)
                inputs.append(String(mutated))
                inputs.append(String(characters.shuffled()))
            }
            for input in inputs {
                if let error = error(input) {
                    #expect(error.position >= 0 && error.position <= input.count, "\(input): \(error)")
                }
            }
        }
    }
}
