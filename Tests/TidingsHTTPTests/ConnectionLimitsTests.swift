import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsTestSupport

/// The limits that bound what one connection may hold: the response deadline against slow readers, the
/// requests and the age a keep-alive connection may have, and framing RFC 9112 has closed after the answer.
@Suite struct ConnectionLimitsTests {
    static let routes = [
        HTTPRoute("POST", "/echo") { request in HTTPResponse(status: 200, body: request.body) },
        HTTPRoute("GET", "/big") { _ in
            HTTPResponse(status: 200, body: Data(repeating: UInt8(ascii: "b"), count: 16 << 20))
        },
        HTTPRoute("GET", "/small") { _ in HTTPResponse(status: 200, body: Data("ok".utf8)) },
    ]

    static func closedCount(_ loopback: LoopbackServer, _ reason: String) -> Int {
        let prefix = "tidings_http_connections_closed_total{reason=\"\(reason)\"} "
        let line = loopback.metrics.exposition().split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { Double($0.dropFirst(prefix.count)) }.map { Int($0) } ?? 0
    }

    static func server(
        _ backend: HTTPServer.ReadinessBackend, _ configuration: HTTPServer.Configuration
    ) throws -> LoopbackServer {
        var configuration = configuration
        configuration.readinessBackend = backend
        return try LoopbackServer(configuration: configuration, routes: routes)
    }

    // MARK: Slow readers

    /// Without the response deadline, each byte read restarted the idle timeout: a client reading 4 KiB every
    /// 100 ms held its connection (and 16 MiB of response) for as long as it liked.
    @Test(arguments: Backends.available)
    func aClientReadingItsResponseTooSlowlyIsClosed(backend: HTTPServer.ReadinessBackend) async throws {
        let loopback = try Self.server(
            backend,
            .init(
                connectionTimeout: .seconds(30), responseGracePeriod: .seconds(1),
                minimumResponseBytesPerSecond: 1 << 20))
        defer { loopback.server.stopNow() }
        let (received, closed) = try await offThePool { () throws -> (Int, Bool) in
            let socket = try BlockingSocket(port: loopback.port, receiveBuffer: 4096)
            socket.sendText("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
            var received = 0
            let deadline = ContinuousClock.now + .seconds(15)
            while ContinuousClock.now < deadline {
                guard let piece = socket.receive(upTo: 4096, timeout: .seconds(1)) else { return (received, true) }
                received += piece.count
                usleep(100_000)
            }
            return (received, false)
        }
        #expect(closed, "still open after 15 s, \(received) bytes read")
        #expect(received < 16 << 20)
        #expect(Self.closedCount(loopback, "response_too_slow") == 1)
    }

    @Test(arguments: Backends.available)
    func aClientReadingAtAFairRateGetsTheWholeResponse(backend: HTTPServer.ReadinessBackend) async throws {
        let loopback = try Self.server(
            backend, .init(responseGracePeriod: .seconds(1), minimumResponseBytesPerSecond: 1024))
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /big HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.body.count == 16 << 20)
        #expect(Self.closedCount(loopback, "response_too_slow") == 0)
    }

    // MARK: Requests and age per connection

    @Test(arguments: Backends.available)
    func theLastAllowedRequestIsAnsweredWithConnectionClose(backend: HTTPServer.ReadinessBackend) async throws {
        let loopback = try Self.server(backend, .init(maximumRequestsPerConnection: 3))
        defer { loopback.server.stopNow() }
        let (data, closed) = try await offThePool { () throws -> (Data, Bool) in
            let socket = try BlockingSocket(port: loopback.port)
            socket.sendText(String(repeating: "GET /small HTTP/1.1\r\nHost: t\r\n\r\n", count: 5))
            return socket.readUntilClosed(timeout: .seconds(5))
        }
        #expect(closed)
        #expect(BlockingSocket.occurrences(of: "HTTP/1.1 200", in: data) == 3)
        #expect(BlockingSocket.occurrences(of: "Connection: close", in: data) == 1)
        let text = String(decoding: data, as: UTF8.self)
        let lastHead = try #require(text.components(separatedBy: "HTTP/1.1 200").last)
        #expect(lastHead.contains("Connection: close"))
    }

    @Test(arguments: Backends.available)
    func aConnectionPastItsAgeIsClosedAfterItsNextResponse(backend: HTTPServer.ReadinessBackend) async throws {
        let loopback = try Self.server(backend, .init(maximumConnectionAge: .milliseconds(500)))
        defer { loopback.server.stopNow() }
        let (first, second, closed) = try await offThePool { () throws -> (Data, Data, Bool) in
            let socket = try BlockingSocket(port: loopback.port)
            socket.sendText("GET /small HTTP/1.1\r\nHost: t\r\n\r\n")
            let first = socket.read(until: "ok", timeout: .seconds(5))
            usleep(700_000)
            socket.sendText("GET /small HTTP/1.1\r\nHost: t\r\n\r\n")
            let (second, closed) = socket.readUntilClosed(timeout: .seconds(5))
            return (first, second, closed)
        }
        #expect(BlockingSocket.occurrences(of: "HTTP/1.1 200", in: first) == 1)
        #expect(BlockingSocket.occurrences(of: "Connection: close", in: first) == 0)
        #expect(BlockingSocket.occurrences(of: "HTTP/1.1 200", in: second) == 1)
        #expect(BlockingSocket.occurrences(of: "Connection: close", in: second) == 1)
        #expect(closed)
    }

    @Test func defaultsCapRequestsAndAgeAndSlowReaders() {
        let configuration = HTTPServer.Configuration()
        #expect(configuration.maximumRequestsPerConnection == 1000)
        #expect(configuration.maximumConnectionAge == .seconds(3600))
        #expect(configuration.responseGracePeriod == .seconds(10))
        #expect(configuration.minimumResponseBytesPerSecond == 1024)
    }

    // MARK: Framing refused over the wire

    /// RFC 9112, section 6.1: Transfer-Encoding in an HTTP/1.0 request is faulty framing; before, the body was
    /// decoded and the connection kept alive for whatever a 1.0 proxy in front took for the next request.
    @Test(arguments: Backends.available)
    func transferEncodingInHTTP10IsRefusedAndTheConnectionClosed(backend: HTTPServer.ReadinessBackend) async throws {
        let loopback = try Self.server(backend, .init())
        defer { loopback.server.stopNow() }
        let (data, closed) = try await offThePool { () throws -> (Data, Bool) in
            let socket = try BlockingSocket(port: loopback.port)
            socket.sendText(
                "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n"
                    + "3\r\nabc\r\n0\r\n\r\nGET /small HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            return socket.readUntilClosed(timeout: .seconds(5))
        }
        #expect(closed)
        let response = try RawHTTPClient.parse(data)
        #expect(response.status == 400)
        #expect(try JSONText.parse(response.body)["error"]?["code"]?.stringValue == "conflicting_framing")
        // The request after it is not answered: the connection closed after the refusal.
        #expect(BlockingSocket.occurrences(of: "HTTP/1.1 200", in: data) == 0)
    }

    @Test(arguments: Backends.available)
    func aBareLineFeedInAChunkedBodyIsRefused(backend: HTTPServer.ReadinessBackend) async throws {
        let loopback = try Self.server(backend, .init())
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port,
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n")
        #expect(response.status == 400)
        #expect(try JSONText.parse(response.body)["error"]?["code"]?.stringValue == "malformed_chunked_body")
        #expect(response.headers["connection"]?.lowercased() == "close")
    }
}
