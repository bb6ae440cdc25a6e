/// The arguments of one admin command: `--flag`, `--option value` (or `--option=value`) and positionals.
struct AdminArguments {
    private(set) var positionals: [String] = []
    private var options: [String: String] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments`; `optionNames` take a value, `flagNames` do not; anything else is a usage error.
    init(_ arguments: [String], options optionNames: Set<String> = [], flags flagNames: Set<String> = []) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                positionals.append(argument)
                continue
            }
            let body = argument.dropFirst(2)
            let name: String
            var value: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                value = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
            }
            if flagNames.contains(name), value == nil {
                flags.insert(name)
            } else if optionNames.contains(name) {
                if value == nil, index < arguments.count {
                    value = arguments[index]
                    index += 1
                }
                guard let value else { throw AdminUsageError("--\(name) needs a value") }
                options[name] = value
            } else {
                throw AdminUsageError("unknown option --\(name)")
            }
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    func option(_ name: String) -> String? { options[name] }
}

/// A command line that does not fit the command's usage; the message says what to change.
struct AdminUsageError: Error {
    var message: String

    init(_ message: String) { self.message = message }
}
