import Foundation
import Testing
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsTestSupport

/// Routes declared `replying` start on the network thread and send their reply whenever it comes, from any
/// thread: no thread waits for it meanwhile.
@Suite struct ReplyingRouteTests {
    /// Keeps the replies of the `/later` route until the test sends them.
    final class Mailbox: @unchecked Sendable {
        // @unchecked: `replies` is guarded by `lock`.
        private let lock = NSLock()
        private var replies: [@Sendable (Result<HTTPResponse, any Error>) -> Void] = []
        let arrived = DispatchSemaphore(value: 0)

        func keep(_ reply: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) {
            lock.withLock { replies.append(reply) }
            arrived.signal()
        }

        /// Whether a request reached the route within 5 s; waits on a thread of its own, as in
        /// `BlockingRouteTests`.
        func awaitArrival() async -> Bool {
            await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: self.arrived.wait(timeout: .now() + 5) == .success) }.start()
            }
        }

        /// Sends the oldest reply kept, from a thread that is none of the server's.
        func send(_ outcome: Result<HTTPResponse, any Error>) {
            let reply = lock.withLock { replies.removeFirst() }
            Thread { reply(outcome) }.start()
        }
    }

    static func routes(_ mailbox: Mailbox) -> [HTTPRoute] {
        [
            HTTPRoute.replying("POST", "/later") { _, reply in mailbox.keep(reply) },
            HTTPRoute.replying("POST", "/now") { request, reply in
                let inTask = withUnsafeCurrentTask { $0 != nil }
                reply(.success(HTTPResponse(status: 201, body: Data("now task=\(inTask)".utf8))))
            },
            HTTPRoute.replying("POST", "/refused") { _, _ in
                throw HTTPError(status: 422, code: "invalid_token", message: "the token is not 64 hex digits")
            },
            HTTPRoute.immediate("GET", "/ping") { _ in HTTPResponse(status: 200, body: Data("pong".utf8)) },
        ]
    }

    static func post(_ path: String) -> String {
        "POST \(path) HTTP/1.1\r\nHost: t\r\nX-Request-Id: trace-9\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    }

    @Test func aReplyThatComesLaterLeavesTheOnlyNetworkThreadFreeMeanwhile() async throws {
        let mailbox = Mailbox()
        let loopback = try LoopbackServer(threads: 1, routes: Self.routes(mailbox))
        defer { loopback.server.stopNow() }
        async let waiting = RawHTTPClient.exchange(port: loopback.port, Self.post("/later"))
        #expect(await mailbox.awaitArrival())
        let ping = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /ping HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(ping.bodyText == "pong")
        mailbox.send(.success(HTTPResponse(status: 202, body: Data("later".utf8))))
        let answered = try await waiting
        #expect(answered.status == 202)
        #expect(answered.bodyText == "later")
        #expect(answered.headers["x-request-id"] == "trace-9")
        #expect(
            loopback.metrics.exposition().contains(
                #"tidings_http_requests_total{method="POST",route="/later",status="202"} 1"#))
    }

    @Test func aReplyGivenBeforeTheHandlerReturnsIsSentOutsideAnyTask() async throws {
        let loopback = try LoopbackServer(threads: 1, routes: Self.routes(Mailbox()))
        defer { loopback.server.stopNow() }
        let answered = try await RawHTTPClient.exchange(port: loopback.port, Self.post("/now"))
        #expect(answered.status == 201)
        #expect(answered.bodyText == "now task=false")
    }

    /// A refusal thrown before any work and a failure replied later are both the JSON error format.
    @Test func refusalsAndFailedRepliesAreRenderedAsJSONErrors() async throws {
        let mailbox = Mailbox()
        let loopback = try LoopbackServer(threads: 1, routes: Self.routes(mailbox))
        defer { loopback.server.stopNow() }
        let refused = try await RawHTTPClient.exchange(port: loopback.port, Self.post("/refused"))
        #expect(refused.status == 422)
        #expect(refused.headers["content-type"] == "application/json")
        #expect(refused.bodyText.contains(#""code":"invalid_token""#))
        async let failing = RawHTTPClient.exchange(port: loopback.port, Self.post("/later"))
        #expect(await mailbox.awaitArrival())
        mailbox.send(.failure(HTTPError(status: 409, code: "conflict", message: "taken meanwhile")))
        let failed = try await failing
        #expect(failed.status == 409)
        #expect(failed.bodyText.contains(#""message":"taken meanwhile""#))
        async let crashing = RawHTTPClient.exchange(port: loopback.port, Self.post("/later"))
        #expect(await mailbox.awaitArrival())
        mailbox.send(.failure(CocoaError(.fileNoSuchFile)))
        let crashed = try await crashing
        #expect(crashed.status == 500)
        #expect(crashed.bodyText.contains(#""code":"internal_error""#))
    }

    /// Many requests waiting at once, answered in the reverse order from other threads: each connection
    /// gets its own reply.
    @Test func eachConnectionGetsItsOwnReplyWhateverTheOrder() async throws {
        let mailbox = Mailbox()
        let loopback = try LoopbackServer(threads: 2, routes: Self.routes(mailbox))
        defer { loopback.server.stopNow() }
        let count = 20
        let exchanges = (0..<count).map { number in
            Task {
                try await RawHTTPClient.exchange(
                    port: loopback.port,
                    "POST /later HTTP/1.1\r\nHost: t\r\nX-Request-Id: r-\(number)\r\nContent-Length: 0\r\n"
                        + "Connection: close\r\n\r\n")
            }
        }
        for _ in 0..<count { #expect(await mailbox.awaitArrival()) }
        for _ in 0..<count { mailbox.send(.success(HTTPResponse(status: 200, body: Data()))) }
        var answeredIDs: Set<String> = []
        for exchange in exchanges {
            let answered = try await exchange.value
            #expect(answered.status == 200)
            if let id = answered.headers["x-request-id"] { answeredIDs.insert(id) }
        }
        #expect(answeredIDs == Set((0..<count).map { "r-\($0)" }))
    }

    @Test func aReplyAfterTheServerStoppedIsDroppedAndTheServerStartsAgain() async throws {
        let mailbox = Mailbox()
        let loopback = try LoopbackServer(threads: 1, routes: Self.routes(mailbox))
        let waiting = Task { try await RawHTTPClient.exchange(port: loopback.port, Self.post("/later")) }
        #expect(await mailbox.awaitArrival())
        loopback.server.stopNow()
        await #expect(throws: RawHTTPClient.Failure.self) { try await waiting.value }
        mailbox.send(.success(HTTPResponse(status: 200, body: Data())))
        let port = try loopback.server.start()
        defer { loopback.server.stopNow() }
        let answered = try await RawHTTPClient.exchange(port: port, Self.post("/now"))
        #expect(answered.status == 201)
    }

    @Test func inProcessCallersGetTheReplyThroughTheAsyncHandler() async throws {
        let router = Router(routes: Self.routes(Mailbox()))
        let response = try await router.handler(HTTPRequest(method: "POST", path: "/now"))
        #expect(response.status == 201)
        await #expect(throws: HTTPError.self) {
            try await router.handler(HTTPRequest(method: "POST", path: "/refused"))
        }
    }
}
