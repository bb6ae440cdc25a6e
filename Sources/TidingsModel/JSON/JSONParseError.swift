/// Why a JSON document was rejected, and where.
///
/// The position is given three ways: `offset` is the 0-based byte offset into the input (after nothing is
/// skipped: a byte order mark counts), `line` and `column` are 1-based, lines are split at `\n`, and the column
/// counts Unicode scalars (UTF-8 lead bytes) from the start of the line, so it matches what an editor shows.
///
/// ```
/// do { _ = try JSONValue.parse("{\"a\": }") }
/// catch { print(error) }  // unexpected character '}' at line 1, column 7 (byte 6): expected a value
/// ```
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A machine-readable reason; `rawValue` is the stable snake_case code.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The input is empty or holds only whitespace.
        case emptyInput = "empty_input"
        /// The input ends in the middle of a value.
        case unexpectedEnd = "unexpected_end"
        /// A byte that cannot start or continue the construct being read.
        case unexpectedCharacter = "unexpected_character"
        /// An unescaped control character (below U+0020) inside a string.
        case controlCharacter = "control_character"
        /// Bytes that are not well-formed UTF-8.
        case invalidUTF8 = "invalid_utf8"
        /// A backslash escape that JSON does not define, or `\u` without four hex digits.
        case invalidEscape = "invalid_escape"
        /// A `\u` escape naming half of a surrogate pair without its other half.
        case loneSurrogate = "lone_surrogate"
        /// A number that breaks the JSON grammar (leading zero, missing digits...).
        case invalidNumber = "invalid_number"
        /// A number too large in magnitude to be represented as a finite `Double`.
        case numberOutOfRange = "number_out_of_range"
        /// Arrays and objects nested deeper than `JSONParser.Options.maximumDepth`.
        case tooDeep = "too_deep"
        /// The input is longer than `JSONParser.Options.maximumInputSize`.
        case tooLarge = "too_large"
        /// Something other than whitespace follows the document.
        case trailingData = "trailing_data"
        /// A UTF-8 byte order mark when `JSONParser.Options.allowsByteOrderMark` is false.
        case byteOrderMark = "byte_order_mark"
    }

    /// What went wrong.
    public var code: Code
    /// The 0-based byte offset of the offending byte (the input length when the input ended too early).
    public var offset: Int
    /// The 1-based line of `offset`.
    public var line: Int
    /// The 1-based column of `offset`, in Unicode scalars.
    public var column: Int
    /// What the parser expected or which limit was hit, e.g. `expected '}'`.
    public var detail: String
    /// The offending byte, when there was one.
    public var byte: UInt8?

    /// Creates an error; the parser computes `line` and `column` from the input.
    public init(code: Code, offset: Int, line: Int, column: Int, detail: String, byte: UInt8? = nil) {
        self.code = code
        self.offset = offset
        self.line = line
        self.column = column
        self.detail = detail
        self.byte = byte
    }

    /// A one-line message: `unexpected end of input at line 3, column 14 (byte 52): expected '}'`.
    public var message: String {
        "\(summary) at line \(line), column \(column) (byte \(offset))" + (detail.isEmpty ? "" : ": \(detail)")
    }

    public var description: String { message }

    private var summary: String {
        switch code {
        case .emptyInput: return "empty input"
        case .unexpectedEnd: return "unexpected end of input"
        case .unexpectedCharacter: return "unexpected character \(Self.describe(byte))"
        case .controlCharacter: return "unescaped control character \(Self.describe(byte)) in string"
        case .invalidUTF8: return "invalid UTF-8 byte \(Self.describe(byte))"
        case .invalidEscape: return "invalid escape sequence"
        case .loneSurrogate: return "lone UTF-16 surrogate in \\u escape"
        case .invalidNumber: return "invalid number"
        case .numberOutOfRange: return "number out of range"
        case .tooDeep: return "nesting too deep"
        case .tooLarge: return "input too large"
        case .trailingData: return "trailing data \(Self.describe(byte)) after the document"
        case .byteOrderMark: return "byte order mark not allowed"
        }
    }

    private static func describe(_ byte: UInt8?) -> String {
        guard let byte else { return "" }
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "0x" + (hex.count == 1 ? "0" + hex : hex)
    }
}
