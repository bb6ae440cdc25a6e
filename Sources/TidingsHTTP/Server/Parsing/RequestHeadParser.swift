/// Reads a request's head (RFC 9112, sections 2 to 5) strictly, so that every malformed request is answered with a
/// JSON error of ours instead of being guessed at.
///
/// It runs for every request, so it scans the raw bytes once and makes one String per field. A caller that gets
/// `.incomplete` reads more and calls again with all the bytes so far; heads nearly always arrive in one read, so
/// the rescans cost little, and keeping no state between calls means a prefix can never be read two ways.
///
/// ```swift
/// switch received.withUnsafeBytes({ RequestHeadParser.parse($0, limit: 16384) }) {
/// case .incomplete: readMore()
/// case .parsed(let head): handle(head, bodyStartingAt: head.length)
/// case .failed(let error): answerAndClose(error)
/// }
/// ```
enum RequestHeadParser {
    enum Outcome: Sendable {
        /// No complete head yet and nothing wrong so far: read more bytes and call again with all bytes so far.
        case incomplete
        case parsed(RequestHead)
        /// The answer to send before closing the connection; it carries `Connection: close`.
        case failed(HTTPError)
    }

    /// The most header lines a request may have, however short they are (each costs a String pair).
    static let headerLineLimit = 200
    /// Empty lines skipped before the request line: RFC 9112, section 2.2, asks servers to forgive the extra CRLF
    /// some clients send after a body; a client sending more is not speaking HTTP.
    static let leadingEmptyLineLimit = 4

    /// Parses the head at the start of `bytes` (which may hold more: the body, or pipelined requests, after the head).
    ///
    /// Errors are reported as soon as the bytes received show them: a bad request line when that line ends (or at
    /// its first byte that no request line may hold), a bad header line when it ends, and a head that is too large
    /// as soon as `bytes` holds more than `limit` bytes without its end.
    /// - Parameters:
    ///   - bytes: everything received on the connection since the previous request ended.
    ///   - limit: the largest head accepted, in bytes; a head of exactly `limit` bytes is accepted.
    static func parse(_ bytes: UnsafeRawBufferPointer, limit: Int) -> Outcome {
        // Only the first `limit` bytes can belong to an acceptable head, so they are all that is read. If they hold no
        // whole head and more bytes came, the head is too large whatever follows: no need to wait for it.
        let end = min(bytes.count, max(limit, 0))
        func ranOut(requestLineEnded: Bool) -> Outcome {
            guard bytes.count > end else { return .incomplete }
            return .failed(requestLineEnded ? headersTooLarge(limit: limit) : targetTooLong(limit: limit))
        }

        var position = 0
        var emptyLines = 0
        skipping: while position < end, emptyLines < leadingEmptyLineLimit {
            switch bytes[position] {
            case lineFeed:
                position += 1
            case carriageReturn:
                guard position + 1 < end else { return ranOut(requestLineEnded: false) }
                guard bytes[position + 1] == lineFeed else { return .failed(bareCarriageReturnInRequestLine) }
                position += 2
            default:
                break skipping
            }
            emptyLines += 1
        }

        let lineStart = position
        let lineContentEnd = contentEnd(in: bytes, from: lineStart, to: end)
        let requestLineBreak = lineBreak(in: bytes, at: lineContentEnd, end: end)
        var requestLineEnd = 0
        if case .after(let next) = requestLineBreak { requestLineEnd = next }
        let parts = requestLine(in: bytes, from: lineStart, to: lineContentEnd, ended: requestLineEnd > 0)
        guard case .valid(let methodEnd, let targetEnd) = parts else {
            if case .invalid(let error) = parts { return .failed(error) }
            if case .bareCarriageReturn = requestLineBreak { return .failed(bareCarriageReturnInRequestLine) }
            return ranOut(requestLineEnded: lineContentEnd < end)
        }

        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(16)
        position = requestLineEnd
        while true {
            let headerStart = position
            if headerStart < end, bytes[headerStart] != carriageReturn, bytes[headerStart] != lineFeed {
                // Both are known from the line's first byte, so they need not wait for its end.
                if headers.count == headerLineLimit {
                    return .failed(
                        refusal(
                            431, "headers_too_large",
                            "the request has more header lines than the limit of \(headerLineLimit)"))
                }
                if isWhitespace(bytes[headerStart]) { return .failed(foldedHeaderLine) }
            }
            let headerContentEnd = contentEnd(in: bytes, from: headerStart, to: end)
            switch lineBreak(in: bytes, at: headerContentEnd, end: end) {
            case .notYet:
                return ranOut(requestLineEnded: true)
            case .bareCarriageReturn:
                let line = UnsafeRawBufferPointer(rebasing: bytes[headerStart..<headerContentEnd])
                return .failed(
                    malformedHeader(
                        line.isEmpty
                            ? "the line after the headers has a carriage return (CR) not followed by a line feed (LF)"
                            : "the header line \(quoted(line)) has a carriage return (CR) not followed by a line feed (LF)"
                    ))
            case .after(let next):
                guard headerContentEnd > headerStart else {
                    return .parsed(
                        RequestHead(
                            method: string(bytes, lineStart..<methodEnd),
                            target: string(bytes, (methodEnd + 1)..<targetEnd),
                            version: bytes[lineContentEnd - 1] == UInt8(ascii: "1") ? "HTTP/1.1" : "HTTP/1.0",
                            headers: headers, length: next))
                }
                switch fieldLine(in: bytes, from: headerStart, to: headerContentEnd) {
                case .valid(let nameEnd, let value):
                    headers.append((name: string(bytes, headerStart..<nameEnd), value: string(bytes, value)))
                case .invalid(let problem):
                    let line = UnsafeRawBufferPointer(rebasing: bytes[headerStart..<headerContentEnd])
                    return .failed(malformedHeader("the header line \(quoted(line)) \(problem)"))
                }
                position = next
            }
        }
    }

