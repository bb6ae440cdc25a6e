/// Why the inbox could not do something.
public struct InboxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A machine-readable reason.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The payload has no message id, which is the entry's key.
        public static let missingMessageID = Code(rawValue: "missing_message_id")
        /// The database failed; the message carries SQLite's.
        public static let storage = Code(rawValue: "storage")
        /// A stored payload could not be read back.
        public static let corruptEntry = Code(rawValue: "corrupt_entry")
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
