import Testing
import TidingsModel

@Suite struct AttributeValueTests {
    @Test(arguments: [
        ("2026-12-24T09:00:00Z", Int64(1_798_102_800_000)),
        ("2026-12-24T18:00:00+09:00", 1_798_102_800_000),
        ("2026-12-24t09:00:00.25z", 1_798_102_800_250),
        ("2026-12-24T04:00:00.123456-05:00", 1_798_102_800_123),
        ("1970-01-01T00:00:00Z", 0),
        ("1969-12-31T23:59:59.999Z", -1),
        ("2024-02-29T00:00:00Z", 1_709_164_800_000),
    ])
    func rfc3339DateTimesAreRead(_ text: String, _ milliseconds: Int64) {
        #expect(RFC3339.parse(text) == milliseconds)
    }

    @Test(arguments: [
        "2026-12-24", "2026-12-24T09:00:00", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z", "2026-12-24T24:00:00Z",
        "2026-12-24T09:00:00.Z", "2026-12-24T09:00:00+0900", "2026-12-24T09:00:00Zjunk", "not a date at all, no",
        "0000-01-01T00:00:00Z",
    ])
    func malformedDateTimesAreRefused(_ text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test func datesAreWrittenInUTCWithMillisecondsOnlyWhenThereAreAny() {
        #expect(RFC3339.format(milliseconds: 1_798_102_800_000) == "2026-12-24T09:00:00Z")
        #expect(RFC3339.format(milliseconds: 1_798_102_800_250) == "2026-12-24T09:00:00.250Z")
        #expect(RFC3339.format(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        for milliseconds: Int64 in [0, 951_782_400_000, 4_102_444_799_999, -62_135_596_800_000] {
            #expect(RFC3339.parse(RFC3339.format(milliseconds: milliseconds)) == milliseconds)
        }
    }

    @Test func eachTypeIsReadFromItsJSONAndWrittenBack() throws {
        let cases: [(JSONValue, AttributeValue, String)] = [
            ("Aiko", .string("Aiko"), "Aiko"),
            (3, .number(3), "3"),
            (2.5, .number(2.5), "2.5"),
            (true, .bool(true), "true"),
            (["date": "2026-12-24T18:00:00+09:00"], .date(1_798_102_800_000), "2026-12-24T09:00:00Z"),
            (["shoes", "running"], .list(["shoes", "running"]), "shoes, running"),
            ([], .list([]), ""),
        ]
        for (json, value, text) in cases {
            let parsed = try AttributeValue.parse(json, key: "k")
            #expect(parsed == value)
            #expect(parsed.text == text)
            #expect(try AttributeValue.parse(parsed.json, key: "k") == value)
        }
        #expect(AttributeValue.date(1_798_102_800_000).json == ["date": "2026-12-24T09:00:00Z"])
        #expect(AttributeValue.number(3).json == .integer(3))
    }

    @Test func wrongShapesAndBrokenLimitsSayTheRule() {
        let limits = AttributeLimits()
        func message(_ json: JSONValue, key: String = "k") -> String? {
            do {
                _ = try AttributeValue.parse(json, key: key, limits: limits)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message([1, 2])?.contains("is a list, whose items must be strings") == true)
        #expect(message(["a": 1])?.contains("string, number, boolean, list of strings or") == true)
        #expect(message(.array((0..<33).map { .string("t\($0)") }))?.contains("at most 32") == true)
        #expect(message(.array((0..<32).map { .string("t\($0)") })) == nil)
        #expect(
            message([.string(String(repeating: "a", count: 257))])?.contains("list item may be at most 256") == true)
        #expect(message(["date": "yesterday"])?.contains("RFC 3339") == true)
        #expect(message(["date": "2026-12-24T09:00:00Z", "x": 1])?.contains("string, number, boolean") == true)
        #expect(message(.string(String(repeating: "a", count: 257)))?.contains("at most 256 bytes") == true)
        #expect(message(.string(String(repeating: "a", count: 256))) == nil)
        #expect(message("x", key: "first-name")?.contains("1 to 64 characters of A-Z a-z 0-9 _") == true)
        #expect(message("x", key: "1st") != nil)
        #expect(message("x", key: String(repeating: "k", count: 65)) != nil)
        #expect(message("x", key: String(repeating: "k", count: 64)) == nil)
        #expect(throws: AttributeError.self) { try limits.check(count: 51) }
        let countError = #expect(throws: AttributeError.self) { try limits.check(count: 51) }
        #expect(countError?.message.contains("the limit is 50 per installation") == true)
        #expect(throws: Never.self) { try limits.check(count: 50) }
    }
}