    // MARK: Field lines (shared with the chunked body's trailer)

    /// A field line (`name ":" OWS value OWS`, RFC 9112 section 5) split into its parts, or what is wrong with it.
    enum FieldLine {
        /// The name is `start..<nameEnd`; `value` is trimmed of spaces and tabs at both ends.
        case valid(nameEnd: Int, value: Range<Int>)
        /// Says what is wrong, to follow the quoted line in a message: `has no colon`.
        case invalid(String)
    }

    /// Splits the field line `bytes[start..<end]` (its line end left out).
    ///
    /// The name must be a token right up to the colon: whitespace before the colon is refused rather than trimmed
    /// (RFC 9112, section 5.1), as two servers that trim it differently can be told different things. Values may
    /// hold tabs, spaces, visible ASCII and bytes from 0x80 (obs-text), nothing else.
    static func fieldLine(in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> FieldLine {
        var index = start
        while index < end, isTokenByte(bytes[index]) { index += 1 }
        let nameEnd = index
        guard index < end, bytes[index] == colon, index > start else {
            return .invalid(nameProblem(in: bytes, from: start, nameEnd: nameEnd, to: end))
        }
        index += 1
        while index < end, isWhitespace(bytes[index]) { index += 1 }
        let valueStart = index
        var valueEnd = index
        while index < end {
            let byte = bytes[index]
            if byte > space, byte != delete {
                valueEnd = index + 1
            } else if !isWhitespace(byte) {
                return .invalid("has a control character in its value")
            }
            index += 1
        }
        return .valid(nameEnd: nameEnd, value: valueStart..<valueEnd)
    }

    /// `"text"` for a message: the first 100 bytes of `bytes`, printable ASCII as it is and any other byte as `\xHH`,
    /// so that the message is readable, valid UTF-8 whatever the client sent.
    static func quoted(_ bytes: UnsafeRawBufferPointer) -> String {
        let shown = 100
        let hexDigits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = [UInt8(ascii: "\"")]
        text.reserveCapacity(shown + 8)
        for byte in bytes.prefix(shown) {
            if byte >= space, byte < delete {
                text.append(byte)
            } else {
                text += [UInt8(ascii: "\\"), UInt8(ascii: "x"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            }
        }
        if bytes.count > shown { text += Array("...".utf8) }
        text.append(UInt8(ascii: "\""))
        return String(decoding: text, as: UTF8.self)
    }

    /// RFC 9110 `tchar`: letters, digits and ``!#$%&'*+-.^_`|~``.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "^"), UInt8(ascii: "`"),
            UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Space or horizontal tab, HTTP's optional whitespace.
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    // Computed, so that the hot loops compare against constants rather than read lazily initialised globals.
    static var carriageReturn: UInt8 { 0x0D }
    static var lineFeed: UInt8 { 0x0A }
    private static var space: UInt8 { 0x20 }
    private static var tab: UInt8 { 0x09 }
    private static var colon: UInt8 { 0x3A }
    private static var delete: UInt8 { 0x7F }

    // MARK: Lines

    /// How a line ends, judged from its first CR or LF.
    private enum LineBreak {
        /// The bytes received stop before the line's end is known.
        case notYet
        /// A CR followed by something other than LF, which HTTP/1.1 forbids (RFC 9112, section 2.2).
        case bareCarriageReturn
        /// The line ends; the next one starts at this index.
        case after(Int)
    }

    /// The index of the first CR or LF in `bytes[start..<end]`, or `end`.
    @inline(__always)
    private static func contentEnd(in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
        var index = start
        while index < end {
            let byte = bytes[index]
            if byte == lineFeed || byte == carriageReturn { break }
            index += 1
        }
        return index
    }

    /// The line end at `index`, the first CR or LF of a line (or `end`). A bare LF is taken as a line end, as RFC 9112
    /// (section 2.2) allows.
    private static func lineBreak(in bytes: UnsafeRawBufferPointer, at index: Int, end: Int) -> LineBreak {
        guard index < end else { return .notYet }
        if bytes[index] == lineFeed { return .after(index + 1) }
        guard index + 1 < end else { return .notYet }
        return bytes[index + 1] == lineFeed ? .after(index + 2) : .bareCarriageReturn
    }

    // MARK: Request line

    private enum RequestLine {
        /// Sound so far, but the line has not ended.
        case unfinished
        case invalid(HTTPError)
        /// The method is `start..<methodEnd`, the target `methodEnd + 1..<targetEnd`, the version the rest.
        case valid(methodEnd: Int, targetEnd: Int)
    }

    /// Checks the request line `bytes[start..<end]` byte by byte, so that a byte no request line may hold is refused
    /// as soon as it arrives (a TLS handshake sent to this plain port is answered at once, not after `limit` bytes).
    /// - Parameter ended: whether `end` is where the line ends, or only where the bytes received so far stop.
    private static func requestLine(
        in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int, ended: Bool
    ) -> RequestLine {
        var index = start
        while index < end, isTokenByte(bytes[index]) { index += 1 }
        guard index < end else { return ended ? .invalid(requestLineShape) : .unfinished }
        guard bytes[index] == space, index > start else {
            return .invalid(
                isWhitespace(bytes[index])
                    ? requestLineShape
                    : malformedRequestLine(
                        "the method may contain only letters, digits and !#$%&'*+-.^_`|~, as in GET or POST"))
        }
        let methodEnd = index
        index += 1
        let targetStart = index
        // No form of request-target holds a fragment (RFC 9112, section 3.2): a client keeps it to itself.
        while index < end, bytes[index] > space, bytes[index] < delete, bytes[index] != numberSign { index += 1 }
        guard index < end else { return ended ? .invalid(requestLineShape) : .unfinished }
        guard bytes[index] == space, index > targetStart else {
            if bytes[index] == numberSign { return .invalid(fragmentInTarget) }
            return .invalid(
                isWhitespace(bytes[index])
                    ? requestLineShape
                    : malformedRequestLine(
                        "the request target may contain only visible ASCII characters; percent-encode any other"))
        }
        let targetEnd = index
        let versionStart = index + 1
        let versionLength = end - versionStart
        guard versionLength <= 8 else { return .invalid(requestLineShape) }
        for offset in 0..<versionLength where !isVersionByte(bytes[versionStart + offset], at: offset) {
            return .invalid(requestLineShape)
        }
        guard ended else { return .unfinished }
        guard versionLength == 8 else { return .invalid(requestLineShape) }
        let major = bytes[versionStart + 5]
        let minor = bytes[versionStart + 7]
        guard major == UInt8(ascii: "1"), minor == UInt8(ascii: "1") || minor == UInt8(ascii: "0") else {
            let version = string(bytes, versionStart..<end)
            return .invalid(
                refusal(505, "http_version_not_supported", "\(version) is not supported; send HTTP/1.1"))
        }
        return .valid(methodEnd: methodEnd, targetEnd: targetEnd)
    }

    /// Whether `byte` may stand at `offset` in `HTTP/<digit>.<digit>` (RFC 9112, section 2.3: case-sensitive).
    @inline(__always)
    private static func isVersionByte(_ byte: UInt8, at offset: Int) -> Bool {
        switch offset {
        case 0: byte == UInt8(ascii: "H")
        case 1, 2: byte == UInt8(ascii: "T")
        case 3: byte == UInt8(ascii: "P")
        case 4: byte == UInt8(ascii: "/")
        case 6: byte == UInt8(ascii: ".")
        default: byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }
    }

    // MARK: Errors

    /// What is wrong with a field line whose name does not end in a colon (`nameEnd` is its first non-token byte).
    private static func nameProblem(
        in bytes: UnsafeRawBufferPointer, from start: Int, nameEnd: Int, to end: Int
    ) -> String {
        var colonIndex = nameEnd
        while colonIndex < end, bytes[colonIndex] != colon { colonIndex += 1 }
        if colonIndex == end { return "has no colon; a header line is NAME: VALUE" }
        if colonIndex == start { return "has an empty name before its colon" }
        if nameEnd > start, (nameEnd..<colonIndex).allSatisfy({ isWhitespace(bytes[$0]) }) {
            return "has whitespace before its colon, which is not allowed"
        }
        return "has a name with characters other than letters, digits and !#$%&'*+-.^_`|~"
    }

    private static func string(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    private static let requestLineShape = malformedRequestLine(
        "the request line must be METHOD TARGET VERSION separated by single spaces, as in GET /v1/apps HTTP/1.1")

    private static let fragmentInTarget = malformedRequestLine(
        "the request target may not hold a fragment (#...): leave it out, "
            + "or percent-encode a # that belongs to the path or query as %23")
    private static let numberSign = UInt8(ascii: "#")
    private static let bareCarriageReturnInRequestLine = refusal(
        400, "malformed_request_line",
        "the request line has a carriage return (CR) not followed by a line feed (LF)")

    private static let foldedHeaderLine = malformedHeader(
        "folded header lines (a line starting with a space or tab that continues the previous one) are not accepted; "
            + "send each header on one line")

    private static func malformedRequestLine(_ message: String) -> HTTPError {
        refusal(400, "malformed_request_line", message)
    }

    private static func malformedHeader(_ message: String) -> HTTPError {
        refusal(400, "malformed_header", message)
    }

    private static func targetTooLong(limit: Int) -> HTTPError {
        refusal(414, "uri_too_long", "the request's path and query are longer than the limit of \(limit) bytes")
    }

    private static func headersTooLarge(limit: Int) -> HTTPError {
        refusal(
            431, "headers_too_large", "the request line and headers are larger than the limit of \(limit) bytes")
    }

    private static func refusal(_ status: Int, _ code: String, _ message: String) -> HTTPError {
        HTTPError(status: status, code: code, message: message, headers: ["Connection": "close"])
    }
}
