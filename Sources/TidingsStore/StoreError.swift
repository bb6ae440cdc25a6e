/// A refusal by the store, with a machine-readable code; backend failures propagate as their own errors.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the store refused.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The app, key or installation does not exist (in this app).
        public static let notFound = Code(rawValue: "not_found")
        /// A unique name is taken.
        public static let conflict = Code(rawValue: "conflict")
        /// A configured limit would be exceeded; the message names it.
        public static let limitExceeded = Code(rawValue: "limit_exceeded")
        /// A secret is stored encrypted and no secrets key is configured; the message names the key's id.
        public static let secretsKeyMissing = Code(rawValue: "secrets_key_missing")
        /// A secret does not decrypt: another key sealed it, or it was altered or moved from another row.
        public static let secretUnreadable = Code(rawValue: "secret_unreadable")
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
