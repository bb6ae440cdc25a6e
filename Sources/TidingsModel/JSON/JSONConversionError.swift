/// Why a Foundation object (`userInfo`, `JSONSerialization` output) could not become a ``JSONValue``.
public struct JSONConversionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A machine-readable reason; `rawValue` is the stable snake_case code.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A dictionary key that is not a string (JSON object keys are strings).
        case nonStringKey = "non_string_key"
        /// A value of a type JSON has no form for (`Data`, a custom class).
        case unsupportedType = "unsupported_type"
        /// A floating-point number that is infinite or NaN.
        case nonFiniteNumber = "non_finite_number"
        /// Arrays and dictionaries nested deeper than ``JSONValue/maximumFoundationDepth``.
        case tooDeep = "too_deep"
    }

    /// What went wrong.
    public var code: Code
    /// Where in the object, as a path from the root: `$`, `$.aps.badge`, `$["a key"][2]`.
    public var path: String
    /// The offending key or type, rendered for people.
    public var detail: String

    /// Creates an error.
    public init(code: Code, path: String, detail: String) {
        self.code = code
        self.path = path
        self.detail = detail
    }

    /// A one-line message: `non-string key 1 (Int) at $.aps`.
    public var message: String {
        switch code {
        case .nonStringKey: return "non-string key \(detail) at \(path); JSON object keys are strings"
        case .unsupportedType: return "value of type \(detail) at \(path) has no JSON form"
        case .nonFiniteNumber: return "non-finite number \(detail) at \(path) cannot be JSON"
        case .tooDeep: return "nesting deeper than \(detail) levels at \(path)"
        }
    }

    public var description: String { message }
}
