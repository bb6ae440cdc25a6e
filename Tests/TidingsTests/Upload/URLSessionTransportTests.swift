import Foundation
import Testing

@testable import Tidings

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real transport over loopback: a request goes out as built and any status comes back as a response.
@Suite struct URLSessionTransportTests {
    @Test func postsTheBodyAndHeadersAndReturnsTheResponse() async throws {
        let server = try LoopbackHTTPServer { _ in
            LoopbackHTTPServer.response(
                status: 429, reason: "Too Many Requests", headers: ["Retry-After": "7"], body: #"{"ok":false}"#)
        }
        defer { server.close() }
        let transport = URLSessionTransport()
        let request = TransportRequest(
            method: "POST", url: URL(string: "http://127.0.0.1:\(server.port)/v1/events")!,
            headers: ["Authorization": "Bearer k", "Content-Type": "application/json"],
            body: Array(#"{"events":[]}"#.utf8), timeout: .seconds(10))
        let response = try await transport.send(request)

        #expect(response.status == 429)
        #expect(response.header("retry-after") == "7")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"ok":false}"#)
        let raw = String(decoding: try #require(server.requests.first), as: UTF8.self)
        #expect(raw.hasPrefix("POST /v1/events HTTP/1.1\r\n"))
        #expect(raw.lowercased().contains("authorization: bearer k\r\n"))
        #expect(raw.hasSuffix("\r\n\r\n" + #"{"events":[]}"#))
    }

    @Test func refusedConnectionIsAConnectionFailure() async throws {
        // Bind a port, then close it, so nothing listens there.
        let server = try LoopbackHTTPServer { _ in nil }
        let port = server.port
        server.close()
        let request = TransportRequest(
            method: "POST", url: URL(string: "http://127.0.0.1:\(port)/v1/events")!, timeout: .seconds(10))
        let error = await #expect(throws: TransportError.self) {
            try await URLSessionTransport().send(request)
        }
        #expect(error?.code == .connectionFailed)
    }

    @Test func silentServerIsATimeout() async throws {
        let server = try LoopbackHTTPServer { _ in nil }
        defer { server.close() }
        let request = TransportRequest(
            method: "POST", url: URL(string: "http://127.0.0.1:\(server.port)/v1/events")!,
            body: Array("{}".utf8), timeout: .milliseconds(300))
        let error = await #expect(throws: TransportError.self) {
            try await URLSessionTransport().send(request)
        }
        #expect(error?.code == .timeout, "\(String(describing: error))")
    }

    @Test(arguments: [
        (URLError.Code.timedOut, TransportError.Code.timeout),
        (.cancelled, .cancelled),
        (.cannotConnectToHost, .connectionFailed),
        (.networkConnectionLost, .connectionFailed),
        (.notConnectedToInternet, .connectionFailed),
        (.badServerResponse, .invalidResponse),
    ])
    func urlErrorsMapToTransportCodes(code: URLError.Code, expected: TransportError.Code) {
        #expect(URLSessionTransport.transportError(for: URLError(code)).code == expected)
    }
}

extension URLSessionTransportTests {
    @Test func callerCancellationIsReportedAsCancelled() async throws {
        let server = try LoopbackHTTPServer { _ in nil }
        defer { server.close() }
        let request = TransportRequest(
            method: "POST", url: URL(string: "http://127.0.0.1:\(server.port)/v1/events")!,
            body: Array("{}".utf8), timeout: .seconds(20))
        let sending = Task { () async throws(TransportError) -> TransportResponse in
            try await URLSessionTransport().send(request)
        }
        // Wait (bounded) until the request has reached the server, so the cancel hits a live request.
        for _ in 0..<500 where server.requests.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(server.requests.count == 1)
        sending.cancel()
        let result = await sending.result
        let error = #expect(throws: TransportError.self) { try result.get() }
        #expect(error?.code == .cancelled)
    }
}
