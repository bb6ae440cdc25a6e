import Foundation
import Testing
import TidingsModel
import TidingsTestSupport

@testable import TidingsHTTP

/// Requests whose end two HTTP parsers could place differently are refused before any handler runs.
@Suite struct RequestFramingTests {
    static func refusal(_ headers: [(String, String)], version: String = "HTTP/1.1") -> HTTPError? {
        RequestFraming.refusal(version: version, headers: headers.map { (name: $0.0, value: $0.1) })
    }

    @Test func aPlainRequestPasses() {
        #expect(Self.refusal([("Host", "t"), ("Content-Length", "3")]) == nil)
        #expect(Self.refusal([("host", "t"), ("transfer-encoding", "Chunked")]) == nil)
        #expect(Self.refusal([("Host", "t"), ("Content-Length", "3"), ("content-length", "3")]) == nil)
        #expect(Self.refusal([], version: "HTTP/1.0") == nil)
    }

    @Test func hostMustAppearExactlyOnceInHTTP11() {
        #expect(Self.refusal([])?.code == "invalid_host")
        #expect(Self.refusal([("Host", "a"), ("Host", "b")])?.message.hasSuffix("this one has 2") == true)
        #expect(Self.refusal([("Host", "a"), ("host", "b")], version: "HTTP/1.0")?.code == "invalid_host")
    }

    @Test(arguments: [
        "", "api.example.com", "api.example.com:8443", "127.0.0.1", "127.0.0.1:80", "localhost:", "[::1]",
        "[::1]:8080", "[2001:db8::7]:443", "[v1.fe80::a+en1]", "xn--bcher-kva.example", "a%20b", "A_B~c!$&'()*+,;=",
    ])
    func aHostOfRFC3986WithAnOptionalPortIsAccepted(_ host: String) {
        #expect(RequestFraming.isValidHost(host))
        #expect(Self.refusal([("Host", host)]) == nil)
    }

    @Test(arguments: [
        "user@api.example.com", "api.example.com:80:80", "api.example.com:x", "api.example.com/path", "a?b", "a#b",
        "[::1", "[]", "[::1]x", "[::1]:8a", "a b", "a%2", "a%zz", "a\"b", "a[b]", "<a>", "a\\b",
    ])
    func anyOtherHostIsRefused(_ host: String) {
        #expect(!RequestFraming.isValidHost(host))
        let refusal = Self.refusal([("Host", host)])
        #expect(refusal?.status == 400)
        #expect(refusal?.code == "invalid_host")
        #expect(refusal?.message.contains("as in api.example.com:8443") == true)
        #expect(refusal?.headers["Connection"] == "close")
    }

    @Test func aLongHostIsQuotedShort() throws {
        let refusal = try #require(Self.refusal([("Host", String(repeating: "a", count: 500) + "@b")]))
        #expect(refusal.message.count < 250)
        #expect(refusal.message.contains(String(repeating: "a", count: 100) + "…"))
    }

    @Test func lengthsThatDisagreeAreRefused() {
        let refusal = Self.refusal([("Host", "t"), ("Content-Length", "5"), ("Content-Length", "6")])
        #expect(refusal?.status == 400)
        #expect(refusal?.code == "conflicting_content_length")
        #expect(refusal?.message.hasSuffix("5, 6") == true)
        #expect(refusal?.headers["Connection"] == "close")
    }

    @Test func aLengthWithChunksIsRefused() {
        let refusal = Self.refusal([("Host", "t"), ("Content-Length", "4"), ("Transfer-Encoding", "chunked")])
        #expect(refusal?.status == 400)
        #expect(refusal?.code == "conflicting_framing")
    }

    /// RFC 9112, section 6.1: a server that receives Transfer-Encoding in an HTTP/1.0 request must treat its
    /// framing as faulty, whatever else it carries.
    @Test(arguments: [
        [("Transfer-Encoding", "chunked")], [("Transfer-Encoding", "chunked"), ("Connection", "keep-alive")],
        [("Host", "t"), ("transfer-encoding", "Chunked")], [("Transfer-Encoding", "")],
    ])
    func transferEncodingInHTTP10IsRefused(_ headers: [(String, String)]) {
        let refusal = Self.refusal(headers, version: "HTTP/1.0")
        #expect(refusal?.status == 400)
        #expect(refusal?.code == "conflicting_framing")
        #expect(refusal?.message.contains("HTTP/1.0") == true)
        #expect(refusal?.headers["Connection"] == "close")
    }

