import Testing
import TidingsStore

/// The parser's terms beyond installation fields: attributes (typed by how the value is written), events, and
/// saved segments expanded in place, with what each refuses and where.
@Suite struct AudienceTermsParsingTests {
    static let accepted: [(String, String)] = [
        ("attributes.plan = gold", #"attributes.plan = "gold""#),
        (#"attributes.plan = "42""#, #"attributes.plan = "42""#),
        ("attributes.orders >= 3", "attributes.orders >= 3"),
        ("attributes.score < -1.5", "attributes.score < -1.5"),
        ("user.vip = TRUE", "user.vip = true"),
        ("attributes.signed_up > 30d ago", "attributes.signed_up > 2592000s ago"),
        ("attributes.signed_up < 2026-11-01", #"attributes.signed_up < date "2026-11-01T00:00:00Z""#),
        (#"attributes.since >= date "2026-11-01T09:00:00+09:00""#, #"attributes.since >= date "2026-11-01T00:00:00Z""#),
        ("attributes.interests CONTAINS shoes", #"attributes.interests contains "shoes""#),
        ("attributes.plan in (gold, 3, true)", #"attributes.plan in ("gold", 3, true)"#),
        ("user.plan not in (gold)", #"user.plan not in ("gold")"#),
        ("attributes.plan is not null", "attributes.plan is not null"),
        ("attributes.date = date", #"attributes.date = "date""#),
        ("event purchase", "event purchase count >= 1"),
        ("EVENT purchase COUNT >= 2 WITHIN 30d", "event purchase count >= 2 within 2592000s"),
        ("not event app_open within 2w", "(not event app_open count >= 1 within 1209600s)"),
        ("event open count = 0", "event open count = 0"),
    ]

    @Test(arguments: accepted)
    func parsesEachTermAndItsTextParsesBack(text: String, expected: String) throws {
        let parsed = try AudienceExpression.parse(text)
        #expect(parsed.description == expected)
        #expect(try AudienceExpression.parse(parsed.description) == parsed)
    }

    static let refused: [(String, AudienceExpressionError.Code, Int, String)] = [
        ("attributes.first-name = x", .invalidValue, 1, "does not name an attribute"),
        ("attributes. = x", .invalidValue, 1, "does not name an attribute"),
        ("attributes.vip > true", .unsupportedOperator, 16, "'=' or '!='"),
        ("attributes.tags contains 3", .invalidValue, 26, "not a string"),
        ("attributes.plan ~ x", .unexpectedToken, 17, "contains"),
        ("attributes.plan", .unexpectedEnd, 16, "an operator"),
        (#"attributes.since > date "soon""#, .invalidValue, 25, "not a date"),
        ("attributes.since > date 3", .unexpectedToken, 25, "'and', 'or' or the end"),
        ("event Purchase", .invalidValue, 7, "not an event type"),
        ("event", .unexpectedEnd, 6, "a value for 'event'"),
        ("event purchase count 2", .unexpectedToken, 22, "a comparison after 'count'"),
        ("event purchase count >= two", .invalidValue, 25, "whole number from 0 to 1000000"),
        ("event purchase count >= 1000001", .invalidValue, 25, "whole number"),
        ("event purchase within 30", .invalidValue, 23, "not a duration"),
        ("event purchase within 4000d", .invalidValue, 23, "the limit"),
        ("event purchase within 30d or", .unexpectedEnd, 29, "a condition"),
        ("segment:buyers", .unknownSegment, 9, "no segment named 'buyers'"),
        ("segment buyers", .unexpectedToken, 9, "':'"),
        ("attributz.plan = x", .unknownField, 1, "attributes.KEY, user.KEY, event TYPE and segment:NAME"),
    ]

    @Test(arguments: refused.map(\.0))
    func refusesWithTheReasonAndColumn(_ text: String) throws {
        let (_, code, column, message) = try #require(Self.refused.first { $0.0 == text })
        let error = try #require(throws: AudienceExpressionError.self) { try AudienceExpression.parse(text) }
        #expect(error.code == code, "\(text): \(error)")
        #expect(error.column == column, "\(text): \(error)")
        #expect(error.message.contains(message), "\(text): \(error)")
    }

    static let segments = [
        "buyers": "event purchase count >= 2 within 30d",
        "gold_buyers": "segment:buyers and attributes.plan = gold",
        "loop_a": "tag:x or segment:loop_b",
        "loop_b": "segment:loop_a",
        "broken": "tag:vip and",
        "self": "segment:self",
    ]

    @Test func segmentsAreExpandedInPlace() throws {
        let expanded = try AudienceExpression.parse("segment:gold_buyers or tag:vip", segments: Self.segments)
        let written = try AudienceExpression.parse(
            "(event purchase count >= 2 within 30d and attributes.plan = gold) or tag:vip")
        #expect(expanded == written)
        #expect(try AudienceExpression.parse(expanded.description) == expanded)
        #expect(
            try AudienceExpression.parse(#"segment = "buyers""#, segments: Self.segments)
                == AudienceExpression.parse("segment:buyers", segments: Self.segments))
    }

    @Test func segmentCyclesAndBrokenSegmentsAreRefusedWhereTheyAreNamed() throws {
        let cycle = try #require(throws: AudienceExpressionError.self) {
            try AudienceExpression.parse("tag:a and segment:loop_a", segments: Self.segments)
        }
        #expect(cycle.code == .segmentCycle)
        #expect(cycle.column == 19)
        #expect(cycle.message.contains("'loop_a' → 'loop_b' → 'loop_a'"), "\(cycle)")
        let selfish = try #require(throws: AudienceExpressionError.self) {
            try AudienceExpression.parse("segment:self", segments: Self.segments)
        }
        #expect(selfish.code == .segmentCycle)
        let broken = try #require(throws: AudienceExpressionError.self) {
            try AudienceExpression.parse("segment:broken", segments: Self.segments)
        }
        #expect(broken.code == .unexpectedEnd)
        #expect(broken.column == 9)
        #expect(broken.message.contains("in segment 'broken'") && broken.message.contains("column 12"), "\(broken)")
    }

    /// A segment's conditions count against the limits of the expression that names it.
    @Test func segmentsCountTowardsTheLimits() throws {
        let many = (1...60).map { "tag:t\($0)" }.joined(separator: " or ")
        let error = try #require(throws: AudienceExpressionError.self) {
            try AudienceExpression.parse("segment:many and (\(many))", segments: ["many": many])
        }
        #expect(error.code == .tooManyTerms)
    }
}
