import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsTestSupport

/// HTTP/1.1 on one connection, as the server's own parser and writer handle it: keep-alive, pipelining,
/// `100 Continue`, HTTP/1.0, `HEAD`, and what a handler cannot put in a head.
@Suite struct HTTPConnectionTests {
    static let routes = [
        HTTPRoute("GET", "/v1/things/{name}") { request in
            HTTPResponse(status: 200, body: Data("thing \(request.pathParameters["name"] ?? "")".utf8))
        },
        HTTPRoute("POST", "/v1/echo") { request in HTTPResponse(status: 200, body: request.body) },
        HTTPRoute("GET", "/v1/injected") { _ in
            HTTPResponse(status: 200, headers: ["X-Evil": "a\r\nSet-Cookie: stolen=1", "X-Fine": "ok"])
        },
        HTTPRoute("GET", "/v1/stream") { _ in
            HTTPResponse(status: 200) { writer in
                for piece in ["one ", "two ", "three"] { try await writer.write(Data(piece.utf8)) }
            }
        },
    ]

    /// Everything the server writes on one connection until it closes it.
    static func conversation(_ port: Int, _ requests: String) async throws -> String {
        let bytes = try await RawHTTPClient.readThenHangUp(port: port, requests, bytes: .max)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func pipelinedRequestsAreAnsweredInOrderOnOneConnection() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let requests = (1...20).map { "GET /v1/things/\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined()
        let text = try await Self.conversation(
            loopback.port,
            requests + "POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nConnection: close\r\n\r\nlast")
        let bodies = (1...20).map { "thing \($0)" } + ["last"]
        var position = text.startIndex
        for body in bodies {
            let found = try #require(text.range(of: "\r\n\r\n" + body, range: position..<text.endIndex))
            position = found.upperBound
        }
        #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count == 22)
        #expect(text.hasSuffix("last"))
    }

    @Test func aRequestSentByteByByteIsRead() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let request = "POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
        let response = try await RawHTTPClient.exchange(port: loopback.port, pieces: request.utf8.map { Data([$0]) })
        #expect(response.status == 200)
        #expect(response.bodyText == "hello")
    }

    @Test func aClientThatExpectsContinueIsToldBeforeItSendsItsBody() async throws {
        let loopback = try LoopbackServer(configuration: .init(maximumBodyBytes: 100), routes: Self.routes)
        defer { loopback.server.stopNow() }
        let socket = try RawHTTPClient.holdConnection(port: loopback.port)
        defer { RawHTTPClient.release(socket) }
        try Self.send(socket, "POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        #expect(try Self.receive(socket).hasPrefix("HTTP/1.1 100 Continue\r\n\r\n"))
        try Self.send(socket, "hello")
        let answer = try Self.receive(socket)
        #expect(answer.hasPrefix("HTTP/1.1 200 OK"))
        #expect(answer.hasSuffix("\r\n\r\nhello"))

        // Too large for the limit: 413 at once, never 100.
        let refused = try await RawHTTPClient.exchange(
            port: loopback.port,
            "POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 500\r\nExpect: 100-continue\r\n\r\n")
        #expect(refused.status == 413)
    }

    @Test func http10IsClosedAfterItsAnswerUnlessItAsksToKeepAlive() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let closed = try await RawHTTPClient.exchange(port: loopback.port, "GET /v1/things/a HTTP/1.0\r\n\r\n")
        #expect(closed.status == 200)
        #expect(closed.headers["connection"] == "close")
        #expect(closed.bodyText == "thing a")

        let kept = try await Self.conversation(
            loopback.port,
            "GET /v1/things/a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /v1/things/b HTTP/1.0\r\n\r\n")
        #expect(kept.contains("Connection: keep-alive\r\n"))
        #expect(kept.hasSuffix("thing b"))

        // A streamed body cannot be chunked for HTTP/1.0: it ends with the connection.
        let streamed = try await RawHTTPClient.exchange(port: loopback.port, "GET /v1/stream HTTP/1.0\r\n\r\n")
        #expect(streamed.headers["transfer-encoding"] == nil)
        #expect(streamed.bodyText == "one two three")
    }

    @Test func headGetsTheLengthWithoutTheBody() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let text = try await Self.conversation(
            loopback.port,
            "HEAD /v1/things/a HTTP/1.1\r\nHost: t\r\n\r\nGET /v1/things/b HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        )
        let answers = text.components(separatedBy: "HTTP/1.1 200 OK")
        #expect(answers.count == 3)
        // The router answers HEAD with the GET route: its length, not its bytes.
        #expect(answers[1].contains("Content-Length: 7\r\n"))
        #expect(answers[1].hasSuffix("\r\n\r\n"))
        #expect(text.hasSuffix("thing b"))
    }

    @Test func aMalformedRequestAfterAHeadStillGetsItsErrorBody() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let text = try await Self.conversation(
            loopback.port, "HEAD /v1/things/a HTTP/1.1\r\nHost: t\r\n\r\nGARBAGE\r\n\r\n")
        #expect(text.contains("HTTP/1.1 400 Bad Request"))
        #expect(text.hasSuffix("}}"))
        #expect(text.contains("\"code\":\"malformed_request_line\""))
    }

    @Test func aHeaderValueThatWouldSplitTheHeadIsLeftOut() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /v1/injected HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.headers["x-fine"] == "ok")
        #expect(response.headers["x-evil"] == nil)
        #expect(response.headers["set-cookie"] == nil)
    }

    @Test func everyAnswerCarriesADate() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /v1/things/a HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let date = try #require(response.headers["date"])
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let parsed = try #require(formatter.date(from: date))
        #expect(abs(parsed.timeIntervalSinceNow) < 5)
    }

    @Test func aClientThatLeavesMidBodyIsCountedAsAReadError() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        _ = try await RawHTTPClient.readThenHangUp(
            port: loopback.port, "POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nonly part", bytes: 0)
        let counted = #"tidings_http_requests_terminated_total{reason="read_error"} 1"#
        let deadline = ContinuousClock.now + .seconds(5)
        while !loopback.metrics.exposition().contains(counted), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(loopback.metrics.exposition().contains(counted))
        #expect(loopback.server.requestsInFlight == 0)
    }

    private static func send(_ socket: Int32, _ text: String) throws {
        let sent = text.withCString { PortableSocket.send(socket, $0, strlen($0)) }
        try #require(sent == text.utf8.count)
    }

    /// What the server has written within a moment (one read, after waiting for the first byte).
    private static func receive(_ socket: Int32) throws -> String {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(socket, &buffer, buffer.count, 0)
        try #require(count > 0)
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }
}
