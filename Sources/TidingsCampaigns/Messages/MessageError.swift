/// Why a message was refused before anything was queued: a machine-readable code, the field, a message.
public struct MessageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `invalid_field`, `payload_too_large`, `invalid_tag_expression`...
    public var code: String
    /// The request field at fault (`content.title`, `target.tags`...), when one is.
    public var field: String?
    /// What is wrong, naming the limit when a limit is hit.
    public var message: String
    /// The HTTP status the API answers with.
    public var status: Int

    public init(code: String, field: String?, message: String, status: Int = 400) {
        self.code = code
        self.field = field
        self.message = message
        self.status = status
    }

    /// An invalid field.
    static func invalid(_ field: String, _ message: String) -> MessageError {
        MessageError(code: "invalid_field", field: field, message: "\(field): \(message)")
    }

    public var description: String { "\(code): \(message)" }
}
