/// The engine behind `JSONParser`: one pass over borrowed bytes, no per-character `String`, and no recursion
/// (open arrays and objects are kept in a heap stack, so the call stack does not grow with nesting).
///
/// Strings without escapes are validated in place and decoded once from their byte range; strings with
/// escapes are unescaped into a reused scratch buffer. Errors carry only a byte offset; `JSONParser` turns it
/// into a line and column after the fact, so the happy path never counts lines.
struct JSONScanner {
    /// An error before its line and column are known.
    struct Failure: Error {
        var code: JSONParseError.Code
        var offset: Int
        var detail: String
        var byte: UInt8? = nil
    }

    // Read by `EventBatchReader`, which walks an event batch with this scanner's primitives.
    let bytes: UnsafePointer<UInt8>
    let count: Int
    private let maximumDepth: Int
    var index = 0
    private var scratch: [UInt8] = []
    /// Members of the objects being read, innermost last; an object is built once its size is known, so its
    /// dictionary is allocated once instead of rehashing as it grows.
    private var members: [(key: String, value: JSONValue)] = []
    /// Elements of the arrays being read, innermost last, for the same reason.
    private var elements: [JSONValue] = []

    init(bytes: UnsafePointer<UInt8>, count: Int, maximumDepth: Int) {
        self.bytes = bytes
        self.count = count
        self.maximumDepth = maximumDepth
    }

