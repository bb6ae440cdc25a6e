import Foundation

/// `tidings COMMAND ...`: dispatches to one command per subsystem.
enum TidingsCommand {
    static let usage = """
        usage: tidings <command> [options]

        commands:
          payload inspect [FILE|-] [--json]   decode a push payload of any dialect and show it
          payload lint [FILE|-] [--json]      report what Apple or the SDK would trip over
          queue stats|dump|flush --db PATH    inspect or upload an app's event store

        Run 'tidings <command> --help' for a command's options.
        """

    static func run(_ arguments: [String]) async -> Int32 {
        guard let command = arguments.first else {
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "payload": return try await PayloadCommand.run(rest)
            case "queue": return try await QueueCommand.run(rest)
            case "help", "--help", "-h":
                print(usage)
                return ExitCode.success
            default:
                throw CommandLineError.usage("unknown command '\(command)'; run 'tidings --help'")
            }
        } catch let error as CommandLineError {
            Console.error(error.message)
            return error.exitCode
        } catch let error as ServerClientError {
            Console.error(error.description)
            return error.exitCode
        } catch {
            Console.error("\(error)")
            return ExitCode.failure
        }
    }
}
