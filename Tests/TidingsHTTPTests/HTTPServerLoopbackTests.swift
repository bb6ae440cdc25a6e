import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct HTTPServerLoopbackTests {
    static let echo = HTTPRoute("POST", "/v1/echo/{name}") { request in
        var headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
        headers["X-Name"] = request.pathParameters["name"]
        headers["X-Query"] = request.queryValue("q")
        return HTTPResponse(status: 200, headers: headers, body: request.body)
    }

    @Test func roundTripAnswersWithBodyHeadersAndRequestID() async throws {
        let loopback = try LoopbackServer(routes: [Self.echo])
        defer { loopback.server.stopNow() }
        var request = URLRequest(url: loopback.url("/v1/echo/a%2Fb?q=hello+world%21"))
        request.httpMethod = "POST"
        request.httpBody = Data("ping".utf8)
        request.setValue("trace-42", forHTTPHeaderField: "X-Request-Id")
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "ping")
        #expect(http.value(forHTTPHeaderField: "X-Name") == "a/b")
        #expect(http.value(forHTTPHeaderField: "X-Query") == "hello world!")
        #expect(http.value(forHTTPHeaderField: "X-Request-Id") == "trace-42")
    }

    @Test func serverNamesTheClientAndGeneratesDistinctRequestIDs() async throws {
        let route = HTTPRoute("GET", "/who") { request in
            HTTPResponse(status: 200, body: Data((request.remoteAddress ?? "none").utf8))
        }
        let loopback = try LoopbackServer(routes: [route])
        defer { loopback.server.stopNow() }
        var ids: Set<String> = []
        for _ in 0..<3 {
            let response = try await RawHTTPClient.exchange(
                port: loopback.port, "GET /who HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            #expect(response.bodyText == "127.0.0.1")
            let id = try #require(response.headers["x-request-id"])
            #expect(id.wholeMatch(of: /[0-9a-f]{12}-[0-9a-f]{8,}/) != nil)
            ids.insert(id)
        }
        #expect(ids.count == 3)
    }

    @Test func declaredOversizeBodyIsAnswered413BeforeItIsRead() async throws {
        let loopback = try LoopbackServer(configuration: .init(maximumBodyBytes: 1000), routes: [Self.echo])
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port,
            "POST /v1/echo/x HTTP/1.1\r\nHost: t\r\nContent-Length: 5000000\r\nConnection: close\r\n\r\n")
        #expect(response.status == 413)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.bodyText.contains("\"code\":\"payload_too_large\""))
        #expect(response.bodyText.contains("1000 bytes"))
        #expect(
            loopback.metrics.exposition().contains(
                #"tidings_http_requests_refused_total{reason="payload_too_large"} 1"#))
    }

    @Test func chunkedOversizeBodyIsAnswered413() async throws {
        let loopback = try LoopbackServer(configuration: .init(maximumBodyBytes: 1000), routes: [Self.echo])
        defer { loopback.server.stopNow() }
        let chunk = "400\r\n" + String(repeating: "a", count: 1024) + "\r\n"
        let head = "POST /v1/echo/x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        let response = try await RawHTTPClient.exchange(
            port: loopback.port, pieces: [Data(head.utf8), Data(chunk.utf8), Data((chunk + "0\r\n\r\n").utf8)])
        #expect(response.status == 413)
        #expect(response.bodyText.contains("payload_too_large"))
        #expect(
            loopback.metrics.exposition().contains(
                #"tidings_http_requests_refused_total{reason="payload_too_large"} 1"#))
    }

    @Test func endlessChunkedBodyIsAnswered413AsSoonAsItPassesTheLimit() async throws {
        let ran = LockedBox(false)
        let route = HTTPRoute("POST", "/v1/echo/{name}") { _ in
            ran.withLock { $0 = true }
            return HTTPResponse(status: 200)
        }
        let loopback = try LoopbackServer(configuration: .init(maximumBodyBytes: 1000), routes: [route])
        defer { loopback.server.stopNow() }
        let chunk = Data(("400\r\n" + String(repeating: "a", count: 1024) + "\r\n").utf8)
        let head = "POST /v1/echo/x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
        // Never terminated: the first chunk's size already passes the limit, so the answer comes then, and the
        // connection is closed after it.
        let pieces = [Data(head.utf8)] + Array(repeating: chunk, count: 64)
        let response = try await RawHTTPClient.exchange(port: loopback.port, pieces: pieces)
        #expect(response.status == 413)
        #expect(response.headers["connection"] == "close")
        #expect(response.bodyText.contains("\"code\":\"payload_too_large\""))
        #expect(ran.withLock { $0 } == false)
    }

    @Test func bodyAtTheLimitIsAccepted() async throws {
        let loopback = try LoopbackServer(configuration: .init(maximumBodyBytes: 1000), routes: [Self.echo])
        defer { loopback.server.stopNow() }
        let body = String(repeating: "b", count: 1000)
        let response = try await RawHTTPClient.exchange(
            port: loopback.port,
            "POST /v1/echo/x HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n\(body)")
        #expect(response.status == 200)
        #expect(response.body.count == 1000)
    }

    /// Requests the server cannot read as HTTP/1.1 are answered with the JSON error body, and the connection
    /// is closed after the answer; the handler never runs.
    @Test(
        arguments: [
            ("GARBAGE\r\n\r\n", 400, "malformed_request_line"),
            ("GET /x HTTP/9.9\r\nHost: t\r\n\r\n", 505, "http_version_not_supported"),
            ("GET /x HTTP/1.1\r\nno colon here\r\n\r\n", 400, "malformed_header"),
            ("GET /x HTTP/1.1\r\nHost: t\r\n folded\r\n\r\n", 400, "malformed_header"),
            ("GET /x HTTP/1.1\r\nHost: t\r\nX-A\u{0}: b\r\n\r\n", 400, "malformed_header"),
            ("GET /" + String(repeating: "a", count: 40000) + " HTTP/1.1\r\nHost: t\r\n\r\n", 414, "uri_too_long"),
            (
                "GET /x HTTP/1.1\r\nHost: t\r\nX-Big: " + String(repeating: "h", count: 40000) + "\r\n\r\n", 431,
                "headers_too_large"
            ),
            ("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n", 400, "invalid_content_length"),
            ("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\n", 400, "invalid_content_length"),
            (
                "POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", 400,
                "malformed_chunked_body"
            ),
            (
                "POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n", 400,
                "malformed_chunked_body"
            ),
        ] as [(String, Int, String)])
    func malformedRequestIsAnsweredWithJSONWithoutRunningTheHandler(request: String, status: Int, code: String)
        async throws
    {
        let ran = LockedBox(false)
        let route = HTTPRoute("GET", "/x") { _ in
            ran.withLock { $0 = true }
            return HTTPResponse(status: 200)
        }
        let loopback = try LoopbackServer(routes: [route])
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(port: loopback.port, request)
        #expect(response.status == status)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["connection"] == "close")
        #expect(response.bodyText.contains("\"code\":\"\(code)\""))
        #expect(ran.withLock { $0 } == false)
    }

    @Test func oversizeHeadersAreRefusedWithoutRunningTheHandler() async throws {
        let ran = LockedBox(false)
        let route = HTTPRoute("GET", "/x") { _ in
            ran.withLock { $0 = true }
            return HTTPResponse(status: 200)
        }
        let loopback = try LoopbackServer(configuration: .init(connectionMemoryLimit: 8192), routes: [route])
        defer { loopback.server.stopNow() }
        let big = String(repeating: "h", count: 16384)
        let response = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /x HTTP/1.1\r\nHost: t\r\nX-Big: \(big)\r\nConnection: close\r\n\r\n")
        #expect(response.status == 431)
        #expect(response.bodyText.contains("the limit of 8192 bytes"))
        #expect(ran.withLock { $0 } == false)
    }

    @Test func slowHandlerIsAnswered503() async throws {
        let route = HTTPRoute("GET", "/slow") { _ in
            try await Task.sleep(for: .seconds(30))
            return HTTPResponse(status: 200)
        }
        let loopback = try LoopbackServer(
            configuration: .init(handlerTimeout: .milliseconds(100)), routes: [route])
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /slow HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(response.status == 503)
        #expect(response.bodyText.contains("\"code\":\"timeout\""))
    }

    @Test func concurrentRequestsAreAllAnswered() async throws {
        let route = HTTPRoute("GET", "/n/{n}") { request in
            try await Task.sleep(for: .milliseconds(5))
            return HTTPResponse(status: 200, body: Data(request.pathParameters["n"]!.utf8))
        }
        let loopback = try LoopbackServer(routes: [route])
        defer { loopback.server.stopNow() }
        let answers = try await withThrowingTaskGroup(of: [Bool].self) { group in
            for task in 0..<20 {
                group.addTask {
                    var results: [Bool] = []
                    for index in 0..<10 {
                        let n = "\(task)-\(index)"
                        let (data, response) = try await URLSession.shared.data(from: loopback.url("/n/\(n)"))
                        results.append(
                            (response as? HTTPURLResponse)?.statusCode == 200
                                && String(decoding: data, as: UTF8.self) == n)
                    }
                    return results
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(answers.count == 200)
        #expect(answers.allSatisfy { $0 })
        #expect(
            loopback.metrics.exposition().contains(
                "tidings_http_requests_total{method=\"GET\",route=\"/n/{n}\",status=\"200\"} 200"))
    }

    @Test func streamedBodyArrivesChunkedAndWhole() async throws {
        let route = HTTPRoute("GET", "/export") { _ in
            HTTPResponse(status: 200, headers: ["Content-Type": "application/x-ndjson"]) { writer in
                for index in 0..<2000 {
                    try await writer.write(
                        Data("{\"n\":\(index),\"pad\":\"\(String(repeating: "x", count: 200))\"}\n".utf8))
                }
            }
        }
        let loopback = try LoopbackServer(routes: [route])
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /export HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.headers["transfer-encoding"] == "chunked")
        let lines = response.bodyText.split(separator: "\n")
        #expect(lines.count == 2000)
        #expect(lines.last?.hasPrefix("{\"n\":1999,") == true)
        #expect(response.chunkedComplete)
        let access = loopback.logs.records.first { $0.metadata["route"] == "/export" }
        #expect(access?.metadata["bytes"] == String(response.body.count))
    }

    @Test func failingProducerCutsTheStreamShortSoTheClientCanTell() async throws {
        struct Broken: Error {}
        let route = HTTPRoute("GET", "/export") { _ in
            HTTPResponse(status: 200) { writer in
                try await writer.write(Data("{\"n\":1}\n".utf8))
                throw Broken()
            }
        }
        let loopback = try LoopbackServer(routes: [route])
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /export HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.chunkedComplete == false)
        let access = loopback.logs.records.first { $0.metadata["route"] == "/export" }
        #expect(access?.metadata["stream"] == "failed")
    }

    @Test func shutdownLetsTheRequestInFlightFinishAndRefusesNewConnections() async throws {
        let started = AsyncStream.makeStream(of: Void.self)
        let release = AsyncStream.makeStream(of: Void.self)
        let route = HTTPRoute("GET", "/slow") { _ in
            started.continuation.yield()
            for await _ in release.stream { break }
            return HTTPResponse(status: 200, body: Data("done".utf8))
        }
        let loopback = try LoopbackServer(routes: [route])
        let inFlight = Task {
            // Keep-alive: the server itself must say it closes, since it is draining.
            try await RawHTTPClient.exchange(port: loopback.port, "GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        }
        for await _ in started.stream { break }
        let shutdown = Task { await loopback.server.shutdown() }
        // The listening socket closes first: wait until it has.
        // (Bounded, so that a server that keeps listening fails the test rather than hanging it.)
        for _ in 0..<2000 where RawHTTPClient.canConnect(port: loopback.port) {
            try await Task.sleep(for: .milliseconds(5))
        }
        release.continuation.yield()
        let response = try await inFlight.value
        await shutdown.value
        #expect(response.status == 200)
        #expect(response.bodyText == "done")
        #expect(response.headers["connection"]?.lowercased() == "close")
        #expect(RawHTTPClient.canConnect(port: loopback.port) == false)
        #expect(loopback.server.requestsInFlight == 0)
    }
}

@Suite struct HTTPServerLimitTests {
    @Test func silentClientIsDisconnectedAfterTheConnectionTimeout() async throws {
        let loopback = try LoopbackServer(
            configuration: .init(connectionTimeout: .seconds(1)), routes: [HTTPServerLoopbackTests.echo])
        defer { loopback.server.stopNow() }
        // Half a request line, then silence: the server closes without answering.
        await #expect(throws: RawHTTPClient.Failure.self) {
            try await RawHTTPClient.exchange(port: loopback.port, "POST /v1/echo/x HT")
        }
    }

    @Test func shutdownClosesAHandlerThatOutlivesTheGracePeriod() async throws {
        let started = AsyncStream.makeStream(of: Void.self)
        let route = HTTPRoute("GET", "/forever") { _ in
            started.continuation.yield()
            let never = AsyncStream<Void>.makeStream()
            for await _ in never.stream {}
            return HTTPResponse(status: 200)
        }
        let loopback = try LoopbackServer(
            configuration: .init(handlerTimeout: .seconds(60), shutdownGracePeriod: .milliseconds(100)),
            routes: [route])
        let client = Task {
            try await RawHTTPClient.exchange(port: loopback.port, "GET /forever HTTP/1.1\r\nHost: t\r\n\r\n")
        }
        for await _ in started.stream { break }
        await loopback.server.shutdown()
        await #expect(throws: RawHTTPClient.Failure.self) { try await client.value }
        #expect(loopback.server.requestsInFlight == 0)
        #expect(RawHTTPClient.canConnect(port: loopback.port) == false)
        let text = loopback.metrics.exposition()
        #expect(text.contains(#"tidings_http_requests_terminated_total{reason="shutdown"} 1"#))
        #expect(text.contains("tidings_http_connections_open 0"))
    }

    @Test func streamProducerStopsWhenTheClientGoesAway() async throws {
        let ended = AsyncStream.makeStream(of: String.self)
        let route = HTTPRoute("GET", "/endless") { _ in
            HTTPResponse(status: 200) { writer in
                do {
                    while true { try await writer.write(Data(repeating: 0x61, count: 16384)) }
                } catch {
                    ended.continuation.yield(String(describing: type(of: error)))
                    throw error
                }
            }
        }
        let loopback = try LoopbackServer(routes: [route])
        defer { loopback.server.stopNow() }
        let firstBytes = try await RawHTTPClient.readThenHangUp(
            port: loopback.port, "GET /endless HTTP/1.1\r\nHost: t\r\n\r\n", bytes: 1000)
        #expect(firstBytes.starts(with: Data("HTTP/1.1 200".utf8)))
        var reason: String?
        for await name in ended.stream {
            reason = name
            break
        }
        #expect(reason == "CancellationError")
    }

    @Test func stalledStreamIsEndedAfterTheIdleLimit() async throws {
        let route = HTTPRoute("GET", "/stalls") { _ in
            HTTPResponse(status: 200) { writer in
                try await writer.write(Data("first\n".utf8))
                // Stops writing and ignores cancellation: the server must end the body on its own.
                let never = AsyncStream<Void>.makeStream()
                for await _ in never.stream {}
            }
        }
        let loopback = try LoopbackServer(configuration: .init(handlerTimeout: .milliseconds(200)), routes: [route])
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /stalls HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.bodyText == "first\n")
        #expect(response.chunkedComplete == false)
        #expect(loopback.logs.records.contains { $0.message.contains("stalled") })
    }

    @Test func connectionBeyondTheLimitWaitsUntilASlotFrees() async throws {
        let released = LockedBox(false)
        let route = HTTPRoute("GET", "/after") { _ in
            HTTPResponse(status: released.withLock { $0 } ? 200 : 500)
        }
        let loopback = try LoopbackServer(configuration: .init(maximumConnections: 1), threads: 1, routes: [route])
        defer { loopback.server.stopNow() }
        let held = try RawHTTPClient.holdConnection(port: loopback.port)
        let waiting = Task {
            try await RawHTTPClient.exchange(
                port: loopback.port, "GET /after HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        }
        try await Task.sleep(for: .milliseconds(100))
        released.withLock { $0 = true }
        RawHTTPClient.release(held)
        // Served at all only once the held connection has gone: a request served earlier would see 500.
        #expect(try await waiting.value.status == 200)
    }

    /// A load balancer opens its pool of keep-alive connections at once. Were each network thread to accept
    /// for itself, the first to wake would take several of them and serve them one request at a time.
    @Test func connectionsOpenedTogetherAreSpreadOverTheNetworkThreads() throws {
        let servingThreads = LockedBox(Set<UInt>())
        let route = HTTPRoute.immediate("GET", "/thread") { _ in
            servingThreads.withLock { _ = $0.insert(UInt(pthread_self())) }
            return HTTPResponse(status: 200)
        }
        let loopback = try LoopbackServer(threads: 16, routes: [route])
        defer { loopback.server.stopNow() }
        let connections = try (0..<8).map { _ in try RawHTTPClient.holdConnection(port: loopback.port) }
        defer { connections.forEach(RawHTTPClient.release) }
        for connection in connections {
            #expect(Self.statusLine(of: "GET /thread HTTP/1.1\r\nHost: t\r\n\r\n", on: connection) == "HTTP/1.1 200 OK")
        }
        // A connection is served by the thread that holds it. Spread by descriptor number over sixteen
        // threads, eight connections opened in a row land on eight threads, even when the server's
        // descriptors alternate with the client's (both are in this process); the count is left some room
        // for descriptors other tests open meanwhile.
        #expect(servingThreads.withLock { $0.count } >= 6)
    }

    /// Sends `request` on an open connection and returns the first line of the answer.
    private static func statusLine(of request: String, on connection: Int32) -> String? {
        _ = request.withCString { send(connection, $0, strlen($0), PortableSocket.sendFlags) }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !received.contains(UInt8(ascii: "\n")) {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            received += buffer[0..<count]
        }
        return String(decoding: received.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
    }

    @Test func startingTwiceOrOnABadHostFails() throws {
        let loopback = try LoopbackServer(routes: [])
        defer { loopback.server.stopNow() }
        #expect(throws: HTTPServerError.self) { try loopback.server.start() }
        let bad = HTTPServer(
            configuration: .init(host: "example.com", port: 0), handler: { _ in HTTPResponse(status: 200) },
            logger: .disabled())
        do {
            try bad.start()
            bad.stopNow()
            Issue.record("expected invalid_host")
        } catch let error as HTTPServerError {
            #expect(error.code == "invalid_host")
            #expect(error.message.contains("example.com"))
        }
    }

    @Test func portInUseFailsWithBindFailed() throws {
        let first = try LoopbackServer(routes: [])
        defer { first.server.stopNow() }
        let second = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: first.port), handler: { _ in HTTPResponse(status: 200) },
            logger: .disabled())
        do {
            try second.start()
            second.stopNow()
            Issue.record("expected bind_failed")
        } catch let error as HTTPServerError {
            #expect(error.code == "bind_failed")
            #expect(error.message.contains("\(first.port)"))
        }
    }
}

@Suite struct HTTPServerIPv6Tests {
    /// Containers without IPv6 cannot bind `::1`; the test does not apply there.
    static var loopbackIPv6Available: Bool {
        let descriptor = PortableSocket.tcp(family: AF_INET6)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
            }
        }
    }

    @Test(.enabled(if: loopbackIPv6Available)) func servesOnIPv6Loopback() async throws {
        let route = HTTPRoute("GET", "/who") { request in
            HTTPResponse(status: 200, body: Data((request.remoteAddress ?? "none").utf8))
        }
        let server = HTTPServer(
            configuration: .init(host: "::1", port: 0, threadCount: 1), handler: Router(routes: [route]).handler,
            logger: .disabled())
        let port = try server.start()
        defer { server.stopNow() }
        // URLSession on Linux refuses `http://[::1]:port` URLs, so a raw socket it is.
        let response = try await RawHTTPClient.exchange(
            port: port, "GET /who HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", ipv6: true)
        #expect(response.status == 200)
        #expect(response.bodyText == "::1")
    }
}