    /// Parses the whole input as one value with optional surrounding whitespace.
    mutating func parseDocument(allowsByteOrderMark: Bool) throws(Failure) -> JSONValue {
        if count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            guard allowsByteOrderMark else {
                throw Failure(code: .byteOrderMark, offset: 0, detail: "the input starts with a UTF-8 byte order mark")
            }
            index = 3
        }
        skipWhitespace()
        guard index < count else {
            throw Failure(code: .emptyInput, offset: index, detail: "expected a JSON value")
        }
        let value = try parseValue()
        skipWhitespace()
        if index < count {
            throw Failure(
                code: .trailingData, offset: index, detail: "expected the end of input", byte: bytes[index])
        }
        return value
    }

    // MARK: - Values

    /// An array or object being read. Nesting lives in `frames`, not on the call stack, so deep input cannot
    /// overflow the stack however the depth limit is set.
    private struct Frame {
        var isObject: Bool
        /// Where this container's members (or elements) start in `members` (or `elements`).
        var base: Int
        /// The key whose value is being read, for objects.
        var key: String
    }

    mutating func parseValue() throws(Failure) -> JSONValue {
        var frames: [Frame] = []
        var value: JSONValue
        readValue: while true {
            skipWhitespace()
            guard index < count else { throw endOfInput("expected a value") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                try enterContainer(depth: frames.count)
                index += 1
                skipWhitespace()
                guard index < count else { throw endOfInput("expected a string key or '}'") }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    value = .object([:])
                } else {
                    let key = try parseKey(expectation: "expected a string key or '}'")
                    frames.append(Frame(isObject: true, base: members.count, key: key))
                    continue readValue
                }
            case UInt8(ascii: "["):
                try enterContainer(depth: frames.count)
                index += 1
                skipWhitespace()
                guard index < count else { throw endOfInput("expected a value or ']'") }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    value = .array([])
                } else {
                    frames.append(Frame(isObject: false, base: elements.count, key: ""))
                    continue readValue
                }
            default:
                value = try parseScalar()
            }

            // A value is complete: add it to the open containers, closing each one that ends here.
            while !frames.isEmpty {
                let top = frames.count - 1
                skipWhitespace()
                if frames[top].isObject {
                    members.append((frames[top].key, value))
                    guard index < count else { throw endOfInput("expected ',' or '}'") }
                    let separator = bytes[index]
                    if separator == UInt8(ascii: ",") {
                        index += 1
                        skipWhitespace()
                        frames[top].key = try parseKey(expectation: "expected a string key")
                        continue readValue
                    }
                    guard separator == UInt8(ascii: "}") else { throw unexpected("expected ',' or '}'") }
                    index += 1
                    value = .object(takeObject(from: frames[top].base))
                } else {
                    elements.append(value)
                    guard index < count else { throw endOfInput("expected ',' or ']'") }
                    let separator = bytes[index]
                    if separator == UInt8(ascii: ",") {
                        index += 1
                        continue readValue
                    }
                    guard separator == UInt8(ascii: "]") else { throw unexpected("expected ',' or ']'") }
                    index += 1
                    let base = frames[top].base
                    value = .array(Array(elements[base...]))
                    elements.removeSubrange(base...)
                }
                frames.removeLast()
            }
            return value
        }
    }

    /// Reads a string, a string key, a number or a literal starting at `index`.
    @inline(__always)
    private mutating func parseScalar() throws(Failure) -> JSONValue {
        switch bytes[index] {
        case UInt8(ascii: "\""):
            index += 1
            return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        case UInt8(ascii: "t"):
            try expectLiteral(0x74_72_75_65, length: 4)
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral(0x66_61_6C_73_65, length: 5)
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral(0x6E_75_6C_6C, length: 4)
            return .null
        default:
            throw unexpected("expected a value")
        }
    }

    /// Reads `"key"` and the `:` after it; `index` is at the opening quote's expected position.
    @inline(__always)
    private mutating func parseKey(expectation: String) throws(Failure) -> String {
        guard index < count else { throw endOfInput("expected a string key") }
        guard bytes[index] == UInt8(ascii: "\"") else { throw unexpected(expectation) }
        index += 1
        let key = try parseString()
        skipWhitespace()
        guard index < count else { throw endOfInput("expected ':'") }
        guard bytes[index] == UInt8(ascii: ":") else { throw unexpected("expected ':'") }
        index += 1
        return key
    }

    /// Matches `true`, `false` or `null`, packed big-endian into `word`, byte by byte so the error points at
    /// the first wrong byte.
    @inline(__always)
    private mutating func expectLiteral(_ word: UInt64, length: Int) throws(Failure) {
        var shift = (length - 1) * 8
        while shift >= 0 {
            guard index < count else { throw endOfInput(Self.literalDetail(word)) }
            guard bytes[index] == UInt8(truncatingIfNeeded: word >> UInt64(shift)) else {
                throw unexpected(Self.literalDetail(word))
            }
            index += 1
            shift -= 8
        }
    }

    private static func literalDetail(_ word: UInt64) -> String {
        switch word {
        case 0x74_72_75_65: return "expected 'true'"
        case 0x66_61_6C_73_65: return "expected 'false'"
        default: return "expected 'null'"
        }
    }

    /// Builds the object whose members start at `members[base]` and pops them; a later duplicate key wins.
    private mutating func takeObject(from base: Int) -> [String: JSONValue] {
        var object = [String: JSONValue](minimumCapacity: members.count - base)
        for position in base..<members.count {
            let member = members[position]
            object[member.key] = member.value
        }
        members.removeSubrange(base...)
        return object
    }

    @inline(__always)
    private func enterContainer(depth: Int) throws(Failure) {
        guard depth < maximumDepth else {
            throw Failure(
                code: .tooDeep, offset: index,
                detail: "arrays and objects nest deeper than the limit of \(maximumDepth)")
        }
    }

    // MARK: - Strings

    /// Reads a string whose opening quote has been consumed, and the closing quote.
    mutating func parseString() throws(Failure) -> String {
        let start = index
        skipPlainASCII()
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let string = String(
                    decoding: UnsafeBufferPointer(start: bytes + start, count: index - start), as: UTF8.self)
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(from: start)
            }
            if byte < 0x20 {
                throw controlCharacter()
            }
            if byte >= 0x80 {
                try skipUTF8Sequence()
            } else {
                index += 1
            }
        }
        throw endOfInput("expected '\"' to close the string")
    }

    /// Skips eight bytes at a time while none is a quote, a backslash, a control character or non-ASCII.
    @inline(__always)
    private mutating func skipPlainASCII() {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        while index &+ 8 <= count {
            let word = UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt64.self)
            // A byte of `x` is zero exactly when `(x - 1) & ~x` has its high bit set (no false positives
            // once bytes with the high bit already set are excluded, which `word & highBits` does).
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special =
                ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
                | word
            guard special & highBits == 0 else { return }
            index &+= 8
        }
    }

    /// Continues `parseString` at the first backslash, unescaping into `scratch`.
    private mutating func parseEscapedString(from start: Int) throws(Failure) -> String {
        scratch.removeAll(keepingCapacity: true)
        var runStart = start
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                scratch.append(contentsOf: UnsafeBufferPointer(start: bytes + runStart, count: index - runStart))
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return String(decoding: scratch, as: UTF8.self)
                }
                try appendEscape()
                runStart = index
            } else if byte < 0x20 {
                throw controlCharacter()
            } else if byte >= 0x80 {
                try skipUTF8Sequence()
            } else {
                index += 1
            }
        }
        throw endOfInput("expected '\"' to close the string")
    }

    /// Decodes the escape at `index` (a backslash) into `scratch`.
    private mutating func appendEscape() throws(Failure) {
        let escapeStart = index
        index += 1
        guard index < count else { throw endOfInput("expected an escape character after '\\'") }
        let byte = bytes[index]
        let simple: UInt8
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): simple = byte
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            index += 1
            try appendUnicodeEscape(escapeStart: escapeStart)
            return
        default:
            throw Failure(
                code: .invalidEscape, offset: index,
                detail: "expected one of \" \\ / b f n r t u after '\\'", byte: byte)
        }
        scratch.append(simple)
        index += 1
    }

    /// Decodes the four hex digits after `\u` (and a following low surrogate escape when needed).
    private mutating func appendUnicodeEscape(escapeStart: Int) throws(Failure) {
        let unit = try readHex4()
        var scalarValue: UInt32
        switch unit {
        case 0xD800...0xDBFF:
            // A high surrogate must be followed at once by an escaped low surrogate.
            guard index < count else { throw endOfInput("expected '\\u' and a low surrogate") }
            guard bytes[index] == UInt8(ascii: "\\") else { throw loneSurrogate(at: escapeStart, unit) }
            guard index + 1 < count else { throw endOfInput("expected '\\u' and a low surrogate") }
            guard bytes[index + 1] == UInt8(ascii: "u") else { throw loneSurrogate(at: escapeStart, unit) }
            let lowStart = index
            index += 2
            let low = try readHex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                index = lowStart
                throw loneSurrogate(at: escapeStart, unit)
            }
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        case 0xDC00...0xDFFF:
            throw loneSurrogate(at: escapeStart, unit)
        default:
            scalarValue = UInt32(unit)
        }
        appendUTF8(scalarValue)
    }

    @inline(__always)
    private mutating func readHex4() throws(Failure) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard index < count else { throw endOfInput("expected four hex digits after '\\u'") }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default:
                throw Failure(
                    code: .invalidEscape, offset: index, detail: "expected four hex digits after '\\u'", byte: byte)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    @inline(__always)
    private mutating func appendUTF8(_ value: UInt32) {
        switch value {
        case 0..<0x80:
            scratch.append(UInt8(value))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | value >> 6))
            scratch.append(UInt8(0x80 | value & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | value >> 12))
            scratch.append(UInt8(0x80 | value >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | value & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | value >> 18))
            scratch.append(UInt8(0x80 | value >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | value >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | value & 0x3F))
        }
    }

    /// Steps over one well-formed multi-byte UTF-8 sequence starting at `index` (Unicode Table 3-7).
    @inline(__always)
    private mutating func skipUTF8Sequence() throws(Failure) {
        let lead = bytes[index]
        let continuationCount: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: continuationCount = 1
        case 0xE0:
            continuationCount = 2
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: continuationCount = 2
        case 0xED:
            continuationCount = 2
            high = 0x9F
        case 0xF0:
            continuationCount = 3
            low = 0x90
        case 0xF1...0xF3: continuationCount = 3
        case 0xF4:
            continuationCount = 3
            high = 0x8F
        default:
            throw invalidUTF8(at: index, "not a valid UTF-8 lead byte")
        }
        var position = index + 1
        let last = index + continuationCount
        while position <= last {
            guard position < count else { throw endOfInput("expected a UTF-8 continuation byte") }
            let byte = bytes[position]
            guard byte >= low && byte <= high else {
                throw invalidUTF8(at: position, "expected a UTF-8 continuation byte")
            }
            low = 0x80
            high = 0xBF
            position += 1
        }
        index = position
    }

    // MARK: - Numbers

    mutating func parseNumber() throws(Failure) -> JSONValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < count else { throw endOfInput("expected a digit") }

        // Up to 19 significant digits go into `mantissa` (10^19 - 1 fits UInt64); beyond that the number
        // takes the exact slow path.
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var truncated = false
        var exponent = 0

        let first = bytes[index]
        if first == UInt8(ascii: "0") {
            index += 1
            if index < count && Self.isDigit(bytes[index]) {
                throw Failure(
                    code: .invalidNumber, offset: index, detail: "leading zeros are not allowed", byte: bytes[index])
            }
        } else if Self.isDigit(first) {
            while index < count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    significantDigits += 1
                } else {
                    truncated = true
                }
                index += 1
            }
        } else {
            throw Failure(code: .invalidNumber, offset: index, detail: "expected a digit after '-'", byte: first)
        }

        var isInteger = true
        if index < count && bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < count else { throw endOfInput("expected a digit after '.'") }
            guard Self.isDigit(bytes[index]) else {
                throw Failure(
                    code: .invalidNumber, offset: index, detail: "expected a digit after '.'", byte: bytes[index])
            }
            while index < count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    if mantissa != 0 { significantDigits += 1 }
                    exponent -= 1
                } else {
                    truncated = true
                }
                index += 1
            }
        }

        if index < count && bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            guard index < count else { throw endOfInput("expected a digit in the exponent") }
            var exponentNegative = false
            if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
                guard index < count else { throw endOfInput("expected a digit in the exponent") }
            }
            guard Self.isDigit(bytes[index]) else {
                throw Failure(
                    code: .invalidNumber, offset: index, detail: "expected a digit in the exponent",
                    byte: bytes[index])
            }
            var written = 0
            while index < count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                // Saturate: anything past 10^6 is out of range or zero either way.
                if written < 1_000_000 { written = written * 10 + Int(digit) }
                index += 1
            }
            exponent += exponentNegative ? -written : written
        }

        if isInteger && !truncated {
            if !negative {
                if mantissa <= UInt64(Int64.max) { return .integer(Int64(mantissa)) }
            } else if mantissa == 0 {
                return .double(-0.0)
            } else if mantissa <= UInt64(Int64.max) + 1 {
                return .integer(Int64(bitPattern: 0 &- mantissa))
            }
        }

        // Clinger's fast path: both the mantissa and the power of ten are exact doubles, so one IEEE
        // multiplication or division rounds correctly.
        if !truncated && mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
            var value = Double(mantissa)
            if exponent < 0 {
                value /= Self.powersOfTen[-exponent]
            } else {
                value *= Self.powersOfTen[exponent]
            }
            return .double(negative ? -value : value)
        }

        let text = String(decoding: UnsafeBufferPointer(start: bytes + start, count: index - start), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw Failure(
                code: .numberOutOfRange, offset: start,
                detail: "the number's magnitude exceeds the largest Double (about 1.8e308)")
        }
        return .double(value)
    }

    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    // MARK: - Whitespace and errors

    @inline(__always)
    mutating func skipWhitespace() {
        while index < count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    private func endOfInput(_ detail: String) -> Failure {
        Failure(code: .unexpectedEnd, offset: count, detail: detail)
    }

    private func unexpected(_ detail: String) -> Failure {
        Failure(code: .unexpectedCharacter, offset: index, detail: detail, byte: bytes[index])
    }

    private func controlCharacter() -> Failure {
        Failure(
            code: .controlCharacter, offset: index, detail: "control characters must be escaped in strings",
            byte: bytes[index])
    }

    private func invalidUTF8(at offset: Int, _ detail: String) -> Failure {
        Failure(code: .invalidUTF8, offset: offset, detail: detail, byte: bytes[offset])
    }

    private func loneSurrogate(at offset: Int, _ unit: UInt16) -> Failure {
        let hex = String(unit, radix: 16, uppercase: true)
        let kind =
            unit >= 0xDC00
            ? "low surrogate \\u\(hex) without a high surrogate before it"
            : "high surrogate \\u\(hex) without a low surrogate after it"
        return Failure(code: .loneSurrogate, offset: offset, detail: kind)
    }
}