    /// A Transfer-Encoding line with no coding is not "no coding": a proxy may read the body as chunked, or refuse.
    @Test func anEmptyTransferEncodingIsRefused() {
        let refusal = Self.refusal([("Host", "t"), ("Transfer-Encoding", ""), ("Content-Length", "3")])
        #expect(refusal?.code == "conflicting_framing")
        let alone = Self.refusal([("Host", "t"), ("Transfer-Encoding", " , ")])
        #expect(alone?.status == 501)
        #expect(alone?.message.hasSuffix("none") == true)
    }

    @Test(arguments: ["gzip", "gzip, chunked", "chunked, chunked", "identity"])
    func codingsOtherThanChunkedAre501(_ coding: String) {
        let refusal = Self.refusal([("Host", "t"), ("Transfer-Encoding", coding)])
        #expect(refusal?.status == 501)
        #expect(refusal?.code == "unsupported_transfer_encoding")
        #expect(refusal?.message.hasSuffix(coding) == true)
    }

    @Test(arguments: ["Host ", "X A", "X:A", "", "X\u{7F}"])
    func headerNamesMustBeTokens(_ name: String) {
        #expect(Self.refusal([("Host", "t"), (name, "v")])?.code == "malformed_header")
    }

    // MARK: Over the wire

    static let routes = [
        HTTPRoute("POST", "/echo") { request in HTTPResponse(status: 200, body: request.body) }
    ]

    @Test(arguments: [
        ("/v1/events", "/v1/events"), ("http://t/v1/events", "/v1/events"), ("HTTPS://t:8443/a/b", "/a/b"),
        ("http://t", "/"), ("*", "*"), ("ftp://t/x", "ftp://t/x"),
    ])
    func aTargetInAbsoluteFormIsReadAsItsPath(target: String, path: String) {
        #expect(RequestFraming.path(ofTarget: target) == path)
    }

    @Test func anAbsoluteFormRequestIsRoutedByItsPath() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let echoed = try await RawHTTPClient.exchange(
            port: loopback.port,
            "POST http://t/echo?x=1 HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        #expect(echoed.status == 200)
        #expect(echoed.bodyText == "ok")
    }

    @Test func conflictingLengthsAreAnsweredInJSONAndTheConnectionClosed() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        // Without the check the server read 5 bytes and took the sixth for the start of another request.
        let response = try await RawHTTPClient.exchange(
            port: loopback.port,
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcdefGET /echo HTTP/1.1\r\n\r\n"
        )
        #expect(response.status == 400)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["connection"]?.lowercased() == "close")
        #expect(try JSONText.parse(response.body)["error"]?["code"]?.stringValue == "conflicting_content_length")
    }

    @Test func theOtherRefusalsOverTheWire() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let cases: [(head: String, status: Int, code: String)] = [
            ("Host: t\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "conflicting_framing"),
            ("Host: t\r\nTransfer-Encoding: gzip\r\n\r\nabc", 501, "unsupported_transfer_encoding"),
            ("Content-Length: 1\r\n\r\na", 400, "invalid_host"),
            ("Host: a\r\nHost: b\r\nContent-Length: 1\r\n\r\na", 400, "invalid_host"),
            ("Host: t\r\nX-A : b\r\nContent-Length: 1\r\n\r\na", 400, "malformed_header"),
            ("Host: user@t\r\nContent-Length: 1\r\n\r\na", 400, "invalid_host"),
        ]
        for (head, status, code) in cases {
            let response = try await RawHTTPClient.exchange(port: loopback.port, "POST /echo HTTP/1.1\r\n" + head)
            #expect(response.status == status, "\(head)")
            #expect(try JSONText.parse(response.body)["error"]?["code"]?.stringValue == code, "\(head)")
        }
        let fragment = try await RawHTTPClient.exchange(
            port: loopback.port, "POST /echo#top HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\n\r\na")
        #expect(fragment.status == 400)
        #expect(try JSONText.parse(fragment.body)["error"]?["code"]?.stringValue == "malformed_request_line")
        // A sound request on the same server is still served.
        let echoed = try await RawHTTPClient.exchange(
            port: loopback.port, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc")
        #expect(echoed.status == 200)
        #expect(echoed.bodyText == "abc")
    }
}
