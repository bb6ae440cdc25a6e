/// Why a registration or tag call did not do what was asked.
///
/// Every case has a machine-readable ``code``; server refusals keep the server's status, code and message.
public enum RegistrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A push token the server would refuse (wrong length or characters).
    case invalidToken(String)
    /// A user id outside 1…256 bytes.
    case invalidUserID(String)
    /// A tag call was made while nobody is logged in on this installation.
    case notLoggedIn
    /// A tag outside 1…64 characters of `[A-Za-z0-9_.:-]`; the message is the server's when it refused it.
    case invalidTag(tag: String, message: String)
    /// A custom attribute key or value outside the limits (``AttributeLimits``); the message names the limit.
    case invalidAttribute(key: String, message: String)
    /// The server refused because a limit was hit; the message names the limit.
    case limitExceeded(message: String)
    /// The server refused the key (401), or the key may not do this (403).
    case unauthorized(status: Int, message: String)
    /// The server has no such installation (404).
    case notFound(message: String)
    /// The server refused the request for another reason; `serverCode` is its error code.
    case rejected(status: Int, serverCode: String, message: String)
    /// The server says another installation secret owns this installation id (403
    /// `installation_secret_required` or `installation_secret_invalid`), for example after the keychain was
    /// wiped while the container kept the id. The registrar then registers under a new id, once.
    case installationSecretRefused(serverCode: String, message: String)
    /// The server refused the user token (`identity_token_expired`, `identity_token_required` or
    /// `identity_token_invalid`), after the token provider was asked for a fresh one.
    case userTokenRefused(status: Int, serverCode: String, message: String)
    /// No user token could be had for `userID`: the provider threw (its error is in `message`).
    case userTokenUnavailable(userID: String, message: String)
    /// The server could not answer now (5xx, 429, 408): worth retrying later.
    case unavailable(status: Int, message: String)
    /// No response arrived.
    case transport(TransportError)
    /// A 2xx whose body is not what the API documents.
    case invalidResponse(String)
    /// The registration file in the shared container could not be read or written.
    case storage(String)

    /// The machine-readable code.
    public var code: String {
        switch self {
        case .invalidToken: "invalid_token"
        case .invalidUserID: "invalid_user_id"
        case .notLoggedIn: "not_logged_in"
        case .invalidTag: "invalid_tag"
        case .invalidAttribute: "invalid_attribute"
        case .limitExceeded: "limit_exceeded"
        case .unauthorized: "unauthorized"
        case .notFound: "not_found"
        case .rejected: "rejected"
        case .installationSecretRefused: "installation_secret_refused"
        case .userTokenRefused: "user_token_refused"
        case .userTokenUnavailable: "user_token_unavailable"
        case .unavailable: "unavailable"
        case .transport: "transport_failed"
        case .invalidResponse: "invalid_response"
        case .storage: "storage_failed"
        }
    }

    /// A sentence for logs and people.
    public var message: String {
        switch self {
        case .invalidToken(let message), .invalidUserID(let message), .invalidResponse(let message),
            .storage(let message):
            message
        case .notLoggedIn: "no user is logged in on this installation; call login(userID:) first"
        case .invalidTag(_, let message), .invalidAttribute(_, let message), .limitExceeded(let message),
            .notFound(let message):
            message
        case .unauthorized(let status, let message): "HTTP \(status): \(message)"
        case .rejected(let status, let serverCode, let message): "HTTP \(status) \(serverCode): \(message)"
        case .installationSecretRefused(let serverCode, let message): "HTTP 403 \(serverCode): \(message)"
        case .userTokenRefused(let status, let serverCode, let message): "HTTP \(status) \(serverCode): \(message)"
        case .userTokenUnavailable(let userID, let message):
            "no user token for '\(userID.prefix(80))': \(message)"
        case .unavailable(let status, let message): "HTTP \(status): \(message)"
        case .transport(let error): error.description
        }
    }

    /// Whether the same request may succeed later without any change (server busy, no connection).
    public var isTransient: Bool {
        switch self {
        case .unavailable, .transport: true
        default: false
        }
    }

    public var description: String { "\(code): \(message)" }
}
