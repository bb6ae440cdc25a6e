import Foundation
import Testing
import TidingsModel

/// A document that must parse, and the value it must give.
struct ValidDocument: Sendable, CustomTestStringConvertible {
    var text: String
    var expected: JSONValue
    var testDescription: String { text.debugDescription }

    init(_ text: String, _ expected: JSONValue) {
        self.text = text
        self.expected = expected
    }
}

/// A document that must be rejected, with the error's code and position.
struct InvalidDocument: Sendable, CustomTestStringConvertible {
    var bytes: [UInt8]
    var code: JSONParseError.Code
    var offset: Int
    var line: Int
    var column: Int
    var testDescription: String { String(decoding: bytes, as: UTF8.self).debugDescription }

    init(_ text: String, _ code: JSONParseError.Code, offset: Int, line: Int = 1, column: Int? = nil) {
        self.init(Array(text.utf8), code, offset: offset, line: line, column: column)
    }

    init(_ bytes: [UInt8], _ code: JSONParseError.Code, offset: Int, line: Int = 1, column: Int? = nil) {
        self.bytes = bytes
        self.code = code
        self.offset = offset
        self.line = line
        self.column = column ?? offset + 1
    }
}

@Suite struct JSONParserTests {
    static let validDocuments: [ValidDocument] = [
        ValidDocument("null", .null),
        ValidDocument("true", true),
        ValidDocument("false", false),
        ValidDocument(" \t\r\n42 \n", 42),
        ValidDocument("0", 0),
        ValidDocument("-1", -1),
        ValidDocument("9223372036854775807", .integer(.max)),
        ValidDocument("-9223372036854775808", .integer(.min)),
        ValidDocument("9223372036854775808", .double(9.223372036854775808e18)),
        ValidDocument("-9223372036854775809", .double(-9.223372036854775809e18)),
        ValidDocument("123456789012345678901234567890", .double(1.2345678901234568e29)),
        ValidDocument("1.0", .double(1)),
        ValidDocument("1e2", .double(100)),
        ValidDocument("1E+2", .double(100)),
        ValidDocument("-2.5e-3", .double(-0.0025)),
        ValidDocument("0.1", .double(0.1)),
        ValidDocument("1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
        ValidDocument("5e-324", .double(.leastNonzeroMagnitude)),
        ValidDocument("1e-400", .double(0)),
        ValidDocument("0e999999999999", .double(0)),
        ValidDocument("0.30000000000000004", .double(0.30000000000000004)),
        ValidDocument("9007199254740993.0", .double(9_007_199_254_740_992)),
        ValidDocument("2.2250738585072011e-308", .double(Double.leastNormalMagnitude.nextDown)),
        ValidDocument("0.000000000000000000000000000001", .double(1e-30)),
        ValidDocument(#""""#, ""),
        ValidDocument(#""héllo ✓ 𝄞""#, "héllo ✓ 𝄞"),
        ValidDocument(#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
        ValidDocument(#""\u0041\u00e9\u2713\uD834\uDD1E""#, "Aé✓𝄞"),
        ValidDocument(#""a\u0000b""#, "a\u{0}b"),
        ValidDocument(#""tail\n""#, "tail\n"),
        ValidDocument("[]", []),
        ValidDocument("[ ]", []),
        ValidDocument("{}", [:]),
        ValidDocument("[1,[2,[3]],{}]", [1, [2, [3]], [:]]),
        ValidDocument(#"{"a":1,"b":[true,null],"c":{"d":"e"}}"#, ["a": 1, "b": [true, nil], "c": ["d": "e"]]),
        ValidDocument(#"{ "a" : 1 , "a" : 2 }"#, ["a": 2]),
        ValidDocument("\u{FEFF}{\"bom\":true}", ["bom": true]),
    ]

    @Test(arguments: validDocuments)
    func parsesValidDocument(_ document: ValidDocument) throws {
        let value = try JSONValue.parse(document.text)
        #expect(value == document.expected)
        // Same answer from every entry point.
        #expect(try JSONValue.parse(Array(document.text.utf8)) == value)
        #expect(try JSONValue.parse(Data(document.text.utf8)) == value)
    }

    static let invalidDocuments: [InvalidDocument] = [
        InvalidDocument("", .emptyInput, offset: 0),
        InvalidDocument(" \n\t", .emptyInput, offset: 3, line: 2, column: 2),
        InvalidDocument("{", .unexpectedEnd, offset: 1),
        InvalidDocument("{\"a\":1,\n \"b\": [1,\n  2", .unexpectedEnd, offset: 21, line: 3, column: 4),
        InvalidDocument("[1,]", .unexpectedCharacter, offset: 3),
        InvalidDocument("{\"a\":1,}", .unexpectedCharacter, offset: 7),
        InvalidDocument("{\"a\" 1}", .unexpectedCharacter, offset: 5),
        InvalidDocument("{a:1}", .unexpectedCharacter, offset: 1),
        InvalidDocument("{'a':1}", .unexpectedCharacter, offset: 1),
        InvalidDocument("[1 2]", .unexpectedCharacter, offset: 3),
        InvalidDocument("[1,,2]", .unexpectedCharacter, offset: 3),
        InvalidDocument("[,1]", .unexpectedCharacter, offset: 1),
        InvalidDocument("]", .unexpectedCharacter, offset: 0),
        InvalidDocument("[}", .unexpectedCharacter, offset: 1),
        InvalidDocument("{\"a\":1 \"b\":2}", .unexpectedCharacter, offset: 7),
        InvalidDocument("{\"a\":1]", .unexpectedCharacter, offset: 6),
        InvalidDocument("[1}", .unexpectedCharacter, offset: 2),
        InvalidDocument("{\"a\"}", .unexpectedCharacter, offset: 4),
        InvalidDocument("{1:2}", .unexpectedCharacter, offset: 1),
        InvalidDocument("[\"a\" // comment\n]", .unexpectedCharacter, offset: 5),
        InvalidDocument("tru", .unexpectedEnd, offset: 3),
        InvalidDocument("trUe", .unexpectedCharacter, offset: 2),
        InvalidDocument("nul", .unexpectedEnd, offset: 3),
        InvalidDocument("NaN", .unexpectedCharacter, offset: 0),
        InvalidDocument("Infinity", .unexpectedCharacter, offset: 0),
        InvalidDocument("+1", .unexpectedCharacter, offset: 0),
        InvalidDocument(".5", .unexpectedCharacter, offset: 0),
        InvalidDocument("01", .invalidNumber, offset: 1),
        InvalidDocument("-01", .invalidNumber, offset: 2),
        InvalidDocument("-", .unexpectedEnd, offset: 1),
        InvalidDocument("-a", .invalidNumber, offset: 1),
        InvalidDocument("1.", .unexpectedEnd, offset: 2),
        InvalidDocument("1.e5", .invalidNumber, offset: 2),
        InvalidDocument("1e", .unexpectedEnd, offset: 2),
        InvalidDocument("1e+", .unexpectedEnd, offset: 3),
        InvalidDocument("[1e+]", .invalidNumber, offset: 4),
        InvalidDocument("1e400", .numberOutOfRange, offset: 0),
        InvalidDocument("[-1e309]", .numberOutOfRange, offset: 1),
        InvalidDocument("0x10", .trailingData, offset: 1),
        InvalidDocument("1 2", .trailingData, offset: 2),
        InvalidDocument("{} x", .trailingData, offset: 3),
        InvalidDocument("[]\u{0}", .trailingData, offset: 2),
        InvalidDocument("\"abc", .unexpectedEnd, offset: 4),
        InvalidDocument("\"a\tb\"", .controlCharacter, offset: 2),
        InvalidDocument("\"a\nb\"", .controlCharacter, offset: 2),
        InvalidDocument(#""\x""#, .invalidEscape, offset: 2),
        InvalidDocument(#""\u12G4""#, .invalidEscape, offset: 5),
        InvalidDocument(#""\u12"#, .unexpectedEnd, offset: 5),
        InvalidDocument(#""\uD800""#, .loneSurrogate, offset: 1),
        InvalidDocument(#""\uD800\n""#, .loneSurrogate, offset: 1),
        InvalidDocument(#""\uD800\u0041""#, .loneSurrogate, offset: 1),
        InvalidDocument(#""\uDC00""#, .loneSurrogate, offset: 1),
        InvalidDocument(#""x\uDBFF\uDBFF""#, .loneSurrogate, offset: 2),
        InvalidDocument(#""\uD800\"#, .unexpectedEnd, offset: 8),
        InvalidDocument([0x22, 0xC3, 0x28, 0x22], .invalidUTF8, offset: 2),
        InvalidDocument([0x22, 0xC0, 0xAF, 0x22], .invalidUTF8, offset: 1),  // overlong '/'
        InvalidDocument([0x22, 0xE0, 0x80, 0xAF, 0x22], .invalidUTF8, offset: 2),  // overlong
        InvalidDocument([0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, offset: 2),  // encoded surrogate
        InvalidDocument([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .invalidUTF8, offset: 2),  // above U+10FFFF
        InvalidDocument([0x22, 0xFF, 0x22], .invalidUTF8, offset: 1),
        InvalidDocument([0x22, 0x80, 0x22], .invalidUTF8, offset: 1),
        InvalidDocument([0x22, 0xE2, 0x9C], .unexpectedEnd, offset: 3, column: 3),
        InvalidDocument([0x5B, 0xFF, 0x5D], .unexpectedCharacter, offset: 1),
        InvalidDocument("\u{A0}1", .unexpectedCharacter, offset: 0),  // no-break space is not JSON whitespace
        InvalidDocument("[\"é\", x]", .unexpectedCharacter, offset: 7, column: 7),  // column counts scalars
        InvalidDocument("\r\n\r\n  }", .unexpectedCharacter, offset: 6, line: 3, column: 3),
    ]

    @Test(arguments: invalidDocuments)
    func rejectsInvalidDocument(_ document: InvalidDocument) {
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(document.bytes) }
        #expect(error?.code == document.code)
        #expect(error?.offset == document.offset)
        #expect(error?.line == document.line)
        #expect(error?.column == document.column)
    }

    @Test func messageNamesPositionAndExpectation() {
        let error = #expect(throws: JSONParseError.self) {
            try JSONValue.parse("{\n  \"aps\": {\n    \"alert\": \"Hi\"\n")
        }
        #expect(error?.code.rawValue == "unexpected_end")
        #expect(error?.message == "unexpected end of input at line 4, column 1 (byte 31): expected ',' or '}'")
    }

    @Test func unexpectedCharacterMessageShowsTheCharacter() {
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(#"{"a": }"#) }
        #expect(error?.message == "unexpected character '}' at line 1, column 7 (byte 6): expected a value")
        let control = #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0x01, 0x22]) }
        #expect(control?.message.hasPrefix("unescaped control character 0x01 in string at line 1, column 2") == true)
    }

    @Test func codesAreStableSnakeCase() {
        let codes = JSONParseError.Code.allCases.map(\.rawValue)
        #expect(codes.contains("empty_input"))
        #expect(codes.contains("trailing_data"))
        #expect(codes.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "_" || $0.isNumber } })
        #expect(Set(codes).count == codes.count)
    }

    @Test func depthLimitDefaultsTo64() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(try JSONValue.parse(ok).arrayValue != nil)
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
        #expect(error?.code == .tooDeep)
        #expect(error?.offset == 64)
        #expect(error?.message.contains("limit of 64") == true)
    }

    @Test func depthLimitIsConfigurableAndCountsObjects() throws {
        let options = JSONParser.Options(maximumDepth: 2)
        #expect(try JSONValue.parse(#"{"a":[1]}"#, options: options) == ["a": [1]])
        let error = #expect(throws: JSONParseError.self) {
            try JSONValue.parse(#"{"a":[{}]}"#, options: options)
        }
        #expect(error?.code == .tooDeep)
        #expect(error?.offset == 6)
        #expect(throws: JSONParseError.self) { try JSONValue.parse("[]", options: .init(maximumDepth: 0)) }
        #expect(try JSONValue.parse("1", options: .init(maximumDepth: 0)) == 1)
    }

    @Test func hugeDepthLimitIsClampedInsteadOfOverflowingTheStack() {
        let deep = String(repeating: "[", count: 100_000)
        let error = #expect(throws: JSONParseError.self) {
            try JSONValue.parse(deep, options: .init(maximumDepth: .max))
        }
        #expect(error?.code == .tooDeep)
        #expect(error?.offset == JSONParser.Options.depthCeiling)
    }

    @Test func deepestAllowedNestingFitsA512KiBThreadStack() {
        // iOS gives secondary threads 512 KiB; the depth ceiling must fit there even in a debug build.
        let depth = JSONParser.Options.depthCeiling
        let text = String(repeating: "[{\"k\":", count: depth / 2) + "1" + String(repeating: "}]", count: depth / 2)
        let parsed = LockedBox<JSONValue?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            // Parse, write, re-parse, compare and free the deepest value, all on the small stack.
            let options = JSONParser.Options(maximumDepth: depth)
            if let value = try? JSONValue.parse(text, options: options),
                let written = try? value.serialized(sortedKeys: true, prettyPrinted: true),
                let again = try? JSONValue.parse(written, options: options), again == value
            {
                parsed.withLock { $0 = value }
            }
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        #expect(parsed.withLock { $0 } != nil)
    }

    @Test func inputSizeLimitNamesTheLimit() throws {
        let options = JSONParser.Options(maximumInputSize: 8)
        #expect(try JSONValue.parse("[1,2,3]", options: options) == [1, 2, 3])
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse("[1,2,3,4]", options: options) }
        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("limit of 8 bytes") == true)
    }

    @Test func byteOrderMarkCanBeRejected() throws {
        let text = "\u{FEFF}[1]"
        #expect(try JSONValue.parse(text) == [1])
        let error = #expect(throws: JSONParseError.self) {
            try JSONValue.parse(text, options: .init(allowsByteOrderMark: false))
        }
        #expect(error?.code == .byteOrderMark)
        #expect(error?.offset == 0)
        // A byte order mark alone is still an empty document.
        #expect(throws: JSONParseError.self) { try JSONValue.parse("\u{FEFF}") }
    }

    @Test func integersStayExactAndFractionsBecomeDoubles() throws {
        let value = try JSONValue.parse(#"{"id": 9007199254740993, "n": 3, "x": 3.0, "z": -0}"#)
        #expect(value["id"] == .integer(9_007_199_254_740_993))
        #expect(value["n"] == .integer(3))
        #expect(value["x"] == .double(3))
        guard case .double(let zero) = value["z"] else {
            Issue.record("-0 should be a double")
            return
        }
        #expect(zero == 0 && zero.sign == .minus)
    }

    @Test func doublesAreCorrectlyRoundedAgainstTheStandardLibrary() throws {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<2_000 {
            let mantissa = Int64.random(in: -999_999_999_999_999_999...999_999_999_999_999_999, using: &generator)
            let exponent = Int.random(in: -330...310, using: &generator)
            let text = "\(mantissa)e\(exponent)"
            guard let expected = Double(text), expected.isFinite else { continue }
            #expect(try JSONValue.parse(text) == .double(expected), "\(text)")
        }
    }

    @Test func duplicateKeysKeepTheLastValue() throws {
        #expect(try JSONValue.parse(#"{"k":1,"other":0,"k":{"x":2}}"#) == ["k": ["x": 2], "other": 0])
    }

    @Test func dataSlicesAreReadFromTheirOwnStart() throws {
        let data = Data("xx[1,{\"a\":2}]yy".utf8)
        let slice = data[(data.startIndex + 2)..<(data.endIndex - 2)]
        #expect(try JSONValue.parse(slice) == [1, ["a": 2]])
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(data[(data.startIndex + 2)...]) }
        #expect(error?.code == .trailingData)
        #expect(error?.offset == 11)
    }

    @Test func parserStructIsReusable() throws {
        let parser = JSONParser(options: .init(maximumDepth: 3))
        #expect(try parser.parse(Array("[[1]]".utf8)) == [[1]])
        #expect(try parser.parse("\"\\u00e9\"") == "é")
        let bytes: [UInt8] = Array("[true]".utf8)
        let value = try bytes.withUnsafeBufferPointer { buffer in try parser.parse(buffer) }
        #expect(value == [true])
    }
}
