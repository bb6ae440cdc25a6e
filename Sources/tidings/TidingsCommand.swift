import Foundation

/// `tidings COMMAND ...`: dispatches to one command per subsystem.
enum TidingsCommand {
    static let usage = """
        usage: tidings <command> [options]

        commands:
          payload inspect [FILE|-] [--json]   decode a push payload of any dialect and show it
          payload lint [FILE|-] [--json]      report what Apple or the SDK would trip over
          payload convert [FILE|-]            a vendor's payload in the native dialect, and what was left out
          queue stats|dump|flush --db PATH    inspect or upload an app's event store
          send TARGET CONTENT [--wait]        send a message through tidingsd; --wait follows the fan-out
          cancel MESSAGE_ID                   stop every push of a message not handed to APNs or FCM yet
          live-activity start|update|end      start, update and end Live Activities on devices
          audience count EXPR                 how many installations an audience expression selects now
          devices list|show                   the installations registered with tidingsd
          import FILE --profile NAME          devices and users from a vendor's export (CSV, NDJSON)
          events query|tail                   stored events as a table, JSON, NDJSON or CSV; follow new ones
          stats MESSAGE_ID | --campaign ID    the delivery and engagement funnel
          journeys list|show|create|start|... journeys: definitions, lifecycle and each step's numbers
          apps list|show|create|set-...       apps, their settings and credentials (admin key)
          keys list|create|revoke             an app's app and server keys (admin key)
          forwarders add|list|pause|...       an app's event forwarders; verify-signature (admin key)
          audit                               the audit log: every change, by whom (admin key)
          demo [--devices N] [--keep]         run the whole system here and show a campaign's funnel
          device simulate --count N ...       simulated devices running the real SDK against tidingsd

        Commands that talk to tidingsd take --server URL and --key KEY, or TIDINGS_SERVER and
        TIDINGS_SERVER_KEY, or ~/.config/tidings/config.json (see docs/cli.md); apps and keys take an
        admin key instead: --admin-key KEY, TIDINGS_ADMIN_KEY or "admin_key". Every command has --json.
        Exit status: 0 done, 1 failed or refused by the server, 2 usage, 3 no server answered.

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
            // Commands that talk to tidingsd's API (Sources/tidings/Server).
            case "send": return try await SendCommand.run(rest)
            case "cancel": return try await CancelCommand.run(rest)
            case "live-activity": return try await LiveActivityCommand.run(rest)
            case "audience": return try await AudienceCommand.run(rest)
            case "devices": return try await DevicesCommand.run(rest)
            case "import": return try await ImportCommand.run(rest)
            case "events": return try await EventsCommand.run(rest)
            case "stats": return try await StatsCommand.run(rest)
            case "journeys": return try await JourneysCommand.run(rest)
            // The administration API, with an admin key (Sources/tidings/Admin).
            case "apps": return try await AppsCommand.run(rest)
            case "keys": return try await KeysCommand.run(rest)
            case "forwarders": return try await ForwardersCommand.run(rest)
            case "audit": return try await AuditCommand.run(rest)
            case "demo": return try await DemoCommand.run(rest)
            case "device": return try await DeviceCommand.run(rest)
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
