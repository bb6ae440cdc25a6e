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

extension ArgumentList {
    /// The value of an optional `--NAME N` with N a whole number in `range`, or nil when it is absent.
    /// - Throws: ``CommandLineError`` (usage) naming `command`, the option and the range otherwise.
    func integer(_ name: String, in range: ClosedRange<Int>, command: String) throws -> Int? {
        guard let text = option(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw CommandLineError.usage(
                "\(command): --\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound); "
                    + "got '\(text)'")
        }
        return value
    }

    /// The value of an optional `--NAME N` with N a whole number ≥ 0 that fits 64 bits (a seed).
    func unsignedInteger(_ name: String, command: String) throws -> UInt64? {
        guard let text = option(name) else { return nil }
        guard let value = UInt64(text) else {
            throw CommandLineError.usage("\(command): --\(name) must be a non-negative whole number; got '\(text)'")
        }
        return value
    }

    /// The value of an optional `--NAME SECONDS` with a positive, finite number of seconds.
    func duration(_ name: String, command: String) throws -> Duration? {
        guard let text = option(name) else { return nil }
        guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
            throw CommandLineError.usage("\(command): --\(name) must be a positive number of seconds; got '\(text)'")
        }
        return .milliseconds(Int64(seconds * 1000))
    }
}
