/// Why an attribute was refused: its key, and a sentence that names the rule or limit it broke.
public struct AttributeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The attribute's key, as given (possibly truncated for display).
    public var key: String
    public var message: String

    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { message }
}
