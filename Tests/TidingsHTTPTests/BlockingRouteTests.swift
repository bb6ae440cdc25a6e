import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsTestSupport

/// Routes declared `blocking` run on a worker thread, so a handler that waits holds no network thread.
@Suite struct BlockingRouteTests {
    /// Holds each request to the waiting route until the test lets it go.
    final class Gate: @unchecked Sendable {
        // @unchecked: DispatchSemaphore is thread-safe.
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)

        /// Whether a request entered the route within 5 s. Waits on a thread of its own: blocking the test's
        /// task would hold one of the few cooperative threads that the client's task needs to start.
        func entered() async -> Bool {
            await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: self.entered.wait(timeout: .now() + 5) == .success) }.start()
            }
        }
    }

    static func routes(_ gate: Gate) -> [HTTPRoute] {
        [
            HTTPRoute.blocking("POST", "/wait") { _ in
                gate.entered.signal()
                // Bounded, so that a server that ran this on its only network thread fails the test
                // instead of hanging it.
                let released = gate.release.wait(timeout: .now() + 5) == .success
                let inTask = withUnsafeCurrentTask { $0 != nil }
                return HTTPResponse(status: 200, body: Data("released=\(released) task=\(inTask)".utf8))
            },
            HTTPRoute.immediate("GET", "/ping") { _ in HTTPResponse(status: 200, body: Data("pong".utf8)) },
        ]
    }

    @Test func aWaitingHandlerLeavesTheOnlyNetworkThreadFreeForOtherConnections() async throws {
        let gate = Gate()
        let loopback = try LoopbackServer(threads: 1, routes: Self.routes(gate))
        defer { loopback.server.stopNow() }
        async let waiting = RawHTTPClient.exchange(
            port: loopback.port, "POST /wait HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        #expect(await gate.entered())
        let started = ContinuousClock.now
        let ping = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /ping HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(ping.bodyText == "pong")
        #expect(ContinuousClock.now - started < .seconds(2))
        gate.release.signal()
        let answered = try await waiting
        #expect(answered.status == 200)
        #expect(answered.bodyText == "released=true task=false")
    }

    @Test func aStopWhileAHandlerWaitsClosesItsConnectionAndTheHandlerStillEnds() async throws {
        let gate = Gate()
        let loopback = try LoopbackServer(threads: 1, routes: Self.routes(gate))
        let waiting = Task {
            try await RawHTTPClient.exchange(
                port: loopback.port, "POST /wait HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
        #expect(await gate.entered())
        loopback.server.stopNow()
        // The client sees its connection closed without an answer.
        await #expect(throws: RawHTTPClient.Failure.self) { try await waiting.value }
        gate.release.signal()
        // The server starts again on the same object, with a fresh set of workers.
        let port = try loopback.server.start()
        defer { loopback.server.stopNow() }
        gate.release.signal()
        let again = try await RawHTTPClient.exchange(
            port: port, "POST /wait HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        #expect(again.status == 200)
    }
}
