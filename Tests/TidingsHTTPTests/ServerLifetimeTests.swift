import Foundation
import Testing
import TidingsHTTP
import TidingsTestSupport

/// A server let go while it runs stops with its owner, whichever thread its callbacks are on.
@Suite struct ServerLifetimeTests {
    /// Stopping waits for every network thread to end, so it cannot run on one of them. A handler that held
    /// the last reference to the server would have done exactly that, once it returned after the owner had
    /// let go.
    @Test func aServerLetGoWhileAHandlerRunsOnANetworkThreadStopsOnItsOwnersThread() async throws {
        let gate = BlockingRouteTests.Gate()
        let routes = [
            HTTPRoute.immediate("GET", "/hold") { _ in
                gate.entered.signal()
                let released = gate.release.wait(timeout: .now() + 5) == .success
                return HTTPResponse(status: 200, body: Data("released=\(released)".utf8))
            }
        ]
        var loopback: LoopbackServer? = try LoopbackServer(threads: 1, routes: routes)
        let port = try #require(loopback?.port)
        let request = "GET /hold HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        let held = Task { try await RawHTTPClient.exchange(port: port, request) }
        #expect(await gate.entered())
        // The handler is let go only after the owner has let go of the server, so the stop has to wait for it.
        Thread {
            usleep(200_000)
            gate.release.signal()
        }.start()
        let stopping = ContinuousClock.now
        loopback = nil
        #expect(ContinuousClock.now - stopping >= .milliseconds(150))
        // The handler ran to its end before the daemon stopped; whether its answer got out first is up to
        // the stop, but the process lives and the port is closed.
        _ = try? await held.value
        await #expect(throws: RawHTTPClient.Failure.self) { try await RawHTTPClient.exchange(port: port, request) }
    }
}
