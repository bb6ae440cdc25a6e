import Foundation
import Testing
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsTestSupport

@Suite struct HTTPMiddlewareTests {
    struct Internal: Error, CustomStringConvertible {
        var description: String { "secret database path /var/lib/x" }
    }

    struct Pipeline {
        let handler: HTTPHandler
        let logs = RecordingLogHandler()
        let metrics = MetricsRegistry()

        init(routes: [HTTPRoute], timeout: Duration = .seconds(30)) {
            let logger = Logger(label: "test", level: .trace, handler: logs)
            handler = HTTPMiddleware.standard(
                router: Router(routes: routes), logger: logger, metrics: metrics, handlerTimeout: timeout)
        }
    }

    static let routes = [
        HTTPRoute("GET", "/v1/installations/{installation_id}") { request in
            HTTPResponse(status: 200, body: Data(request.pathParameters["installation_id"]!.utf8))
        },
        HTTPRoute("POST", "/v1/refuse") { _ in
            throw HTTPError(status: 422, code: "invalid_token", message: "the token is not 64 hex digits")
        },
        HTTPRoute("POST", "/v1/crash") { _ in throw Internal() },
    ]

    static func errorBody(_ response: HTTPResponse) throws -> [String: String] {
        let object = try JSONDecoder().decode([String: [String: String]].self, from: response.body)
        return try #require(object["error"])
    }

    @Test func unknownPathIs404JSON() async throws {
        let response = try await Pipeline(routes: Self.routes).handler(HTTPRequest(method: "GET", path: "/nope"))
        #expect(response.status == 404)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(try Self.errorBody(response)["code"] == "not_found")
    }

    @Test func knownPathWithAnotherMethodIs405JSON() async throws {
        let response = try await Pipeline(routes: Self.routes).handler(
            HTTPRequest(method: "DELETE", path: "/v1/installations/abc"))
        #expect(response.status == 405)
        #expect(try Self.errorBody(response)["code"] == "method_not_allowed")
    }

    @Test func thrownHTTPErrorKeepsStatusCodeAndMessage() async throws {
        let response = try await Pipeline(routes: Self.routes).handler(HTTPRequest(method: "POST", path: "/v1/refuse"))
        #expect(response.status == 422)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(try Self.errorBody(response) == ["code": "invalid_token", "message": "the token is not 64 hex digits"])
    }

    @Test func otherErrorsAre500WithoutInternalsAndAreLoggedWithTheRequestID() async throws {
        let pipeline = Pipeline(routes: Self.routes)
        let response = try await pipeline.handler(HTTPRequest(method: "POST", path: "/v1/crash", requestID: "r-1"))
        #expect(response.status == 500)
        let body = try Self.errorBody(response)
        #expect(body["code"] == "internal_error")
        #expect(body["message"]?.contains("secret") == false)
        #expect(body["message"]?.contains("r-1") == true)
        let logged = pipeline.logs.records.first { $0.level == .error }
        #expect(logged?.metadata["request_id"] == "r-1")
        #expect(logged?.metadata["error"]?.contains("secret database path") == true)
    }

    @Test(arguments: ["abc-123", "trace.id:7_x", String(repeating: "a", count: 128)])
    func saneIncomingRequestIDIsKeptAndEchoed(id: String) async throws {
        let response = try await Pipeline(routes: Self.routes).handler(
            HTTPRequest(method: "GET", path: "/v1/installations/i", headers: ["x-request-id": id]))
        #expect(response.headers["X-Request-Id"] == id)
    }

    @Test(arguments: ["", "has space", "quote\"", String(repeating: "a", count: 129), "new\nline", "ünïcode"])
    func insaneIncomingRequestIDIsReplaced(id: String) async throws {
        let response = try await Pipeline(routes: Self.routes).handler(
            HTTPRequest(method: "GET", path: "/nope", headers: ["X-Request-Id": id], requestID: "generated"))
        #expect(response.headers["X-Request-Id"] == "generated")
    }

