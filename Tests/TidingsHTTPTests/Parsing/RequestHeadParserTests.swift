import Testing

@testable import TidingsHTTP

/// A request head is read strictly, every error is ours (JSON, `Connection: close`), and the outcome does not depend on
/// how the bytes were split into reads.
@Suite struct RequestHeadParserTests {
    static func parse(_ bytes: [UInt8], limit: Int = 16384) -> RequestHeadParser.Outcome {
        bytes.withUnsafeBytes { RequestHeadParser.parse($0, limit: limit) }
    }

    static func parse(_ text: String, limit: Int = 16384) -> RequestHeadParser.Outcome {
        parse(Array(text.utf8), limit: limit)
    }

    static func head(_ outcome: RequestHeadParser.Outcome) -> RequestHead? {
        if case .parsed(let head) = outcome { return head }
        return nil
    }

    static func error(_ outcome: RequestHeadParser.Outcome) -> HTTPError? {
        if case .failed(let error) = outcome { return error }
        return nil
    }

    /// Outcomes hold tuples, so they compare through this.
    static func summary(_ outcome: RequestHeadParser.Outcome) -> String {
        switch outcome {
        case .incomplete:
            "incomplete"
        case .parsed(let head):
            "parsed \(head.method) \(head.target) \(head.version) \(head.headers.map { "\($0.name)=\($0.value)" }) "
                + "length \(head.length)"
        case .failed(let error):
            "failed \(error.status) \(error.code) \(error.message) \(error.headers["Connection"] ?? "-")"
        }
    }

