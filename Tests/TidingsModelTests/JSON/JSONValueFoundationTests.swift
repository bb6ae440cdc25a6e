import Foundation
import Testing
import TidingsModel

@Suite struct JSONValueFoundationTests {
    static let payloadDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/payloads")

    static let payloadNames = [
        "apns", "braze-uninstall", "braze", "fcm", "moengage-silent", "moengage", "native", "nhncloud",
        "treasuredata-test", "treasuredata",
    ]

    @Test(arguments: payloadNames)
    func realPayloadConvertsToWhatTheParserReads(name: String) throws {
        let data = try Data(contentsOf: Self.payloadDirectory.appendingPathComponent("\(name).json"))
        let object = try JSONSerialization.jsonObject(with: data)
        #expect(try JSONValue(foundationObject: object) == JSONValue.parse(data))
    }

    static let scalarDocuments: [String] = [
        "true", "false", "0", "1", "-1", "127", "128", "255", "32767", "2147483648", "9223372036854775807",
        "-9223372036854775808", "18446744073709551615", "123456789012345678901234", "1.0", "0.1", "-2.5e-3", "1e300",
        "\"\"", "\"héllo\"",
        "null", "[]", "{}", "[true, 1, 1.0, \"1\", null]", "{\"a\": {\"b\": [0, false]}}",
    ]

    @Test(arguments: scalarDocuments)
    func serializationOutputMatchesTheParser(document: String) throws {
        let data = Data(document.utf8)
        let object = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
        #expect(try JSONValue(foundationObject: object) == JSONValue.parse(data))
    }

    @Test func booleansAreNotTheNumbersZeroAndOne() throws {
        let value = try JSONValue(foundationObject: ["t": true, "one": 1, "f": false, "zero": 0] as [String: Any])
        #expect(value == ["t": true, "one": 1, "f": false, "zero": 0])
        #expect(try JSONValue(foundationObject: NSNumber(value: Int8(1))) == .integer(1))
        #expect(try JSONValue(foundationObject: NSNumber(value: true)) == .bool(true))
    }

    @Test func swiftNumbersKeepTheirKind() throws {
        #expect(try JSONValue(foundationObject: 2.0) == .double(2))
        #expect(try JSONValue(foundationObject: Int64.max) == .integer(.max))
        #expect(try JSONValue(foundationObject: UInt64.max) == .double(Double(UInt64.max)))
        #expect(try JSONValue(foundationObject: UInt32.max) == .integer(Int64(UInt32.max)))
        #expect(try JSONValue(foundationObject: Float(0.5)) == .double(0.5))
    }

    @Test func userInfoShapedDictionaryConverts() throws {
        let userInfo: [AnyHashable: Any] = [
            "aps": ["alert": ["title": "Hi", "body": "There"], "badge": 3, "mutable-content": 1] as [String: Any],
            "ids": NSArray(array: [NSNumber(value: 9_007_199_254_740_993 as Int64), NSNull()]),
            "link": URL(string: "https://example.com/a?b=1") as Any,
        ]
        let expected: JSONValue = [
            "aps": ["alert": ["title": "Hi", "body": "There"], "badge": 3, "mutable-content": 1],
            "ids": [.integer(9_007_199_254_740_993), nil],
            "link": "https://example.com/a?b=1",
        ]
        #expect(try JSONValue(foundationObject: userInfo) == expected)
        #expect(try JSONValue(foundationObject: NSDictionary(dictionary: userInfo)) == expected)
    }

    @Test func dateBecomesAnISOStringInUTCWithMilliseconds() throws {
        let date = Date(timeIntervalSince1970: 1_796_415_300.5)
        #expect(try JSONValue(foundationObject: ["at": date]) == ["at": "2026-12-04T20:15:00.500Z"])
    }

    @Test func nonStringKeyIsATypedErrorWithItsPath() {
        let object: [String: Any] = ["aps": [1: "one"] as [AnyHashable: Any]]
        #expect {
            try JSONValue(foundationObject: object)
        } throws: { error in
            guard let error = error as? JSONConversionError else { return false }
            return error.code == .nonStringKey && error.path == "$.aps" && error.message.contains("1 (Int)")
        }
    }

    /// A value JSON has no form for, named so the parameterised test stays `Sendable`.
    enum Unrepresentable: String, CaseIterable, Sendable {
        case data, infinity, nan

        var object: [String: Any] {
            switch self {
            case .data: ["a": [Data([1, 2])]]
            case .infinity: ["b c": Double.infinity]
            case .nan: ["n": Double.nan]
            }
        }

        var expected: (JSONConversionError.Code, String) {
            switch self {
            case .data: (.unsupportedType, "$.a[0]")
            case .infinity: (.nonFiniteNumber, "$[\"b c\"]")
            case .nan: (.nonFiniteNumber, "$.n")
            }
        }
    }

    @Test(arguments: Unrepresentable.allCases)
    func unrepresentableValuesAreTypedErrors(input: Unrepresentable) {
        #expect {
            try JSONValue(foundationObject: input.object)
        } throws: { error in
            guard let error = error as? JSONConversionError else { return false }
            return error.code == input.expected.0 && error.path == input.expected.1
        }
    }

    @Test func nestingPastTheCeilingIsRejected() {
        var object: Any = NSNull()
        for _ in 0...JSONValue.maximumFoundationDepth { object = [object] }
        #expect {
            try JSONValue(foundationObject: object)
        } throws: { error in
            (error as? JSONConversionError)?.code == .tooDeep
        }
        var allowed: Any = NSNull()
        for _ in 0..<JSONValue.maximumFoundationDepth { allowed = [allowed] }
        #expect((try? JSONValue(foundationObject: allowed)) != nil)
    }
}
