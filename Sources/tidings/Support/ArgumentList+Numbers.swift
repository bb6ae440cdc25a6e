extension ArgumentList {
    /// The value of an optional `--NAME N` with N a whole number ≥ 1, or nil when it is absent.
    /// - Throws: ``CommandLineError`` (usage) naming `command` and the option when N is anything else.
    func positiveInteger(_ name: String, command: String) throws -> Int? {
        guard let text = option(name) else { return nil }
        guard let value = Int(text), value >= 1 else {
            throw CommandLineError.usage("\(command): --\(name) '\(text)' must be a whole number, 1 or more")
        }
        return value
    }
}
