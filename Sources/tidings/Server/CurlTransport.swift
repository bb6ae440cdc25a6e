import Foundation
import Tidings
import TidingsPush

/// The CLI's ``HTTPTransport``: libcurl through ``CurlMultiClient``, whose one thread sleeps in
/// `curl_multi_poll` while a request waits for its answer.
///
/// FoundationNetworking's URLSession, the SDK's default, kept the CLI on a core for as long as the server took
/// to answer: its dispatch sources for libcurl's sockets fired again and again with nothing to read (a
/// profile showed libdispatch's source and wake-up calls, nothing else). With several CLI processes waiting on a
/// busy server, they took the cores the server needed.
struct CurlTransport: HTTPTransport {
    /// The largest answer the CLI takes: far above any page the API sends, and a bound on memory should a
    /// server stream without end.
    static let maximumResponseBytes = 256 * 1024 * 1024

    /// One client for the process: its thread lives as long as the CLI runs.
    static let shared: CurlTransport? = {
        var configuration = CurlMultiClient.Configuration()
        configuration.maxResponseBodyBytes = maximumResponseBytes
        return (try? CurlMultiClient(configuration: configuration)).map(CurlTransport.init(client:))
    }()

    let client: CurlMultiClient

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        let http2Request = HTTP2Request(
            method: request.method, url: request.url.absoluteString,
            headers: request.headers.map { (name: $0.key, value: $0.value) }, body: request.body,
            timeout: request.timeout)
        do {
            let response = try await client.send(http2Request)
            return TransportResponse(status: response.status, headers: response.headers, body: response.body)
        } catch {
            throw Self.transportError(for: error)
        }
    }

    static func transportError(for error: HTTP2ClientError) -> TransportError {
        switch error.code {
        case .timeout: .timeout(error.message)
        case .cancelled, .shutdown: .cancelled(error.message)
        case .responseTooLarge, .invalidRequest: TransportError(code: .invalidResponse, message: error.message)
        case .transport: .connectionFailed(error.message)
        }
    }
}
