import Foundation
import TidingsModel

/// An error that becomes an HTTP response: status plus `{"error":{"code","message"}}`.
///
/// Handlers throw these for every client mistake; anything else thrown becomes a 500 whose
/// message does not leak internals.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    /// Stable and machine-readable, for example `payload_too_large` or `invalid_token`.
    public var code: String
    /// For a person: says what was wrong and, for limits, what the limit is.
    public var message: String
    /// Headers the response must carry besides the JSON body: `Retry-After` on a 429, `WWW-Authenticate`
    /// on a 401. The error travels as a thrown value, so these ride along with it to the error middleware.
    public var headers: HTTPHeaders

    public init(status: Int, code: String, message: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status) \(code): \(message)" }
}

extension HTTPError {
    /// `{"error":{"code":...,"message":...}}`, the body of every error response.
    public var jsonBody: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(Envelope(error: .init(code: code, message: message)))) ?? Data()
    }

    /// The error a handler gets when it takes longer than the server allows.
    public static func handlerTimeout(limit: Duration) -> HTTPError {
        HTTPError(
            status: 503, code: "timeout",
            message: "the request took longer than the server's limit of \(limit.formattedSeconds)")
    }

    /// The error for a request body above `limit` bytes.
    public static func payloadTooLarge(limit: Int) -> HTTPError {
        HTTPError(
            status: 413, code: "payload_too_large",
            message: "the request body is larger than the limit of \(limit) bytes")
    }

    /// `429 rate_limited` with `Retry-After`: the caller used up `limit` and may try again in
    /// `retryAfterSeconds` whole seconds (at least 1, as `Retry-After` has no fractions).
    ///
    /// ```swift
    /// if case .denied(let wait) = limiter.acquire(key, limit: limit) {
    ///     throw HTTPError.rateLimited(limit: limit, retryAfterSeconds: wait)
    /// }
    /// ```
    public static func rateLimited(limit: RateLimit, retryAfterSeconds: Int) -> HTTPError {
        let wait = max(1, retryAfterSeconds)
        return HTTPError(
            status: 429, code: "rate_limited",
            message: "too many requests: limit \(limit); retry after \(wait) s",
            headers: ["Retry-After": String(wait)])
    }

    /// What the client sees for an error the server did not expect: nothing about its cause.
    public static func internalError(requestID: String) -> HTTPError {
        HTTPError(
            status: 500, code: "internal_error",
            message: "the server failed to answer this request; quote request id \(requestID) when reporting it")
    }

    private struct Envelope: Encodable {
        struct Body: Encodable {
            var code: String
            var message: String
        }
        var error: Body
    }
}

extension Duration {
    /// `30 s`, `0.25 s`: how limits are named in messages.
    var formattedSeconds: String {
        let seconds = self.seconds
        if seconds == seconds.rounded() { return "\(Int(seconds)) s" }
        return "\(seconds) s"
    }
}
