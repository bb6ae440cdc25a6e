import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsTestSupport

/// Errors the router and the server produce themselves are JSON, with the headers HTTP asks for.
@Suite struct ErrorContractTests {
    static let routes = [
        HTTPRoute("GET", "/v1/things/{thing_id}") { request in
            HTTPResponse(status: 200, body: Data(request.pathParameters["thing_id"]!.utf8))
        },
        HTTPRoute("PUT", "/v1/things/{thing_id}") { _ in HTTPResponse(status: 200) },
        HTTPRoute("GET", "/v1/things") { request in
            HTTPResponse(status: 200, body: Data((request.queryValue("user_id") ?? "-").utf8))
        },
    ]

    static func error(_ response: RawHTTPClient.Response) throws -> (code: String, message: String) {
        let body = try JSONText.parse(response.body)
        return (body["error"]?["code"]?.stringValue ?? "", body["error"]?["message"]?.stringValue ?? "")
    }

    @Test func a405NamesThePathsMethodsInAllow() throws {
        let router = Router(routes: Self.routes)
        guard case .failure(let error) = router.match(method: "DELETE", path: "/v1/things/a") else {
            Issue.record("DELETE matched")
            return
        }
        #expect(error.status == 405)
        #expect(error.headers["Allow"] == "GET, HEAD, PUT")
        #expect(router.allowedMethods(path: "/v1/things") == ["GET", "HEAD"])
        #expect(router.allowedMethods(path: "/v1/nothing").isEmpty)
    }

    @Test func a405OverTheWireCarriesAllowAndJSON() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port, "POST /v1/things HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        #expect(response.status == 405)
        #expect(response.headers["allow"] == "GET, HEAD")
        #expect(response.headers["content-type"] == "application/json")
        #expect(try Self.error(response).code == "method_not_allowed")
    }

    @Test(arguments: ["%FF", "%C3%28", "%", "%G1", "%00%FF"])
    func aPathParameterThatIsNotUTF8Is400NamingIt(segment: String) async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /v1/things/\(segment) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(response.status == 400)
        let error = try Self.error(response)
        #expect(error.code == "invalid_parameter")
        #expect(error.message.contains("thing_id"))
    }

    @Test(arguments: ["user_id=%FF%FE", "user_id=%", "user_id=a%ZZ", "limit=1&user_id=%C3", "%FF=1"])
    func aQueryParameterThatIsNotUTF8Is400NamingIt(query: String) async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let response = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /v1/things?\(query) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(response.status == 400)
        let error = try Self.error(response)
        #expect(error.code == "invalid_parameter")
        #expect(error.message.contains(query.hasPrefix("%FF") ? "%FF" : "user_id"))
    }

    @Test func wellFormedEscapesStillDecode() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        let query = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /v1/things?user_id=J%C3%BCrgen+K HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        )
        #expect(query.status == 200)
        #expect(query.bodyText == "Jürgen K")
        let path = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /v1/things/a%3Ab HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(path.status == 200)
        #expect(path.bodyText == "a:b")
    }

    @Test func aLongURIIs414JSONAndLargeHeadersAre431JSON() async throws {
        let loopback = try LoopbackServer(routes: Self.routes)
        defer { loopback.server.stopNow() }
        // Past the default 16 KiB for a request's head.
        let long = String(repeating: "a", count: 20_000)
        let uri = try await RawHTTPClient.exchange(
            port: loopback.port, "GET /v1/things?user_id=\(long) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(uri.status == 414)
        #expect(uri.headers["content-type"] == "application/json")
        #expect(try Self.error(uri).code == "uri_too_long")
        let headers = try await RawHTTPClient.exchange(
            port: loopback.port,
            "GET /v1/things HTTP/1.1\r\nHost: t\r\nX-A: \(long.prefix(9000))\r\nX-B: \(long.prefix(9000))\r\n"
                + "Connection: close\r\n\r\n")
        #expect(headers.status == 431)
        #expect(headers.headers["content-type"] == "application/json")
        #expect(try Self.error(headers).code == "headers_too_large")
        // Just under the limit is served.
        let fits = try await RawHTTPClient.exchange(
            port: loopback.port,
            "GET /v1/things HTTP/1.1\r\nHost: t\r\nX-A: \(long.prefix(14000))\r\nConnection: close\r\n\r\n")
        #expect(fits.status == 200)
    }
}
