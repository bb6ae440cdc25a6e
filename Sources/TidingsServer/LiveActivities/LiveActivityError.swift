/// Why a Live Activity request or token was refused before anything was sent: a machine-readable code, the
/// field at fault and a message that names the limit when one is hit.
public struct LiveActivityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of mistake it is; the API answers it as the error's `code`.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A field has the wrong type, is missing, or is out of range.
        public static let invalidField = Code(rawValue: "invalid_field")
        /// `event` is not `start`, `update` or `end`.
        public static let invalidEvent = Code(rawValue: "invalid_event")
        /// `stale_date` or `dismissal_date` is before what it must follow.
        public static let invalidDateOrder = Code(rawValue: "invalid_date_order")
        /// A target tag expression does not parse.
        public static let invalidTagExpression = Code(rawValue: "invalid_tag_expression")
        /// The APNs payload would exceed ``LiveActivityPayload/maximumBytes``.
        public static let payloadTooLarge = Code(rawValue: "payload_too_large")
    }

    public var code: Code
    /// The request field at fault (`content_state`, `stale_date`...), when one is.
    public var field: String?
    public var message: String

    public init(code: Code, field: String?, message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    /// The HTTP status the API answers with: 413 for a payload too large, else 400.
    public var status: Int { code == .payloadTooLarge ? 413 : 400 }

    static func invalid(_ field: String, _ message: String) -> LiveActivityError {
        LiveActivityError(code: .invalidField, field: field, message: "\(field): \(message)")
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
