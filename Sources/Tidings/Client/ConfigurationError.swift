/// Why a ``TidingsClient/Configuration`` could not be read from an Info.plist dictionary.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The machine-readable reason.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A required key is absent or empty.
        case missingKey = "missing_key"
        /// A key holds a value of the wrong type or outside what it accepts.
        case invalidValue = "invalid_value"
        /// The App Group container could not be resolved (the entitlement is missing or misspelt).
        case appGroupUnavailable = "app_group_unavailable"
    }

    public var code: Code
    /// The Info.plist key at fault.
    public var key: String
    /// What is wrong, naming what the key accepts.
    public var message: String

    public init(code: Code, key: String, message: String) {
        self.code = code
        self.key = key
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(key): \(message)" }
}
