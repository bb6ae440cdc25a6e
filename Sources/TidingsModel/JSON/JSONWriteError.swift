/// Why a `JSONValue` could not be written as JSON.
public struct JSONWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A machine-readable reason; `rawValue` is the stable snake_case code.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A `.double` holding infinity or NaN, which JSON cannot represent.
        case nonFiniteNumber = "non_finite_number"
    }

    /// What went wrong.
    public var code: Code
    /// Where in the value, as a path from the root: `$`, `$.aps.badge`, `$["a key"][2]`.
    public var path: String
    /// The offending value, rendered for people (`inf`, `nan`).
    public var detail: String

    /// Creates an error.
    public init(code: Code, path: String, detail: String) {
        self.code = code
        self.path = path
        self.detail = detail
    }

    /// A one-line message: `non-finite number inf at $.aps.badge cannot be written as JSON`.
    public var message: String {
        switch code {
        case .nonFiniteNumber: return "non-finite number \(detail) at \(path) cannot be written as JSON"
        }
    }

    public var description: String { message }
}