    @Test func accessLogNamesRoutePatternStatusBytesAndNeverTheAuthorizationHeader() async throws {
        let pipeline = Pipeline(routes: Self.routes)
        _ = try await pipeline.handler(
            HTTPRequest(
                method: "GET", path: "/v1/installations/xyz",
                headers: ["Authorization": "Bearer sk_live_secret", "X-Request-Id": "req-9"]))
        let records = pipeline.logs.records.filter { $0.message == "request" }
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record.level == .info)
        #expect(record.metadata["method"] == "GET")
        #expect(record.metadata["route"] == "/v1/installations/{installation_id}")
        #expect(record.metadata["path"] == "/v1/installations/xyz")
        #expect(record.metadata["status"] == "200")
        #expect(record.metadata["bytes"] == "3")
        #expect(record.metadata["request_id"] == "req-9")
        #expect(record.metadata["duration_ms"] != nil)
        let everything = pipeline.logs.records.map { "\($0.message) \($0.metadata)" }.joined()
        #expect(!everything.contains("sk_live_secret"))
    }

    @Test func metricsCountByRoutePatternAndStatus() async throws {
        let pipeline = Pipeline(routes: Self.routes)
        for id in ["a", "b"] {
            _ = try await pipeline.handler(HTTPRequest(method: "GET", path: "/v1/installations/\(id)"))
        }
        _ = try await pipeline.handler(HTTPRequest(method: "GET", path: "/nope"))
        _ = try await pipeline.handler(HTTPRequest(method: "POST", path: "/v1/refuse"))
        _ = try await pipeline.handler(HTTPRequest(method: "PUT", path: "/v1/installations/c"))
        _ = try await pipeline.handler(HTTPRequest(method: "BREW", path: "/nope"))
        let text = pipeline.metrics.exposition()
        #expect(
            text.contains(
                #"tidings_http_requests_total{method="PUT",route="/v1/installations/{installation_id}",status="405"} 1"#
            ))
        #expect(
            text.contains(
                #"tidings_http_requests_total{method="GET",route="/v1/installations/{installation_id}",status="200"} 2"#
            ))
        #expect(text.contains(#"tidings_http_requests_total{method="GET",route="unmatched",status="404"} 1"#))
        #expect(text.contains(#"tidings_http_requests_total{method="POST",route="/v1/refuse",status="422"} 1"#))
        #expect(
            text.contains(
                #"tidings_http_request_duration_seconds_count{method="GET",route="/v1/installations/{installation_id}"} 2"#
            ))
        #expect(text.contains(#"tidings_http_requests_total{method="other",route="unmatched",status="404"} 1"#))
        #expect(!text.contains("BREW"))
        #expect(text.contains("tidings_http_requests_in_flight 0"))
    }

    @Test func slowHandlerIsAnswered503EvenWhenItIgnoresCancellation() async throws {
        let route = HTTPRoute("GET", "/stuck") { _ in
            // Ignores cancellation on purpose: the answer must not wait for it.
            let never = AsyncStream<Void>.makeStream()
            for await _ in never.stream {}
            return HTTPResponse(status: 200)
        }
        let response = try await Pipeline(routes: [route], timeout: .milliseconds(50)).handler(
            HTTPRequest(method: "GET", path: "/stuck"))
        #expect(response.status == 503)
        let body = try Self.errorBody(response)
        #expect(body["code"] == "timeout")
        #expect(body["message"]?.contains("0.05 s") == true)
    }

    @Test func fastHandlerIsNotDisturbedByTheTimeout() async throws {
        let response = try await Pipeline(routes: Self.routes, timeout: .seconds(5)).handler(
            HTTPRequest(method: "GET", path: "/v1/installations/q"))
        #expect(response.status == 200)
    }

    @Test func streamedBodyIsLoggedWithItsByteCountOnceProduced() async throws {
        let route = HTTPRoute("GET", "/export") { _ in
            HTTPResponse(status: 200) { writer in
                try await writer.write(Data("one\n".utf8))
                try await writer.write(Data("two\n".utf8))
            }
        }
        let pipeline = Pipeline(routes: [route])
        let response = try await pipeline.handler(HTTPRequest(method: "GET", path: "/export"))
        #expect(pipeline.logs.records.filter { $0.message == "request" }.isEmpty)
        guard case .stream(let stream) = response.content else {
            Issue.record("expected a stream")
            return
        }
        #expect(try await stream.collect() == Data("one\ntwo\n".utf8))
        let record = pipeline.logs.records.first { $0.message == "request" }
        #expect(record?.metadata["bytes"] == "8")
    }

    @Test func collectingAStreamStopsAtItsLimit() async throws {
        let stream = HTTPBodyStream { writer in
            for _ in 0..<10 { try await writer.write(Data(count: 100)) }
        }
        await #expect(throws: HTTPError.self) { try await stream.collect(limit: 500) }
    }

    @Test func bodyDataInitialiserStillWorksAndSettingBodyReplacesAStream() {
        var response = HTTPResponse(status: 201, body: Data("x".utf8))
        #expect(response.body == Data("x".utf8))
        response = HTTPResponse(status: 200) { _ in }
        #expect(response.body.isEmpty)
        response.body = Data("y".utf8)
        guard case .bytes(let data) = response.content else {
            Issue.record("expected bytes")
            return
        }
        #expect(data == Data("y".utf8))
    }
}
