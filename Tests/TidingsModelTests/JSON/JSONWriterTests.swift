import Foundation
import Testing
import TidingsModel

@Suite struct JSONWriterTests {
    static let scalars: [(JSONValue, String)] = [
        (.null, "null"),
        (true, "true"),
        (false, "false"),
        (0, "0"),
        (7, "7"),
        (-7, "-7"),
        (.integer(.max), "9223372036854775807"),
        (.integer(.min), "-9223372036854775808"),
        (.double(1), "1.0"),
        (.double(-0.0), "-0.0"),
        (.double(0.1), "0.1"),
        (.double(1e-5), "1e-05"),
        (.double(1e300), "1e+300"),
        (.double(.greatestFiniteMagnitude), "1.7976931348623157e+308"),
        ("", #""""#),
        ("plain", #""plain""#),
        ("q\"b\\s/", #""q\"b\\s/""#),
        ("\n\r\t\u{8}\u{C}", #""\n\r\t\b\f""#),
        ("\u{0}\u{1}\u{1F}\u{7F}", #""\u0000\u0001\u001f\#u{7F}""#),
        ("héllo ✓ 𝄞 \u{2028}", "\"héllo ✓ 𝄞 \u{2028}\""),
    ]

    @Test(arguments: scalars)
    func writesScalar(_ value: JSONValue, _ expected: String) throws {
        #expect(try value.serializedString() == expected)
        #expect(try JSONValue.parse(expected) == value)
    }

    @Test func sortedKeysGiveDeterministicCompactOutput() throws {
        let value: JSONValue = [
            "b": 1, "a": [true, nil, ["z": 1, "y": 2]], "é": "x", "B": [:], "": [],
        ]
        let text = try value.serializedString(sortedKeys: true)
        #expect(text == #"{"":[],"B":{},"a":[true,null,{"y":2,"z":1}],"b":1,"é":"x"}"#)
        #expect(try value.serialized(sortedKeys: true) == Array(text.utf8))
        #expect(try value.serializedData(sortedKeys: true) == Data(text.utf8))
    }

    @Test func unsortedOutputStillParsesBack() throws {
        let value: JSONValue = ["one": 1, "two": [2, 2.5], "three": ["x": nil]]
        #expect(try JSONValue.parse(value.serialized()) == value)
    }

    @Test func prettyPrintingIndentsByTwoSpaces() throws {
        let value: JSONValue = ["aps": ["alert": "Hi", "badge": 3], "empty": [], "none": [:], "list": [1, [2]]]
        let text = try value.serializedString(sortedKeys: true, prettyPrinted: true)
        let expected = """
            {
              "aps": {
                "alert": "Hi",
                "badge": 3
              },
              "empty": [],
              "list": [
                1,
                [
                  2
                ]
              ],
              "none": {}
            }
            """
        #expect(text == expected)
        #expect(try JSONValue.parse(text) == value)
    }

    @Test(arguments: [Double.infinity, -Double.infinity, Double.nan])
    func nonFiniteDoublesThrowWithPath(_ number: Double) {
        let value: JSONValue = ["aps": ["badge": .double(number)], "ok": 1]
        let error = #expect(throws: JSONWriteError.self) { try value.serialized() }
        #expect(error?.code == .nonFiniteNumber)
        #expect(error?.path == "$.aps.badge")
        #expect(error?.message.contains("cannot be written as JSON") == true)
    }

    @Test func errorPathQuotesUnusualKeysAndIndexes() {
        let value: JSONValue = ["a key": [1, ["x.y": .double(.nan)]]]
        let error = #expect(throws: JSONWriteError.self) { try value.serialized(sortedKeys: true) }
        #expect(error?.path == #"$["a key"][1]["x.y"]"#)
        let root = #expect(throws: JSONWriteError.self) { try JSONValue.double(.infinity).serialized() }
        #expect(root?.path == "$")
        #expect(root?.code.rawValue == "non_finite_number")
    }

    @Test func serializeIntoAppendsAndLeavesOutputIntactOnFailure() throws {
        let writer = JSONWriter(options: .init(sortedKeys: true))
        var output = Array("prefix:".utf8)
        try writer.serialize(["a": 1], into: &output)
        #expect(String(decoding: output, as: UTF8.self) == #"prefix:{"a":1}"#)
        #expect(throws: JSONWriteError.self) { try writer.serialize([1, .double(.nan)], into: &output) }
        #expect(String(decoding: output, as: UTF8.self) == #"prefix:{"a":1}"#)
    }

    @Test func bridgedStringsAreEscapedToo() throws {
        // An NSString-backed String has no contiguous UTF-8 storage, taking the writer's slow path.
        let bridged = NSString(string: "tab\there é") as String
        #expect(try JSONValue.string(bridged).serializedString() == #""tab\there é""#)
    }
}
