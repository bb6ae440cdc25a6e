/// Why one row of an import file was refused: the file's column, the rule it breaks, and a message that says
/// the rule (and its limit).
public struct ImportRowError: Error, Sendable, Hashable {
    public var column: String
    /// Stable and machine-readable: `invalid_timezone`, `required`, `user_erased`...
    public var rule: String
    public var message: String

    public init(column: String, rule: String, message: String) {
        self.column = column
        self.rule = rule
        self.message = message
    }
}
