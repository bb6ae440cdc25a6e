import Testing
import TidingsStore

/// The audience language's parser: what it accepts, what it refuses and where, its limits, and input fed a
/// character at a time or cut short.
@Suite struct AudienceExpressionTests {
    static let accepted: [(String, String)] = [
        ("tag:vip", #"tag = "vip""#),
        (#"tag:"tier:gold""#, #"tag = "tier:gold""#),
        ("TAG = vip AND NOT tag:churned", #"(tag = "vip" and (not tag = "churned"))"#),
        ("language in (ja, \"en\")", #"language in ("ja", "en")"#),
        ("language = pt-BR", #"language = "pt-br""#),
        ("region in (jp, KR)", #"region in ("JP", "KR")"#),
        ("app_version >= 2.3.1", #"app_version >= "2.3.1""#),
        ("os_version<17", #"os_version < "17""#),
        ("platform = IOS", #"platform = "ios""#),
        ("push_route != fcm", #"push_route != "fcm""#),
        ("last_seen > 30d ago", "last_seen > 2592000s ago"),
        ("first_seen <= 2w AGO", "first_seen <= 1209600s ago"),
        (#"last_seen < "2026-11-01""#, #"last_seen < "2026-11-01T00:00:00Z""#),
        ("consent.ads = true", "consent.ads = true"),
        ("consent.night_ads <> false", "consent.night_ads != false"),
        ("user_id is null", "user_id is null"),
        ("time_zone is not null", "time_zone is not null"),
        ("time_zone = Asia/Tokyo", #"time_zone = "Asia/Tokyo""#),
        ("installation_id not in (a, 'b\\'c')", #"installation_id not in ("a", "b'c")"#),
        ("tag:a or tag:b and tag:c", #"(tag = "a" or (tag = "b" and tag = "c"))"#),
        ("(tag:a or tag:b) and tag:c", #"((tag = "a" or tag = "b") and tag = "c")"#),
        ("not not tag:a", #"(not (not tag = "a"))"#),
    ]

    @Test(arguments: accepted)
    func parsesEveryFormIntoItsTree(text: String, expected: String) throws {
        #expect(try AudienceExpression.parse(text).description == expected)
    }

    static let refused: [(String, AudienceExpressionError.Code, Int, String)] = [
        ("", .empty, 1, "empty"),
        ("   ", .empty, 1, "empty"),
        ("langauge = ja", .unknownField, 1, "the fields are installation_id, user_id, tag, language"),
        ("tag:vip and", .unexpectedEnd, 12, "ends where a condition was expected"),
        ("tag:vip tag:gold", .unexpectedToken, 9, "expected 'and', 'or' or the end"),
        ("(tag:vip", .unbalancedParenthesis, 1, "never closed"),
        ("tag:vip)", .unbalancedParenthesis, 8, "without a matching"),
        ("tag:\"vip", .unterminatedString, 5, "never closed"),
        ("language ~ ja", .unexpectedToken, 10, "expected an operator"),
        ("language ! ja", .unexpectedToken, 10, "'!='"),
        ("last_seen = 3d ago", .unsupportedOperator, 11, "takes <, <=, >, >="),
        ("region:jp", .unsupportedOperator, 7, "only 'tag' takes ':'"),
        ("app_version >= 2.x", .invalidValue, 16, "dot-separated numbers"),
        ("app_version >= v2", .invalidValue, 16, "dot-separated numbers"),
        ("region = Japan", .invalidValue, 10, "two-letter"),
        ("push_route = sms", .invalidValue, 14, "apns or fcm"),
        ("consent.ads = yes", .invalidValue, 15, "true or false"),
        ("language = 日本", .invalidValue, 12, "BCP 47"),
        ("last_seen > 30d", .unexpectedEnd, 16, "'ago'"),
        ("last_seen > 30x ago", .invalidValue, 13, "relative time"),
        ("last_seen > 4000d ago", .invalidValue, 13, "the limit"),
        ("language in ja", .unexpectedToken, 13, "'('"),
        ("language in (ja en)", .unexpectedToken, 17, "',' or ')'"),
        ("language in (ja,", .unexpectedEnd, 17, "a value for 'language'"),
        ("language in (ja", .unbalancedParenthesis, 13, "never closed"),
        ("tag = and", .unexpectedToken, 7, "a value for 'tag'"),
        ("user_id is nothing", .unexpectedToken, 12, "'null'"),
        ("user_id not = u1", .unexpectedToken, 13, "'in' after 'not'"),
        ("and tag:a", .unexpectedToken, 1, "a field name"),
        ("tag:日本 and lang = x", .unknownField, 12, "unknown field 'lang'"),
    ]

    @Test(arguments: refused)
    func refusesMalformedInputWithItsColumn(
        text: String, code: AudienceExpressionError.Code, column: Int, mention: String
    ) {
        #expect {
            try AudienceExpression.parse(text)
        } throws: { error in
            guard let error = error as? AudienceExpressionError else { return false }
            #expect(error.code == code, "\(text): \(error)")
            #expect(error.column == column, "\(text): \(error)")
            #expect(error.message.contains(mention), "\(text): \(error.message)")
            #expect(error.description.hasSuffix("(at column \(column))"))
            return true
        }
    }

    @Test func theCaretStandsUnderTheProblem() throws {
        let text = "tag:vip and langauge = ja"
        let error = try #require(throws: AudienceExpressionError.self) { try AudienceExpression.parse(text) }
        let lines = error.pointing(into: text).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2)
        #expect(lines[0] == text)
        #expect(lines[1].hasPrefix(String(repeating: " ", count: 12) + "^ unknown field 'langauge'"))
    }

    @Test func limitsAreEnforcedWithMessagesThatSayTheLimit() throws {
        let long = "tag:" + String(repeating: "x", count: AudienceExpression.maximumLength)
        let tooLong = try #require(throws: AudienceExpressionError.self) { try AudienceExpression.parse(long) }
        #expect(tooLong.code == .tooLong)
        #expect(tooLong.message.contains("the limit is 4096"))

        let deep = String(repeating: "(", count: 33) + "tag:a" + String(repeating: ")", count: 33)
        let tooDeep = try #require(throws: AudienceExpressionError.self) { try AudienceExpression.parse(deep) }
        #expect(tooDeep.code == .tooDeep)
        #expect(tooDeep.column == 33)
        #expect(tooDeep.message.contains("deeper than 32"))
        let nots = String(repeating: "not ", count: 33) + "tag:a"
        #expect(throws: AudienceExpressionError.self) { try AudienceExpression.parse(nots) }
        let deepEnough = String(repeating: "(", count: 32) + "tag:a" + String(repeating: ")", count: 32)
        #expect(throws: Never.self) { try AudienceExpression.parse(deepEnough) }

        let terms = (0...100).map { "tag:t\($0)" }.joined(separator: " or ")
        let tooMany = try #require(throws: AudienceExpressionError.self) { try AudienceExpression.parse(terms) }
        #expect(tooMany.code == .tooManyTerms)
        #expect(tooMany.message.contains("more than 100 conditions"))
        #expect(tooMany.column == terms.range(of: "tag:t100")!.lowerBound.utf16Offset(in: terms) + 1)
        let enough = (0..<100).map { "tag:t\($0)" }.joined(separator: " or ")
        #expect(throws: Never.self) { try AudienceExpression.parse(enough) }

        let list = "installation_id in (" + (0...1000).map { _ in "i" }.joined(separator: ",") + ")"
        let tooManyValues = try #require(throws: AudienceExpressionError.self) { try AudienceExpression.parse(list) }
        #expect(tooManyValues.code == .tooManyValues)
        #expect(tooManyValues.message.contains("more than 1000 values"))
    }

    /// Every prefix of good expressions either parses or fails with a typed error inside (or just past) the
    /// text, never crashing; a prefix that cuts a token short is never silently accepted as the whole.
    @Test(
        arguments: accepted.map(\.0) + [
            #"tag:vip and language in (ja, "en") and app_version >= 2.3.1 and platform = ios and last_seen > 30d ago and not consent.ads = false"#
        ])
    func dripFedAndTruncatedInputFailsCleanly(text: String) {
        let characters = Array(text)
        for length in 0...characters.count {
            let prefix = String(characters[0..<length])
            do {
                _ = try AudienceExpression.parse(prefix)
            } catch {
                #expect(error.column >= 1 && error.column <= length + 1, "\(prefix): \(error)")
            }
        }
    }

    /// Shuffled tokens of a good expression: whatever comes out is a parse or a positioned error.
    @Test func shuffledTokensFailWithPositionsInsideTheText() {
        let words = ["tag:vip", "and", "(", ")", "language", "in", "(ja,", "en)", "not", "or", ">=", "2.3.1", "\"x"]
        var generator = SplitMix(seed: 7)
        for _ in 0..<500 {
            let text = words.shuffled(using: &generator).prefix(Int(generator.next() % 10) + 1).joined(separator: " ")
            do {
                _ = try AudienceExpression.parse(text)
            } catch {
                #expect(error.column >= 1 && error.column <= text.count + 1, "\(text): \(error)")
            }
        }
    }

    @Test func involvesUserOnlyForTagsAndUserIDs() throws {
        #expect(try AudienceExpression.parse("tag:a or language = ja").involvesUser)
        #expect(try AudienceExpression.parse("not user_id is null").involvesUser)
        #expect(try !AudienceExpression.parse("language = ja and platform = ios").involvesUser)
    }
}

/// A small deterministic generator for shuffles.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
