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

    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String { "\(status) \(code): \(message)" }
}
