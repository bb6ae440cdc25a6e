import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsTestSupport

/// Slow and hostile clients over loopback: header and body deadlines, the per-address cap, and a server
/// that keeps answering while hundreds of clients trickle. Every bound here is generous; the tests assert
/// what happened (answered, closed, refused), never how fast.
@Suite struct SlowClientTests {
    static let healthz = HTTPRoute.immediate("GET", "/healthz") { _ in
        HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"status":"ok"}"#.utf8))
    }

    /// Like an installation upsert: a JSON body parsed and echoed back.
    static let upsert = HTTPRoute.immediate("PUT", "/v1/things/{id}") { request in
        guard (try? JSONText.parse(request.body))?.objectValue != nil else {
            throw HTTPError(status: 400, code: "invalid_json", message: "not an object")
        }
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: request.body)
    }

    static let routes = [healthz, upsert]

    static func closedCount(_ loopback: LoopbackServer, _ reason: String) -> Int {
        let prefix = "tidings_http_connections_closed_total{reason=\"\(reason)\"} "
        let line = loopback.metrics.exposition().split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { Double($0.dropFirst(prefix.count)) }.map { Int($0) } ?? 0
    }

    /// The 408 a cut connection may carry: its status and JSON error code, or nil when nothing arrived.
    static func timeoutAnswer(_ data: Data) throws -> (Int, String)? {
        guard !data.isEmpty else { return nil }
        let response = try RawHTTPClient.parse(data)
        let body = try JSONText.parse(response.body)
        return (response.status, body["error"]?["code"]?.stringValue ?? "")
    }

    static func healthzAndUpsertAnswer(port: Int, rounds: Int) async throws {
        for round in 0..<rounds {
            let health = try await RawHTTPClient.exchange(
                port: port, "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            #expect(health.status == 200)
            let body = #"{"round":\#(round)}"#
            let upsert = try await RawHTTPClient.exchange(
                port: port,
                "PUT /v1/things/t\(round) HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            #expect(upsert.status == 200)
            #expect(upsert.bodyText == body)
        }
    }

    @Test func headersThatStopArrivingAreAnswered408AtTheHeaderDeadline() async throws {
        let loopback = try LoopbackServer(
            configuration: .init(connectionTimeout: .seconds(60), requestHeaderTimeout: .seconds(1)),
            routes: Self.routes)
        defer { loopback.server.stopNow() }
        // Well inside the idle timeout: only the header deadline can end this.
        let response = try await RawHTTPClient.exchange(port: loopback.port, "GET /healthz HTTP/1.1\r\nHost: t\r\n")
        #expect(response.status == 408)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.bodyText.contains(#""code":"request_timeout""#))
        #expect(Self.closedCount(loopback, "header_timeout") == 1)
    }

    @Test func deadlinesStillHoldAfterTheServerIsStoppedAndStartedAgain() async throws {
        let loopback = try LoopbackServer(
            configuration: .init(connectionTimeout: .seconds(60), requestHeaderTimeout: .seconds(1)),
            routes: Self.routes)
        defer { loopback.server.stopNow() }
        loopback.server.stopNow()
        let port = try loopback.server.start()
        let response = try await RawHTTPClient.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: t\r\n")
        #expect(response.status == 408)
        #expect(Self.closedCount(loopback, "header_timeout") == 1)
    }

    @Test(arguments: ["GET /healthz HTTP/1.1\r\nHost: t\r\nX-Slow: ", "GET /healthz?padding=" + "a"])
    func aClientTricklingOneByteAtATimeIsClosed(start: String) async throws {
        // Without the deadline, a byte every 100 ms keeps a 30 s idle timeout from ever firing.
        let loopback = try LoopbackServer(
            configuration: .init(connectionTimeout: .seconds(30), requestHeaderTimeout: .seconds(1)),
            routes: Self.routes)
        defer { loopback.server.stopNow() }
        let bytes = Data(start.utf8) + Data(repeating: UInt8(ascii: "a"), count: 10_000)
        let outcome = await RawHTTPClient.trickle(
            port: loopback.port, bytes: bytes, every: .milliseconds(100), giveUpAfter: .seconds(25))
        guard case .closed(let response) = outcome else {
            Issue.record("the trickling client was not closed: \(outcome)")
            return
        }
        // A reset may beat the 408 to the client; what did arrive is the JSON 408.
        if let (status, code) = try Self.timeoutAnswer(response) {
            #expect(status == 408)
            #expect(code == "request_timeout")
        }
        #expect(Self.closedCount(loopback, "header_timeout") == 1)
    }

    @Test func aBodyBelowTheMinimumRateIsAnswered408() async throws {
        let loopback = try LoopbackServer(
            configuration: .init(
                connectionTimeout: .seconds(60), requestBodyGracePeriod: .seconds(1), minimumBodyBytesPerSecond: 1000),
            routes: Self.routes)
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port, "PUT /v1/things/a HTTP/1.1\r\nHost: t\r\nContent-Length: 50000\r\n\r\n{\"a\":")
        #expect(response.status == 408)
        #expect(response.bodyText.contains(#""code":"request_timeout""#))
        #expect(response.bodyText.contains("1000 bytes per second"))
        #expect(Self.closedCount(loopback, "body_too_slow") == 1)
        #expect(Self.closedCount(loopback, "header_timeout") == 0)
    }

    @Test func aTricklingBodyIsClosed() async throws {
        // 10 bytes a second against a minimum of 100 after 1 s of grace: cut long before the 10 s body is in.
        let loopback = try LoopbackServer(
            configuration: .init(
                connectionTimeout: .seconds(30), requestBodyGracePeriod: .seconds(1), minimumBodyBytesPerSecond: 100),
            routes: Self.routes)
        defer { loopback.server.stopNow() }
        let head = "PUT /v1/things/a HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n"
        // The head at 100 bytes a second (well within the header deadline), then the body at 10.
        var bytes = Data(head.utf8)
        bytes.append(Data(repeating: UInt8(ascii: " "), count: 100))
        let outcome = await RawHTTPClient.trickle(
            port: loopback.port, bytes: bytes, every: .milliseconds(10), giveUpAfter: .seconds(25),
            slowAfter: head.utf8.count, slowEvery: .milliseconds(100))
        guard case .closed(let response) = outcome else {
            Issue.record("the trickling body was not cut: \(outcome)")
            return
        }
        if let (status, code) = try Self.timeoutAnswer(response) {
            #expect(status == 408)
            #expect(code == "request_timeout")
        }
        #expect(Self.closedCount(loopback, "body_too_slow") == 1)
    }

    @Test func anIdleKeepAliveConnectionOutlivesTheHeaderDeadline() async throws {
        // A load balancer keeps pooled connections idle between requests; only the idle timeout ends those.
        let loopback = try LoopbackServer(
            configuration: .init(connectionTimeout: .seconds(60), requestHeaderTimeout: .milliseconds(500)),
            routes: Self.routes)
        defer { loopback.server.stopNow() }
        let descriptor = try RawHTTPClient.holdConnection(port: loopback.port)
        defer { RawHTTPClient.release(descriptor) }
        func ask() -> String {
            let request = "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
            _ = request.withCString { send(descriptor, $0, strlen($0), PortableSocket.sendFlags) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
        }
        #expect(ask().hasPrefix("HTTP/1.1 200"))
        try await Task.sleep(for: .seconds(2))
        #expect(ask().hasPrefix("HTTP/1.1 200"))
        #expect(Self.closedCount(loopback, "header_timeout") == 0)
    }

    @Test func theCapPerAddressRefusesTheExcessAndLeavesOtherAddressesServed() async throws {
        let loopback = try LoopbackServer(
            configuration: .init(maximumConnections: 50, maximumConnectionsPerAddress: 3), routes: Self.routes)
        defer { loopback.server.stopNow() }
        let held = try (0..<3).map { _ in try RawHTTPClient.holdConnection(port: loopback.port, from: "127.0.0.2") }
        let request = "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        // The fourth from the same address is accepted and closed, unanswered.
        await #expect(throws: RawHTTPClient.Failure.self) {
            try await RawHTTPClient.exchange(port: loopback.port, request, from: "127.0.0.2")
        }
        #expect(try await RawHTTPClient.exchange(port: loopback.port, request, from: "127.0.0.3").status == 200)
        held.forEach(RawHTTPClient.release)
        // Once its connections close, the address is served again (the server notices within moments).
        var served = false
        for _ in 0..<100 where !served {
            served = (try? await RawHTTPClient.exchange(port: loopback.port, request, from: "127.0.0.2"))?.status == 200
            if !served { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(served)
    }

    /// 200 clients trickling request headers, from `addresses`, while /healthz and an upsert are asked
    /// for from another address; every trickler must end up closed, by the deadline or the address cap.
    func tricklersDoNotStopTheServer(
        _ configuration: HTTPServer.Configuration, addresses: [String]
    ) async throws -> (LoopbackServer, [RawHTTPClient.TrickleOutcome]) {
        let loopback = try LoopbackServer(configuration: configuration, routes: Self.routes)
        let head = Data("PUT /v1/things/slow HTTP/1.1\r\nHost: t\r\nX-Slow: ".utf8)
        let bytes = head + Data(repeating: UInt8(ascii: "a"), count: 10_000)
        let port = loopback.port
        let tricklers = (0..<200).map { index in
            Task {
                await RawHTTPClient.trickle(
                    port: port, from: addresses[index % addresses.count], bytes: bytes, every: .milliseconds(200),
                    giveUpAfter: .seconds(90))
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        try await Self.healthzAndUpsertAnswer(port: port, rounds: 10)
        var outcomes: [RawHTTPClient.TrickleOutcome] = []
        for trickler in tricklers { outcomes.append(await trickler.value) }
        try await Self.healthzAndUpsertAnswer(port: port, rounds: 2)
        return (loopback, outcomes)
    }

    @Test func twoHundredTricklersWithTheDefaultSettings() async throws {
        // Four addresses, 50 each: under the default cap of 64, so every trickler is admitted and only the
        // default 10 s header deadline ends them.
        let addresses = (10..<14).map { "127.0.0.\($0)" }
        let (loopback, outcomes) = try await tricklersDoNotStopTheServer(.init(), addresses: addresses)
        defer { loopback.server.stopNow() }
        #expect(outcomes.allSatisfy { if case .closed = $0 { true } else { false } })
        #expect(Self.closedCount(loopback, "header_timeout") == 200)
    }

    /// The issue's case: every connection held by clients trickling their headers, all from the address a
    /// new client also comes from (so the per-address cap cannot tell them apart), and a header deadline far
    /// off. The new client must not wait for the deadline: the slowest trickler is answered 408 for it.
    @Test func atTheLimitASlowRequestMakesRoomForANewClient() async throws {
        let loopback = try LoopbackServer(
            configuration: .init(maximumConnections: 4, requestHeaderTimeout: .seconds(60)), routes: Self.routes)
        defer { loopback.server.stopNow() }
        let port = loopback.port
        let head = Data("GET /healthz HTTP/1.1\r\nHost: t\r\nX-Slow: ".utf8)
        let tricklers = (0..<4).map { _ in
            Task {
                await RawHTTPClient.trickle(
                    port: port, bytes: head + Data(repeating: UInt8(ascii: "a"), count: 1_000),
                    every: .milliseconds(100), giveUpAfter: .seconds(8))
            }
        }
        try await Task.sleep(for: ConnectionLimitTiming.pastCrowdingAge)
        let started = ContinuousClock.now
        let health = try await RawHTTPClient.exchange(
            port: port, "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(health.status == 200)
        // Well before the tricklers give up (8 s) or the deadline (60 s) would free a connection.
        #expect(ContinuousClock.now - started < .seconds(5))
        var answers: [(Int, String)] = []
        for trickler in tricklers {
            if case .closed(let response) = await trickler.value, let answer = try Self.timeoutAnswer(response) {
                answers.append(answer)
            }
        }
        #expect(Self.closedCount(loopback, "slow_at_capacity") >= 1)
        #expect(Self.closedCount(loopback, "idle_at_capacity") == 0)
        #expect(answers.allSatisfy { $0 == (408, "request_timeout") })
    }

    /// An idle keep-alive connection is closed (with no answer) before a request still being read.
    @Test func atTheLimitAnIdleKeepAliveConnectionGoesFirst() async throws {
        let loopback = try LoopbackServer(
            configuration: .init(maximumConnections: 2, requestHeaderTimeout: .seconds(60)), routes: Self.routes)
        defer { loopback.server.stopNow() }
        let port = loopback.port
        let idle = try RawHTTPClient.holdConnection(port: port)
        defer { RawHTTPClient.release(idle) }
        let request = "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
        _ = request.withCString { send(idle, $0, strlen($0), PortableSocket.sendFlags) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Bounded waits: a test that fails must not hang the run.
        var answered = pollfd(fd: idle, events: Int16(POLLIN), revents: 0)
        #expect(poll(&answered, 1, 5_000) == 1)
        #expect(recv(idle, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0)
        let trickler = Task {
            await RawHTTPClient.trickle(
                port: port, bytes: Data("GET /healthz HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaa".utf8),
                every: .milliseconds(100), giveUpAfter: .seconds(6))
        }
        try await Task.sleep(for: ConnectionLimitTiming.pastCrowdingAge)
        let health = try await RawHTTPClient.exchange(
            port: port, "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(health.status == 200)
        // The idle connection was shut down with nothing written to it: it reads the end of the stream.
        var poller = pollfd(fd: idle, events: Int16(POLLIN), revents: 0)
        #expect(poll(&poller, 1, 2_000) == 1)
        #expect(recv(idle, &buffer, buffer.count, Int32(MSG_DONTWAIT)) == 0)
        #expect(Self.closedCount(loopback, "idle_at_capacity") == 1)
        #expect(Self.closedCount(loopback, "slow_at_capacity") == 0)
        // The trickler kept its connection until it gave up.
        #expect(await trickler.value == .open)
    }

    /// A connection whose request is read in full (its handler is still working) is never closed to make
    /// room: the new client waits until the handler is done.
    @Test func atTheLimitARequestBeingHandledIsNotClosed() async throws {
        let released = LockedBox(false)
        let slow = HTTPRoute("GET", "/slow") { _ in
            while !released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
            return HTTPResponse(status: 200)
        }
        let after = HTTPRoute("GET", "/after") { _ in HTTPResponse(status: released.withLock { $0 } ? 200 : 500) }
        let loopback = try LoopbackServer(configuration: .init(maximumConnections: 1), routes: [slow, after])
        defer { loopback.server.stopNow() }
        let port = loopback.port
        let handled = Task {
            try await RawHTTPClient.exchange(port: port, "GET /slow HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        }
        try await Task.sleep(for: ConnectionLimitTiming.pastCrowdingAge)
        let waiting = Task {
            try await RawHTTPClient.exchange(
                port: port, "GET /after HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        }
        try await Task.sleep(for: .milliseconds(500))
        released.withLock { $0 = true }
        #expect(try await handled.value.status == 200)
        // Served only once the handled request was done: served earlier, it would have answered 500.
        #expect(try await waiting.value.status == 200)
        #expect(Self.closedCount(loopback, "slow_at_capacity") == 0)
        #expect(Self.closedCount(loopback, "idle_at_capacity") == 0)
    }

    @Test func twoHundredTricklersAgainstTwentyConnections() async throws {
        // Three addresses capped at 5 each hold at most 15 of the 20 connections; the rest are refused at
        // once, and the deadline frees the 15.
        let addresses = (20..<23).map { "127.0.0.\($0)" }
        let configuration = HTTPServer.Configuration(
            maximumConnections: 20, requestHeaderTimeout: .seconds(2), maximumConnectionsPerAddress: 5)
        let (loopback, outcomes) = try await tricklersDoNotStopTheServer(configuration, addresses: addresses)
        defer { loopback.server.stopNow() }
        #expect(outcomes.allSatisfy { if case .closed = $0 { true } else { false } })
        let cut = Self.closedCount(loopback, "header_timeout")
        #expect(cut >= 15 && cut < 200)
    }
}

/// Long enough for a connection to be idle, or reading its request, past the age after which it may be
/// closed to make room (one second), with margin for a loaded machine.
private enum ConnectionLimitTiming {
    static let pastCrowdingAge = Duration.milliseconds(1_600)
}