    /// Parses every prefix of `bytes`, as a server reading one byte at a time would: each is `.incomplete` until the
    /// outcome is decided, which then stays that of the whole input. Returns how many bytes it took to decide.
    @discardableResult
    static func expectDripFeedAgrees(
        _ bytes: [UInt8], limit: Int = 16384, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Int? {
        let whole = summary(parse(bytes, limit: limit))
        var decidedAt: Int?
        for count in 0...bytes.count {
            let outcome = summary(parse(Array(bytes[..<count]), limit: limit))
            if decidedAt == nil, outcome != "incomplete" { decidedAt = count }
            if decidedAt != nil {
                #expect(outcome == whole, "prefix of \(count) bytes", sourceLocation: sourceLocation)
            }
        }
        #expect(decidedAt != nil || whole == "incomplete", sourceLocation: sourceLocation)
        return decidedAt
    }

    static let request = "GET / HTTP/1.1\r\nHost: t\r\n"

    // MARK: Sound heads

    @Test func aHeadIsSplitIntoItsFields() throws {
        let text =
            "GET /v1/apps?x=%20y&z=%2F HTTP/1.1\r\nHost: example.com\r\nX-Empty:\r\nX-Spaced: \t a \t b \t\r\n"
            + "x-lower:v\r\n\r\n"
        let head = try #require(Self.head(Self.parse(text)))
        #expect(head.method == "GET")
        #expect(head.target == "/v1/apps?x=%20y&z=%2F")
        #expect(head.version == "HTTP/1.1")
        #expect(head.headers.map(\.name) == ["Host", "X-Empty", "X-Spaced", "x-lower"])
        #expect(head.headers.map(\.value) == ["example.com", "", "a \t b", "v"])
        #expect(head.length == text.utf8.count)
    }

    @Test(arguments: [
        ("get / HTTP/1.0\r\n\r\n", "get", "/", "HTTP/1.0"),
        ("OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n", "OPTIONS", "*", "HTTP/1.1"),
        ("POST http://t/v1/x?a=\"b\" HTTP/1.1\r\nHost: t\r\n\r\n", "POST", "http://t/v1/x?a=\"b\"", "HTTP/1.1"),
        ("M-SEARCH! /~a|b HTTP/1.1\r\n\r\n", "M-SEARCH!", "/~a|b", "HTTP/1.1"),
    ])
    func methodAndTargetAreKeptAsSent(text: String, method: String, target: String, version: String) throws {
        let head = try #require(Self.head(Self.parse(text)))
        #expect(head.method == method)
        #expect(head.target == target)
        #expect(head.version == version)
    }

    @Test func bareLineFeedsEndLines() throws {
        let text = "GET / HTTP/1.1\nHost: t\nX: y\r\n\n"
        let head = try #require(Self.head(Self.parse(text)))
        #expect(head.headers.map(\.value) == ["t", "y"])
        #expect(head.length == text.utf8.count)
        let mixed = "GET / HTTP/1.1\r\nHost: t\n\r\n"
        #expect(Self.head(Self.parse(mixed))?.length == mixed.utf8.count)
    }

    @Test func leadingEmptyLinesAreSkippedAndCounted() throws {
        let text = "\r\n\n\r\n\n" + Self.request + "\r\n"
        let head = try #require(Self.head(Self.parse(text)))
        #expect(head.method == "GET")
        #expect(head.length == text.utf8.count)
        Self.expectDripFeedAgrees(Array(text.utf8))

        let tooMany = Self.error(Self.parse("\r\n\r\n\r\n\r\n\r\n" + Self.request + "\r\n"))
        #expect(tooMany?.status == 400)
        #expect(tooMany?.code == "malformed_request_line")
    }

    @Test func bytesAfterTheHeadAreLeftForTheBodyAndTheNextRequest() throws {
        let first = "POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\n"
        let second = "GET /b HTTP/1.1\r\nHost: t\r\n\r\n"
        let bytes = Array((first + "body" + second + "GET /c").utf8)
        let head = try #require(Self.head(Self.parse(bytes)))
        #expect(head.target == "/a")
        #expect(head.length == first.utf8.count)
        let next = try #require(Self.head(Self.parse(Array(bytes[(head.length + 4)...]))))
        #expect(next.target == "/b")
        #expect(next.length == second.utf8.count)
        #expect(Self.expectDripFeedAgrees(bytes) == first.utf8.count)
    }

    @Test func valuesMayHoldTabsAndBytesBeyondASCII() throws {
        let latin1 =
            Array("GET / HTTP/1.1\r\nX-Latin1: caf".utf8) + [0xE9] + Array("\r\nX-UTF8: café\tau lait\r\n\r\n".utf8)
        let head = try #require(Self.head(Self.parse(latin1)))
        #expect(head.headers.map(\.value) == ["caf\u{FFFD}", "café\tau lait"])
        Self.expectDripFeedAgrees(latin1)
    }

    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: t\r\n\r\n", "\nGET /x?y=%41 HTTP/1.0\nA:b\n\n",
        "PUT /p HTTP/1.1\r\nA: 1\r\nB:2\r\n\r\nbody",
    ])
    func aHeadFedOneByteAtATimeIsIncompleteUntilItsBlankLine(_ text: String) throws {
        let bytes = Array(text.utf8)
        let head = try #require(Self.head(Self.parse(bytes)))
        #expect(Self.expectDripFeedAgrees(bytes) == head.length)
    }

    // MARK: Request line

    @Test(arguments: [
        "GARBAGE\r\n", "GET  / HTTP/1.1\r\n", "GET /  HTTP/1.1\r\n", "GET / HTTP/1.1 \r\n", " GET / HTTP/1.1\r\n",
        "GET\t/ HTTP/1.1\r\n", "GET /\r\n", "GET / \r\n", "GET / http/1.1\r\n", "GET / HTTP/1\r\n",
        "GET / HTTP/11.1\r\n", "GET / HTTP/1.1x\r\n", "GET / HTTPS/1.1\r\n", "GET / HTTP/1.x\r\n",
        "GET /a b HTTP/1.1\r\n",
    ])
    func aRequestLineNotMethodTargetVersionIs400AsSoonAsItEnds(_ line: String) {
        let error = Self.error(Self.parse(line))
        #expect(error?.status == 400)
        #expect(error?.code == "malformed_request_line")
        #expect(error?.message.contains("METHOD TARGET VERSION separated by single spaces") == true)
        #expect(error?.headers["Connection"] == "close")
        Self.expectDripFeedAgrees(Array((line + "Host: t\r\n\r\n").utf8))
    }

    @Test(arguments: [
        ("G@T / HTTP/1.1\r\n", "method"), ("GET /a\u{7F} HTTP/1.1\r\n", "visible ASCII"),
        ("GET /café HTTP/1.1\r\n", "visible ASCII"), ("GET /a\u{0}b HTTP/1.1\r\n", "visible ASCII"),
        ("(GET) / HTTP/1.1\r\n", "method"), ("GET /a#b HTTP/1.1\r\n", "fragment"),
        ("GET /a?b=c#d HTTP/1.1\r\n", "fragment"), ("GET http://t/a#b HTTP/1.1\r\n", "fragment"),
    ])
    func aMethodOrTargetWithAForbiddenCharacterIs400(line: String, named: String) {
        let error = Self.error(Self.parse(line))
        #expect(error?.status == 400)
        #expect(error?.code == "malformed_request_line")
        #expect(error?.message.contains(named) == true)
    }

    @Test(arguments: ["\u{16}", "G@", "GET /a\u{1}", "GET / F", "GET / HTTP/1.1 ", "GET / HTTP/1.10"])
    func aByteNoRequestLineMayHoldIsRefusedBeforeTheLineEnds(_ start: String) {
        #expect(Self.error(Self.parse(start))?.code == "malformed_request_line")
        #expect(Self.summary(Self.parse(String(start.dropLast()))) == "incomplete")
    }

    @Test(arguments: ["HTTP/2.0", "HTTP/1.2", "HTTP/0.9", "HTTP/3.0", "HTTP/9.9"])
    func anotherHTTPVersionIs505AsSoonAsTheLineEnds(_ version: String) {
        #expect(Self.summary(Self.parse("GET / \(version)")) == "incomplete")
        let error = Self.error(Self.parse("GET / \(version)\r\n"))
        #expect(error?.status == 505)
        #expect(error?.code == "http_version_not_supported")
        #expect(error?.message == "\(version) is not supported; send HTTP/1.1")
        #expect(error?.headers["Connection"] == "close")
    }

    // MARK: Line ends

    @Test(arguments: [
        ("GET / HTTP/1.1\rX", "malformed_request_line"), ("\rGET / HTTP/1.1\r\n\r\n", "malformed_request_line"),
        ("\r\n\rGET / HTTP/1.1\r\n\r\n", "malformed_request_line"),
        ("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", "malformed_header"),
        ("GET / HTTP/1.1\r\nHost: a\r\n\rX", "malformed_header"),
    ])
    func aCarriageReturnWithoutLineFeedIs400(text: String, code: String) {
        let error = Self.error(Self.parse(text))
        #expect(error?.status == 400)
        #expect(error?.code == code)
        #expect(error?.message.contains("carriage return (CR) not followed by a line feed (LF)") == true)
        #expect(error?.headers["Connection"] == "close")
        Self.expectDripFeedAgrees(Array(text.utf8))
    }

    @Test func aCarriageReturnAtTheEndOfTheBytesWaitsForTheNextByte() {
        #expect(Self.summary(Self.parse("GET / HTTP/1.1\r")) == "incomplete")
        #expect(Self.summary(Self.parse("GET / HTTP/1.1\r\nHost: t\r")) == "incomplete")
        #expect(Self.summary(Self.parse("GET / HTTP/1.1\r\nHost: t\r\n\r")) == "incomplete")
        #expect(Self.summary(Self.parse("\r")) == "incomplete")
    }

    @Test func aBareCarriageReturnInAHeaderLineIsQuoted() {
        let error = Self.error(Self.parse("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n"))
        #expect(error?.message.contains("the header line \"Host: a\"") == true)
    }

    // MARK: Header lines

    @Test(arguments: [
        ("Host : x", "\"Host : x\"", "whitespace before its colon"),
        ("X-A\t: x", "\"X-A\\x09: x\"", "whitespace before its colon"),
        ("NoColon", "\"NoColon\"", "has no colon"),
        (": empty", "\": empty\"", "empty name"),
        ("Bad Name: x", "\"Bad Name: x\"", "name with characters other than"),
        ("X@Y: z", "\"X@Y: z\"", "name with characters other than"),
        ("X: a\u{0}b", "\"X: a\\x00b\"", "control character in its value"),
        ("X: a\u{1}b", "\"X: a\\x01b\"", "control character in its value"),
        ("X: a\u{7F}", "\"X: a\\x7F\"", "control character in its value"),
    ])
    func aMalformedHeaderLineIs400AndQuotedAsSoonAsItEnds(line: String, quoted: String, problem: String) {
        let text = Self.request + line + "\r\n"
        let error = Self.error(Self.parse(text))
        #expect(error?.status == 400)
        #expect(error?.code == "malformed_header")
        #expect(error?.message.hasPrefix("the header line \(quoted) ") == true)
        #expect(error?.message.contains(problem) == true)
        #expect(error?.headers["Connection"] == "close")
        #expect(Self.expectDripFeedAgrees(Array((text + "\r\n").utf8)) == text.utf8.count)
    }

    @Test func theQuotedLineIsShortAndReadableWhateverWasSent() throws {
        let line = Array("Bad".utf8) + [0x01, 0xFF, 0xC3] + Array(repeating: UInt8(ascii: "a"), count: 300)
        let error = try #require(Self.error(Self.parse(Array(Self.request.utf8) + line + Array("\r\n\r\n".utf8))))
        #expect(error.code == "malformed_header")
        let quoted = "\"Bad\\x01\\xFF\\xC3" + String(repeating: "a", count: 94) + "...\""
        #expect(error.message == "the header line \(quoted) has no colon; a header line is NAME: VALUE")
    }

    @Test(arguments: [" b", "\tb"])
    func foldedHeaderLinesAreRefusedAtTheirFirstByte(_ continuation: String) {
        let text = Self.request + "X: a\r\n" + continuation + "\r\n\r\n"
        let error = Self.error(Self.parse(text))
        #expect(error?.status == 400)
        #expect(error?.code == "malformed_header")
        #expect(error?.message.contains("folded header lines") == true)
        #expect(Self.expectDripFeedAgrees(Array(text.utf8)) == Self.request.utf8.count + 7)
        #expect(Self.error(Self.parse("GET / HTTP/1.1\r\n Host: t\r\n\r\n"))?.code == "malformed_header")
    }

    @Test func twoHundredHeaderLinesAreAcceptedAndTheNextRefused() throws {
        let lines = (1...200).map { "X-\($0): v\r\n" }.joined()
        let head = try #require(Self.head(Self.parse("GET / HTTP/1.1\r\n" + lines + "\r\n")))
        #expect(head.headers.count == 200)
        #expect(head.headers.last?.name == "X-200")

        // Refused at the first byte of the 201st line.
        let error = Self.error(Self.parse("GET / HTTP/1.1\r\n" + lines + "X"))
        #expect(error?.status == 431)
        #expect(error?.code == "headers_too_large")
        #expect(error?.message == "the request has more header lines than the limit of 200")
        #expect(error?.headers["Connection"] == "close")
        #expect(Self.summary(Self.parse("GET / HTTP/1.1\r\n" + lines)) == "incomplete")
    }

    // MARK: Limits

    @Test func aHeadOfExactlyTheLimitIsAcceptedAndOneByteMoreIs431() {
        let text = "GET /v1/apps HTTP/1.1\r\nHost: example.com\r\n\r\n"
        let limit = text.utf8.count
        #expect(Self.head(Self.parse(text, limit: limit))?.length == limit)
        // The body after it does not count.
        #expect(Self.head(Self.parse(text + "body", limit: limit))?.length == limit)

        let tooLarge = Self.error(Self.parse(text, limit: limit - 1))
        #expect(tooLarge?.status == 431)
        #expect(tooLarge?.code == "headers_too_large")
        #expect(tooLarge?.message == "the request line and headers are larger than the limit of \(limit - 1) bytes")
        #expect(tooLarge?.headers["Connection"] == "close")
    }

    @Test func headersPastTheLimitAre431AsSoonAsTheBytesPassIt() {
        let text = Self.request + "X-Long: " + String(repeating: "v", count: 100) + "\r\n\r\n"
        let limit = 64
        let bytes = Array(text.utf8)
        #expect(Self.summary(Self.parse(Array(bytes[..<limit]), limit: limit)) == "incomplete")
        #expect(Self.error(Self.parse(Array(bytes[...limit]), limit: limit))?.code == "headers_too_large")
        #expect(Self.expectDripFeedAgrees(bytes, limit: limit) == limit + 1)
    }

    @Test func aRequestLinePastTheLimitIs414AsSoonAsTheBytesPassIt() {
        let text = "GET /" + String(repeating: "a", count: 100) + " HTTP/1.1\r\nHost: t\r\n\r\n"
        let limit = 50
        let bytes = Array(text.utf8)
        #expect(Self.summary(Self.parse(Array(bytes[..<limit]), limit: limit)) == "incomplete")
        let error = Self.error(Self.parse(Array(bytes[...limit]), limit: limit))
        #expect(error?.status == 414)
        #expect(error?.code == "uri_too_long")
        #expect(error?.message == "the request's path and query are longer than the limit of 50 bytes")
        #expect(error?.headers["Connection"] == "close")
        #expect(Self.expectDripFeedAgrees(bytes, limit: limit) == limit + 1)
        // The whole line, however long, is the same 414.
        #expect(Self.error(Self.parse(bytes, limit: limit))?.code == "uri_too_long")
    }

    @Test func aRequestLineThatEndsWithinTheLimitIsNot414() {
        let line = "GET /abc HTTP/1.1\r\n"
        #expect(Self.error(Self.parse(line + "Host: t\r\n\r\n", limit: line.utf8.count))?.code == "headers_too_large")
        #expect(Self.error(Self.parse(line + "Host: t\r\n\r\n", limit: line.utf8.count - 2))?.code == "uri_too_long")
    }

    @Test func anErrorWithinTheLimitIsReportedRatherThanTheLimit() {
        let text = Self.request + "Bad Name: x\r\n" + String(repeating: "X-Pad: v\r\n", count: 20)
        #expect(Self.error(Self.parse(text, limit: 40))?.code == "malformed_header")
        #expect(
            Self.error(Self.parse("G@T /" + String(repeating: "a", count: 80), limit: 40))?.code
                == "malformed_request_line")
    }
}
