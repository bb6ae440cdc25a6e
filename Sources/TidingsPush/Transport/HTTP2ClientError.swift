/// Why ``CurlMultiClient`` produced no response: a transport failure, a limit, cancellation or shutdown.
public struct HTTP2ClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A machine-readable kind.
    public enum Code: String, Sendable, Hashable {
        /// Connecting, TLS or the HTTP/2 exchange failed (libcurl's code is in ``curlCode``).
        case transport
        /// The request's deadline passed.
        case timeout
        /// The response body exceeded the client's cap.
        case responseTooLarge
        /// The calling task was cancelled.
        case cancelled
        /// The client was shut down before the request finished.
        case shutdown
        /// libcurl refused the request's options (an unsupported URL, an out-of-memory handle).
        case invalidRequest
    }

    public var code: Code
    public var message: String
    /// libcurl's `CURLcode`, when it reported one.
    public var curlCode: Int?

    public init(code: Code, message: String, curlCode: Int? = nil) {
        self.code = code
        self.message = message
        self.curlCode = curlCode
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
