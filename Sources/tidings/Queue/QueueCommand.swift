import Foundation
import Tidings
import TidingsModel

/// `tidings queue stats|dump|flush --db PATH`: inspect or upload an app's event store.
enum QueueCommand {
    static let usage = """
        usage: tidings queue <subcommand> --db PATH [options]

        subcommands:
          stats --db PATH [--json]       counts per type, bytes, oldest age, drops by reason, leases
          dump --db PATH [--json]        the waiting events in order; --json prints one event JSON
                                         object per line (JSON Lines), exactly the bytes that are uploaded
          flush --db PATH --endpoint URL --app-key KEY [--installation ID] [--installation-secret SECRET] [--json]
                                         upload the waiting events to tidingsd as their installation; the id
                                         and secret are read from the app container the store sits in
                                         (tidings-installation-id, tidings-installation-secret.json) unless given

        The store must exist: inspecting never creates one.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let subcommand = arguments.first else {
            throw CommandLineError.usage("queue: missing subcommand (stats, dump, flush); run 'tidings queue --help'")
        }
        let rest = Array(arguments.dropFirst())
        switch subcommand {
        case "stats": return try stats(rest)
        case "dump": return try dump(rest)
        case "flush": return try await flush(rest)
        case "_write": return try QueueTestHooks.write(rest)
        case "_verify": return try QueueTestHooks.verify(rest)
        case "help", "--help", "-h":
            Console.write(usage + "\n")
            return ExitCode.success
        default:
            throw CommandLineError.usage("queue: unknown subcommand '\(subcommand)'; run 'tidings queue --help'")
        }
    }

    /// Opens an existing store; a missing or unreadable one is a one-line error.
    static func openStore(_ arguments: ArgumentList, configure: (inout EventStore.Configuration) -> Void = { _ in })
        throws -> EventStore
    {
        guard let path = arguments.option("db") else { throw CommandLineError.usage("queue: --db PATH is required") }
        var configuration = EventStore.Configuration()
        configuration.createIfMissing = false
        configure(&configuration)
        do {
            return try EventStore(path: path, configuration: configuration)
        } catch {
            throw CommandLineError.failure("queue: \(error.description)")
        }
    }

    static func stats(_ rawArguments: [String]) throws -> Int32 {
        let arguments = try ArgumentList(rawArguments, options: ["db"], flags: ["json"])
        try noPositionals(arguments)
        let store = try openStore(arguments)
        let stats = try storeCall { try store.stats() }
        if arguments.flag("json") {
            Console.write(String(decoding: try encode(stats.json, pretty: true), as: UTF8.self) + "\n")
        } else {
            Console.write(QueueStatsText.render(stats, path: store.path))
        }
        return ExitCode.success
    }

    static func dump(_ rawArguments: [String]) throws -> Int32 {
        let arguments = try ArgumentList(rawArguments, options: ["db"], flags: ["json"])
        try noPositionals(arguments)
        let store = try openStore(arguments)
        let events = try storeCall { try store.dump() }
        if arguments.flag("json") {
            var output: [UInt8] = []
            for event in events {
                output += event.body
                output.append(UInt8(ascii: "\n"))
            }
            FileHandle.standardOutput.write(Data(output))
        } else {
            Console.write(QueueStatsText.renderEvents(events))
        }
        return ExitCode.success
    }

    static func flush(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try ArgumentList(
            rawArguments, options: ["db", "endpoint", "app-key", "installation", "installation-secret"],
            flags: ["json"])
        try noPositionals(arguments)
        guard let endpointText = arguments.option("endpoint") else {
            throw CommandLineError.usage("queue flush: --endpoint URL is required")
        }
        guard let endpoint = URL(string: endpointText), endpoint.scheme == "http" || endpoint.scheme == "https" else {
            throw CommandLineError.usage("queue flush: --endpoint '\(endpointText)' is not an http(s) URL")
        }
        guard let appKey = arguments.option("app-key"), !appKey.isEmpty else {
            throw CommandLineError.usage("queue flush: --app-key KEY is required")
        }
        let store = try openStore(arguments)
        let installation = try QueueFlusher.installation(
            container: URL(fileURLWithPath: arguments.option("db") ?? "").deletingLastPathComponent(),
            installationID: arguments.option("installation"), secret: arguments.option("installation-secret"))
        let summary = await QueueFlusher.flush(
            store: store, endpoint: endpoint, appKey: appKey, installation: installation)
        if arguments.flag("json") {
            Console.write(String(decoding: try summary.json.serialized(sortedKeys: true), as: UTF8.self) + "\n")
        } else {
            Console.write(QueueFlusher.describe(summary) + "\n")
        }
        // Anything left behind (an error, or a server that asked to wait) is a failed flush for a script.
        return summary.error == nil && summary.nextRetryAt == nil ? ExitCode.success : ExitCode.failure
    }

    static func noPositionals(_ arguments: ArgumentList) throws {
        if let extra = arguments.positionals.first {
            throw CommandLineError.usage("queue: unexpected argument '\(extra)'")
        }
    }

    /// Runs a store call, turning its error into one line.
    @discardableResult
    static func storeCall<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as CommandLineError {
            throw error
        } catch {
            throw CommandLineError.failure("queue: \(error.message)")
        }
    }

    static func storeCall<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch let error as CommandLineError {
            throw error
        } catch {
            throw CommandLineError.failure("queue: \(error.message)")
        }
    }

    static func encode(_ json: JSONValue, pretty: Bool) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys]
        return try encoder.encode(json)
    }
}

extension Error {
    /// The error's own message when it has one (store and validation errors), else its description.
    fileprivate var message: String {
        switch self {
        case let error as EventStoreError: error.description
        case let error as EventValidationError: error.description
        default: "\(self)"
        }
    }
}
