import TidingsModel

/// Why a notification's media could not be attached: a stable code and a message naming the limit.
///
/// The code and message become the `reason` of the `media_failed` event; the extension then delivers
/// the text-only content.
public struct MediaFetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The machine-readable reason.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A plain `http` URL while the policy is HTTPS only (iOS would need an ATS exception).
        case insecureURL = "insecure_url"
        /// The URL cannot be parsed, has no host, or is not HTTP(S); or a bundled name is not a plain file name.
        case invalidURL = "invalid_url"
        /// The server answered with a status other than 2xx.
        case httpStatus = "http_status"
        /// The media is larger than its kind's cap (declared or counted).
        case tooLarge = "too_large"
        /// The overall deadline or the per-request timeout passed.
        case timeout
        /// The declared kind contradicts the content (for example a video declared, a PNG received).
        case typeMismatch = "type_mismatch"
        /// The content is not a format iOS can attach.
        case unknownType = "unknown_type"
        /// A redirect leads to plain `http` while the policy is HTTPS only.
        case insecureRedirect = "insecure_redirect"
        /// More redirects than the policy allows.
        case tooManyRedirects = "too_many_redirects"
        /// The network or the file system failed (connection refused, reset, disk full).
        case transport
        /// A bundled media name that is not in the bundle directory.
        case bundledMissing = "bundled_missing"
        /// The caller's task was cancelled.
        case cancelled
    }

    public var code: Code
    /// What happened, naming the limit when one was hit.
    public var message: String
    /// The HTTP status, for ``Code/httpStatus``.
    public var status: Int?

    public init(code: Code, message: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    /// `code: message`, the form used as the `reason` of a `media_failed` event.
    public var description: String { "\(code.rawValue): \(message)" }

    /// `video is 61234567 bytes (Content-Length); the limit is 52428800 bytes (50 MB)`.
    static func tooLarge(_ kind: PushMedia.Kind, limit: Int, measured: String) -> MediaFetchError {
        let megabytes = limit % 1_048_576 == 0 ? " (\(limit / 1_048_576) MB)" : ""
        return MediaFetchError(
            code: .tooLarge, message: "\(kind.rawValue) \(measured); the limit is \(limit) bytes\(megabytes)")
    }
}
