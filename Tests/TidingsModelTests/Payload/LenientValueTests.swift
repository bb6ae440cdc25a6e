import Foundation
import Testing
import TidingsModel

/// Every normalisation rule vendors force on us, one table each.
@Suite struct LenientValueTests {
    @Test(arguments: [
        (JSONValue.bool(true), true as Bool?), (.bool(false), false), (.integer(1), true), (.integer(0), false),
        (.double(1), true), (.string("1"), true), (.string("0"), false), (.string("true"), true),
        (.string("TRUE"), true), (.string("false"), false), (.string(" yes "), true), (.string("no"), false),
        (.integer(2), nil), (.string("maybe"), nil), (.null, nil), (.array([]), nil), (.object([:]), nil),
    ])
    func booleans(_ value: JSONValue, _ expected: Bool?) {
        #expect(LenientValue.bool(value) == expected)
    }

    @Test(arguments: [
        (JSONValue.integer(3), 3 as Int?), (.string("3"), 3), (.string(" 42 "), 42), (.double(5), 5),
        (.string("5.0"), 5), (.double(2.5), nil), (.string("x"), nil), (.bool(true), nil), (.double(.infinity), nil),
    ])
    func integers(_ value: JSONValue, _ expected: Int?) {
        #expect(LenientValue.int(value) == expected)
    }

    @Test(arguments: [
        (JSONValue.double(0.5), 0.5 as Double?), (.integer(1), 1), (.string("0.25"), 0.25), (.string("nan"), nil),
        (.bool(false), nil),
    ])
    func fractionalNumbers(_ value: JSONValue, _ expected: Double?) {
        #expect(LenientValue.double(value) == expected)
    }

    @Test(arguments: [
        (JSONValue.string("a"), "a" as String?), (.integer(9_223_372_036_854_775_807), "9223372036854775807"),
        (.double(12), "12"), (.double(1.5), "1.5"), (.bool(true), nil), (.null, nil),
    ])
    func identifiersAsText(_ value: JSONValue, _ expected: String?) {
        #expect(LenientValue.string(value) == expected)
    }

    @Test func nestedJSONSentAsAString() {
        #expect(LenientValue.object(.string(#"{"a": [1, "b"]}"#)) == ["a": [1, "b"]])
        #expect(LenientValue.array(.string(" [1, 2] ")) == [1, 2])
        #expect(LenientValue.object(.string("{broken")) == nil)
        #expect(LenientValue.object(.string("plain text")) == nil)
        #expect(LenientValue.object(.string("[1]")) == nil)
        #expect(LenientValue.expandingEmbeddedJSON(.string(#"{"k": true}"#)) == ["k": true])
        #expect(LenientValue.expandingEmbeddedJSON(.string("42")) == "42")
        #expect(LenientValue.expandingEmbeddedJSON(.string("{not json")) == "{not json")
    }

    @Test(arguments: [
        (JSONValue.integer(1_571_905_058), 1_571_905_058 as Double),
        (.string("1571905058"), 1_571_905_058),
        (.integer(1_571_905_058_123), 1_571_905_058.123),
        (.string("1571905058123"), 1_571_905_058.123),
        (.double(1_571_905_058.5), 1_571_905_058.5),
        (.string("2019-10-24T08:17:38Z"), 1_571_905_058),
        (.string("2019-10-24T17:17:38+09:00"), 1_571_905_058),
        (.string("2019-10-24T08:17:38.250Z"), 1_571_905_058.25),
    ])
    func timestampsInSecondsMillisecondsOrISO8601(_ value: JSONValue, _ seconds: Double) throws {
        let date = try #require(LenientValue.timestamp(value))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.0005)
    }

    @Test func theMillisecondThresholdIsTenToTheTwelfth() throws {
        // Just below the threshold a number is seconds, and that many seconds is past the year 9999.
        #expect(LenientValue.timestamp(.integer(999_999_999_999)) == nil)
        let lastSecond = try #require(LenientValue.timestamp(.integer(253_402_300_799)))
        let justAbove = try #require(LenientValue.timestamp(.integer(1_000_000_000_001)))
        #expect(lastSecond.timeIntervalSince1970 == 253_402_300_799)
        #expect(justAbove.timeIntervalSince1970 == 1_000_000_000.001)
    }

    @Test(arguments: [
        JSONValue.string("yesterday"), .bool(true), .null, .object([:]), .integer(-1), .double(1e300),
        .double(-.infinity), .integer(.max),
    ])
    func unreadableTimestamps(_ value: JSONValue) {
        #expect(LenientValue.timestamp(value) == nil)
    }
}
