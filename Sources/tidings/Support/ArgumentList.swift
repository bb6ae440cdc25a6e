/// The arguments of one command: `--flag`, `--option value` (or `--option=value`) and positionals.
///
/// Small on purpose: swift-argument-parser cannot be fetched here, and our commands are simple.
struct ArgumentList {
    private(set) var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments`; `optionNames` take a value, `flagNames` do not; anything else is an error.
    init(_ arguments: [String], options optionNames: Set<String> = [], flags flagNames: Set<String> = []) throws {
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("--") {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            let body = argument.dropFirst(2)
            let (name, inlineValue): (String, String?) =
                if let equals = body.firstIndex(of: "=") {
                    (String(body[..<equals]), String(body[body.index(after: equals)...]))
                } else {
                    (String(body), nil)
                }
            if flagNames.contains(name), inlineValue == nil {
                flags.insert(name)
            } else if optionNames.contains(name) {
                if let inlineValue {
                    options[name, default: []].append(inlineValue)
                } else if index < arguments.count {
                    options[name, default: []].append(arguments[index])
                    index += 1
                } else {
                    throw CommandLineError.usage("--\(name) needs a value")
                }
            } else {
                throw CommandLineError.usage("unknown option --\(name)")
            }
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of option `name`; when it was given more than once, the last one wins.
    func option(_ name: String) -> String? { options[name]?.last }

    /// Every value of a repeatable option `name`, in command-line order.
    func values(_ name: String) -> [String] { options[name] ?? [] }

    /// Whether `arguments` asks for help (`--help` or `-h` before any `--`).
    static func asksForHelp(_ arguments: [String]) -> Bool {
        for argument in arguments {
            if argument == "--" { return false }
            if argument == "--help" || argument == "-h" { return true }
        }
        return false
    }
}
