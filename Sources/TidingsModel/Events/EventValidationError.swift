/// Why an event was refused, by the SDK at enqueue or by the server at ingest.
public struct EventValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable reason.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let notAnObject = Code(rawValue: "not_an_object")
        public static let missingField = Code(rawValue: "missing_field")
        public static let wrongType = Code(rawValue: "wrong_type")
        public static let invalidValue = Code(rawValue: "invalid_value")
        public static let unknownType = Code(rawValue: "unknown_type")
        public static let fieldTooLong = Code(rawValue: "field_too_long")
        public static let eventTooLarge = Code(rawValue: "event_too_large")
        public static let timestampOutOfRange = Code(rawValue: "timestamp_out_of_range")
        /// An app key's batch carried an event of another installation than the one it proved.
        public static let installationMismatch = Code(rawValue: "installation_mismatch")
        /// An app key sent a type only the server records (`uninstall`).
        public static let serverOnlyType = Code(rawValue: "server_only_type")
    }

    public var code: Code
    /// The wire name of the offending field, when one field is at fault.
    public var field: String?
    public var message: String

    public init(code: Code, field: String?, message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
