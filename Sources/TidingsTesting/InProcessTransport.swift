import Foundation
import Tidings
import TidingsHTTP
import TidingsServer

/// An ``HTTPTransport`` that hands each request to a server handler in process instead of the network.
///
/// ```swift
/// let api = TidingsAPI(store: store, logger: .disabled())
/// let transport = InProcessTransport(handler: api.router.handler)
/// ```
/// Errors the handler throws are rendered as the server renders them (`HTTPError` as its JSON error body,
/// anything else as a 500), so the SDK sees exactly what it would see over HTTP.
public struct InProcessTransport: HTTPTransport {
    private let handler: HTTPHandler

    public init(handler: @escaping HTTPHandler) {
        self.handler = handler
    }

    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        guard let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else {
            throw TransportError(code: .invalidResponse, message: "the URL cannot be read")
        }
        var headers = HTTPHeaders()
        for (name, value) in request.headers { headers[name] = value }
        let query = (components.queryItems ?? []).map { (name: $0.name, value: $0.value ?? "") }
        // The router decodes each segment itself, as the real server does, so pass the path still encoded.
        let serverRequest = HTTPRequest(
            method: request.method, path: components.percentEncodedPath, query: query, headers: headers,
            body: Data(request.body), remoteAddress: "127.0.0.1")
        let response: HTTPResponse
        do {
            response = try await handler(serverRequest)
        } catch let error as HTTPError {
            response = .error(error)
        } catch {
            response = .error(.internalError(requestID: serverRequest.requestID))
        }
        var responseHeaders: [String: String] = [:]
        for (name, value) in response.headers { responseHeaders[name] = value }
        return TransportResponse(status: response.status, headers: responseHeaders, body: Array(response.body))
    }
}
