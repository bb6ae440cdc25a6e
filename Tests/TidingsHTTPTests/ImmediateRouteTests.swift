import Foundation
import Testing
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsTestSupport

/// Routes declared `immediate` are answered on the network thread, with the same pipeline around them.
@Suite struct ImmediateRouteTests {
    /// Answers where the handler ran: inside a Swift task or not.
    static let whereAmI = HTTPRoute.immediate("PUT", "/v1/items/{item}") { request in
        let inTask = withUnsafeCurrentTask { $0 != nil }
        return HTTPResponse(
            status: 201, headers: ["Content-Type": "text/plain"],
            body: Data("\(request.pathParameters["item"] ?? "-") task=\(inTask)".utf8))
    }
    static let refusing = HTTPRoute.immediate("POST", "/v1/refuse") { _ in
        throw HTTPError(status: 422, code: "invalid_token", message: "the token is not 64 hex digits")
    }
    static let crashing = HTTPRoute.immediate("POST", "/v1/crash") { _ in throw CocoaError(.fileNoSuchFile) }
    static let asynchronous = HTTPRoute("GET", "/v1/items/{item}") { _ in
        let inTask = withUnsafeCurrentTask { $0 != nil }
        return HTTPResponse(status: 200, body: Data("task=\(inTask)".utf8))
    }

    static let routes = [whereAmI, refusing, crashing, asynchronous]

    @Test func immediateRouteIsAnsweredOutsideAnyTaskWithRequestIDMetricsAndLog() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port,
            "PUT /v1/items/a%2Fb HTTP/1.1\r\nHost: t\r\nX-Request-Id: trace-7\r\nContent-Length: 2\r\n"
                + "Connection: close\r\n\r\n{}")
        #expect(response.status == 201)
        #expect(response.bodyText == "a/b task=false")
        #expect(response.headers["x-request-id"] == "trace-7")
        let exposition = loopback.metrics.exposition()
        #expect(
            exposition.contains(
                #"tidings_http_requests_total{method="PUT",route="/v1/items/{item}",status="201"} 1"#))
        #expect(exposition.contains(#"tidings_http_requests_in_flight 0"#))
        let logged = loopback.logs.records.first { $0.message == "request" }
        #expect(logged?.metadata["route"] == "/v1/items/{item}")
        #expect(logged?.metadata["status"] == "201")
        #expect(logged?.metadata["request_id"] == "trace-7")
    }

    /// A trailing closure without `await` still declares an ordinary route, answered from a task.
    @Test func otherRoutesStillRunInATask() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /v1/items/x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.bodyText == "task=true")
    }

    @Test func errorsOfImmediateRoutesAreRenderedAsJSON() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let refused = try await RawHTTPClient.exchange(
            port: loopback.port, "POST /v1/refuse HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        #expect(refused.status == 422)
        #expect(refused.headers["content-type"] == "application/json")
        #expect(refused.bodyText.contains(#""code":"invalid_token""#))
        let crashed = try await RawHTTPClient.exchange(
            port: loopback.port, "POST /v1/crash HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        #expect(crashed.status == 500)
        #expect(crashed.bodyText.contains(#""code":"internal_error""#))
        #expect(loopback.logs.records.contains { $0.level == .error && $0.message == "unhandled error" })
    }

    @Test func unknownPathsAndWrongMethodsStillGetTheirJSONErrors() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let missing = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /v1/nothing HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(missing.status == 404)
        let wrongMethod = try await RawHTTPClient.exchange(
            port: loopback.port, "DELETE /v1/items/x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(wrongMethod.status == 405)
    }

    @Test func immediateHandlerDeclinesRequestsItDoesNotServe() throws {
        let handler = HTTPMiddleware.standardImmediate(
            router: Router(routes: Self.routes), logger: .disabled(), metrics: MetricsRegistry())
        #expect(handler(HTTPRequest(method: "GET", path: "/v1/items/x")) == nil)
        #expect(handler(HTTPRequest(method: "GET", path: "/v1/unknown")) == nil)
        let answer = try #require(handler(HTTPRequest(method: "PUT", path: "/v1/items/x")))
        guard case .computed(.networkThread, let respond) = answer else {
            Issue.record("an immediate route is computed on the network thread, not \(answer)")
            return
        }
        #expect(respond().status == 201)
    }

    @Test func inProcessCallersSeeTheSameAnswerThroughTheAsyncHandler() async throws {
        let response = try await Router(routes: Self.routes).handler(HTTPRequest(method: "PUT", path: "/v1/items/y"))
        #expect(response.status == 201)
        #expect(String(decoding: response.body, as: UTF8.self) == "y task=true")
    }

    @Test(arguments: [
        ("/v1/items/%41b", "Ab"), ("/v1/items/a%20b", "a b"), ("/v1/items/plain", "plain"),
    ])
    func pathParametersArePercentDecoded(path: String, expected: String) throws {
        let router = Router(routes: Self.routes)
        let (_, parameters) = try router.match(method: "PUT", path: path).get()
        #expect(parameters["item"] == expected)
    }

    @Test(arguments: ["/v1/items/%ZZ", "/v1/items/%", "/v1/items/%FF"])
    func undecodableParametersMatchNoRouteAndAre400NamingTheParameter(path: String) {
        let router = Router(routes: Self.routes)
        guard case .failure(let error) = router.match(method: "PUT", path: path) else {
            Issue.record("\(path) matched")
            return
        }
        #expect(error.status == 400)
        #expect(error.code == "invalid_parameter")
        #expect(error.message.hasPrefix("item "))
        #expect(router.pattern(method: "PUT", path: path) == nil)
    }
}
