/// A request that got no HTTP response: why, and what the underlying stack said.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The machine-readable reason.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The request's timeout passed without a complete response.
        case timeout
        /// No connection could be made or kept (DNS, refused, reset, TLS, offline).
        case connectionFailed = "connection_failed"
        /// The request was cancelled by its caller.
        case cancelled
        /// A response arrived that is not HTTP, or the request could not be built.
        case invalidResponse = "invalid_response"
    }

    public var code: Code
    /// The underlying stack's description, for logs. Never contains request headers.
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public static func timeout(_ message: String = "the request timed out") -> TransportError {
        TransportError(code: .timeout, message: message)
    }

    public static func connectionFailed(_ message: String = "the connection failed") -> TransportError {
        TransportError(code: .connectionFailed, message: message)
    }

    public static func cancelled(_ message: String = "the request was cancelled") -> TransportError {
        TransportError(code: .cancelled, message: message)
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
