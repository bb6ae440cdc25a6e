import TidingsPush

/// Sends one HTTP request for a destination: libcurl's ``CurlMultiClient`` in `tidingsd`, which tests and
/// the benchmark also use against their loopback receivers.
public protocol ForwardingHTTPClient: Sendable {
    func send(_ request: HTTP2Request) async throws(HTTP2ClientError) -> HTTP2Response
}

extension CurlMultiClient: ForwardingHTTPClient {}

extension ForwardingHTTPClient {
    /// Sends `request` and turns anything but a 2xx answer into a ``ForwardingFailure``.
    func deliver(_ request: HTTP2Request) async throws(ForwardingFailure) {
        let response: HTTP2Response
        do {
            response = try await send(request)
        } catch {
            // Transport failures, timeouts and a dropped connection: the batch may or may not have arrived,
            // so it is sent again and the receiver de-duplicates.
            throw ForwardingFailure(kind: .retryable, message: error.description)
        }
        guard (200..<300).contains(response.status) else {
            throw ForwardingFailure.classify(status: response.status, headers: response.headers, body: response.body)
        }
    }
}
