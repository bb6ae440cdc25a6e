import Foundation
import Testing
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsTestSupport

@Suite struct OperationsRoutesTests {
    static let token = BearerToken("metrics-token-for-tests")!

    static func router(
        metrics: MetricsRegistry? = MetricsRegistry(), token: BearerToken? = nil, checks: [ReadinessCheck] = []
    ) -> HTTPHandler {
        var router = Router()
        router.addOperationsRoutes(
            metrics: metrics, metricsToken: token, readiness: ReadinessProbe(checks: checks, clock: TestClock()))
        return HTTPMiddleware.errorRendering(.disabled()).wrap(router.handler)
    }

    static func get(_ handler: HTTPHandler, _ path: String, authorization: String? = nil) async throws -> HTTPResponse {
        var headers = HTTPHeaders()
        headers["Authorization"] = authorization
        return try await handler(HTTPRequest(method: "GET", path: path, headers: headers))
    }

    @Test func healthzAndMetricsAreServed() async throws {
        let metrics = MetricsRegistry()
        metrics.counter(name: "tidings_events_ingested_total", help: "Events stored.").increment(by: 3)
        let handler = Self.router(metrics: metrics)
        let health = try await Self.get(handler, "/healthz")
        #expect(health.status == 200)
        #expect(String(decoding: health.body, as: UTF8.self) == #"{"status":"ok"}"#)
        #expect(health.headers["Cache-Control"] == "no-store")
        let scrape = try await Self.get(handler, "/metrics")
        #expect(scrape.status == 200)
        #expect(scrape.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(String(decoding: scrape.body, as: UTF8.self).contains("tidings_events_ingested_total 3\n"))
    }

    @Test func healthzStaysOKWhileReadinessFails() async throws {
        let handler = Self.router(checks: [ReadinessCheck("store") { throw ReadinessCheck.Failure("locked") }])
        let health = try await Self.get(handler, "/healthz")
        #expect(health.status == 200)
        #expect(String(decoding: health.body, as: UTF8.self) == #"{"status":"ok"}"#)
        let ready = try await Self.get(handler, "/readyz")
        #expect(ready.status == 503)
        #expect(ready.headers["Content-Type"] == "application/json")
        #expect(
            String(decoding: ready.body, as: UTF8.self)
                == #"{"checks":{"store":{"message":"locked","status":"failed"}},"status":"not_ready"}"#)
    }

    @Test func readyzIsReadyWhenEveryCheckPasses() async throws {
        let ready = try await Self.get(Self.router(checks: [ReadinessCheck("store") {}]), "/readyz")
        #expect(ready.status == 200)
        #expect(
            String(decoding: ready.body, as: UTF8.self) == #"{"checks":{"store":{"status":"ok"}},"status":"ready"}"#)
    }

    @Test func withoutARegistryThereIsNoMetricsRoute() async throws {
        let scrape = try await Self.get(Self.router(metrics: nil), "/metrics")
        #expect(scrape.status == 404)
        #expect(try await Self.get(Self.router(metrics: nil), "/healthz").status == 200)
    }

    @Test func aMetricsTokenIsRequiredWhenSet() async throws {
        let handler = Self.router(token: Self.token)
        for authorization in [nil, "Bearer wrong-token-for-tests", "Basic bWV0cmljcw=="] {
            let refused = try await Self.get(handler, "/metrics", authorization: authorization)
            #expect(refused.status == 401)
            #expect(refused.headers["WWW-Authenticate"] == #"Bearer realm="metrics""#)
            let body = String(decoding: refused.body, as: UTF8.self)
            #expect(body.contains(#""code":"unauthorized""#))
            #expect(!body.contains("metrics-token-for-tests"))
        }
        let scrape = try await Self.get(handler, "/metrics", authorization: "Bearer metrics-token-for-tests")
        #expect(scrape.status == 200)
        // The probes stay open: load balancers do not carry tokens.
        #expect(try await Self.get(handler, "/healthz").status == 200)
        #expect(try await Self.get(handler, "/readyz").status == 200)
    }
}
