import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsTestSupport

/// A 429 reaches the client as JSON with `Retry-After`, in process and over the wire.
@Suite struct RateLimitedResponseTests {
    @Test func theErrorMiddlewareWritesTheJSONBodyAndRetryAfter() async throws {
        let handler = HTTPMiddleware.errorRendering(.disabled()).wrap { _ in
            throw HTTPError.rateLimited(limit: RateLimit(burst: 20, perSecond: 10), retryAfterSeconds: 7)
        }
        let response = try await handler(HTTPRequest(method: "POST", path: "/v1/messages"))
        #expect(response.status == 429)
        #expect(response.headers["Retry-After"] == "7")
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == #"{"error":{"code":"rate_limited","message":"too many requests: limit 10 per second (burst 20); retry after 7 s"}}"#
        )
    }

    @Test func retryAfterIsNeverBelowOneSecond() {
        let error = HTTPError.rateLimited(limit: RateLimit(burst: 1, perSecond: 1), retryAfterSeconds: 0)
        #expect(error.headers["Retry-After"] == "1")
    }

    @Test func responseHeadersOfTheCallerAreAddedToTheErrorsOwn() {
        let error = HTTPError(status: 401, code: "unauthorized", message: "no", headers: ["WWW-Authenticate": "Bearer"])
        let response = HTTPResponse.error(error, headers: ["X-Extra": "1"])
        #expect(response.headers["WWW-Authenticate"] == "Bearer")
        #expect(response.headers["X-Extra"] == "1")
        #expect(response.headers["Content-Type"] == "application/json")
    }

    /// The use the API makes of it: a limit per client address, on an immediate route, over loopback.
    @Test func aLimitPerClientAddressAnswers429OverTheWire() async throws {
        let limiter = RateLimiter(limit: RateLimit(burst: 2, perSecond: 0.5), clock: TestClock())
        let route = HTTPRoute.immediate("GET", "/limited") { request in
            try limiter.enforce(request.remoteAddress ?? "unknown")
            return HTTPResponse(status: 200, body: Data((request.remoteAddress ?? "none").utf8))
        }
        let loopback = try LoopbackServer(routes: [route])
        defer { loopback.server.stopNow() }
        let request = "GET /limited HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        for _ in 0..<2 {
            let response = try await RawHTTPClient.exchange(port: loopback.port, request)
            #expect(response.status == 200)
            #expect(response.bodyText == "127.0.0.1")
        }
        let refused = try await RawHTTPClient.exchange(port: loopback.port, request)
        #expect(refused.status == 429)
        #expect(refused.headers["retry-after"] == "2")
        #expect(refused.headers["content-type"] == "application/json")
        #expect(refused.bodyText.contains(#""code":"rate_limited""#))
        #expect(limiter.status(of: "127.0.0.1") == .denied(retryAfterSeconds: 2))
    }
}
