/// Why no OAuth2 access token could be had from the service account's token endpoint.
public struct FCMAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Machine-readable codes.
    public enum Code: String, Sendable {
        /// The assertion could not be signed (see ``FCMCredentialError``).
        case signingFailed = "signing_failed"
        /// No answer: connecting, TLS, a timeout or shutdown.
        case transport
        /// The endpoint refused the assertion (4xx, for example `invalid_grant`): retrying will not help.
        case rejected
        /// The endpoint failed (5xx, 429): worth trying again later.
        case unavailable
        /// A 200 without a usable `access_token` and `expires_in`.
        case malformedResponse = "malformed_response"
    }

    public var code: Code
    public var message: String
    /// The token endpoint's HTTP status, when it answered.
    public var status: Int?

    public init(_ code: Code, _ message: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    /// Whether a later attempt may succeed.
    public var isRetryable: Bool { code == .transport || code == .unavailable }

    public var description: String { message }
}
