/// The process exit statuses every `tidings` command uses.
enum ExitCode {
    static let success: Int32 = 0
    /// The command ran and found a problem (for example a lint error, or the server refused a request).
    static let failure: Int32 = 1
    /// The input or the command line was unusable.
    static let usage: Int32 = 2
    /// No tidingsd answered (connection refused, unknown host, timeout).
    static let unreachable: Int32 = 3
}

/// A failure that ends a command with one line on standard error.
struct CommandLineError: Error {
    var message: String
    var exitCode: Int32

    static func usage(_ message: String) -> CommandLineError {
        CommandLineError(message: message, exitCode: ExitCode.usage)
    }

    static func failure(_ message: String) -> CommandLineError {
        CommandLineError(message: message, exitCode: ExitCode.failure)
    }
}
