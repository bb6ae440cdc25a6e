import Foundation
import TidingsForwarding
import TidingsModel

/// `tidings forwarders ...`: an app's event forwarders over the administration API, and a verifier for the
/// signatures webhook receivers get (docs/forwarding.md).
enum ForwardersCommand {
    static let usage = """
        usage: tidings forwarders list --app APP [--json]
               tidings forwarders add --app APP --kind webhook --url URL [--secret-file F] [filter] [--start now|beginning]
               tidings forwarders add --app APP --kind treasure_data (--region R | --endpoint URL) --database D
                   --table T (--write-key-file F | TIDINGS_TD_WRITE_KEY) [filter] [--start now|beginning]
               tidings forwarders add --app APP --kind file --directory DIR [--max-file-bytes N]
                   [--max-file-seconds N] [filter] [--start now|beginning]
               tidings forwarders pause|resume|remove --app APP FORWARDER_ID
               tidings forwarders dead-letters list|replay|purge --app APP FORWARDER_ID [--ids ID,ID]
               tidings forwarders backfill --app APP FORWARDER_ID --since TIME --until TIME
               tidings forwarders verify-signature --header VALUE --body-file F (--secret-file F | TIDINGS_WEBHOOK_SECRET)
                   [--tolerance SECONDS]

        filter: --event-types open,dismiss  --campaigns spring,summer  --drop-fields user_id,token
        A webhook's signing secret is printed once when it is added: give it to the receiver then. Secrets are
        read from files or the environment, never from the command line. TIME is milliseconds since 1970 or
        ISO 8601 (2026-11-29T12:00:00Z). verify-signature exits 0 when the header signs the body.

        \(ServerConnection.adminUsage)
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let subcommand = arguments.first else {
            throw CommandLineError.usage("forwarders: missing subcommand; run 'tidings forwarders --help'")
        }
        let rest = Array(arguments.dropFirst())
        if ["help", "--help", "-h"].contains(subcommand) || ArgumentList.asksForHelp(rest) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        switch subcommand {
        case "list": return try await list(rest)
        case "add": return try await add(rest)
        case "pause", "resume", "remove": return try await change(subcommand, rest)
        case "dead-letters": return try await deadLetters(rest)
        case "backfill": return try await backfill(rest)
        case "verify-signature": return try verifySignature(rest)
        default:
            throw CommandLineError.usage(
                "forwarders: unknown subcommand '\(subcommand)'; run 'tidings forwarders --help'")
        }
    }

    static func list(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.adminOptionNames.union(["app"]), flags: ["json"])
        let app = try appOption(arguments, "forwarders list")
        let answer = try await AdminClient(arguments: arguments).client.json(
            "GET", ["v1", "admin", "apps", app, "forwarders"])
        try Console.writeAnswer(answer, json: arguments.flag("json")) { answer in
            let forwarders = answer["forwarders"]?.arrayValue ?? []
            guard !forwarders.isEmpty else { return "No forwarders.\n" }
            return forwarders.map(describe).joined()
        }
        return ExitCode.success
    }

    static func add(_ rawArguments: [String]) async throws -> Int32 {
        let settingOptions: Set<String> = [
            "kind", "url", "secret-file", "region", "endpoint", "database", "table", "write-key-file", "directory",
            "max-file-bytes", "max-file-seconds", "event-types", "campaigns", "drop-fields", "start",
        ]
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.adminOptionNames.union(settingOptions).union(["app"]),
            flags: ["json", "paused"])
        let app = try appOption(arguments, "forwarders add")
        guard let kind = arguments.option("kind") else {
            throw CommandLineError.usage("forwarders add: --kind webhook|treasure_data|file is required")
        }
        var settings: [String: JSONValue] = [:]
        for (option, key) in [
            ("url", "url"), ("region", "region"), ("endpoint", "endpoint"), ("database", "database"),
            ("table", "table"), ("directory", "directory"),
        ] {
            if let value = arguments.option(option) { settings[key] = .string(value) }
        }
        for (option, key) in [("max-file-bytes", "max_file_bytes"), ("max-file-seconds", "max_file_seconds")] {
            guard let text = arguments.option(option) else { continue }
            guard let number = Int64(text) else {
                throw CommandLineError.usage("forwarders add: --\(option) takes a number")
            }
            settings[key] = .integer(number)
        }
        if let file = arguments.option("secret-file") { settings["secret"] = .string(try secret(file: file)) }
        if kind == "treasure_data" {
            if let file = arguments.option("write-key-file") {
                settings["write_key"] = .string(try secret(file: file))
            } else if let key = ProcessInfo.processInfo.environment["TIDINGS_TD_WRITE_KEY"], !key.isEmpty {
                settings["write_key"] = .string(key)
            }
        }
        var filter: [String: JSONValue] = [:]
        for (option, key) in [
            ("event-types", "event_types"), ("campaigns", "campaigns"), ("drop-fields", "drop_fields"),
        ] {
            guard let text = arguments.option(option) else { continue }
            filter[key] = .array(text.split(separator: ",").map { .string(String($0)) })
        }
        var body: [String: JSONValue] = [
            "kind": .string(kind), "settings": .object(settings), "filter": .object(filter),
        ]
        if let start = arguments.option("start") { body["start"] = .string(start) }
        if arguments.flag("paused") { body["state"] = "paused" }
        let answer = try await AdminClient(arguments: arguments).client.json(
            "POST", ["v1", "admin", "apps", app, "forwarders"], body: .object(body))
        if arguments.flag("json") {
            try Console.writeJSON(answer)
        } else {
            Console.write("Added " + describe(answer))
            if let secret = answer["secret"]?.stringValue {
                Console.write(
                    "Signing secret (give it to the receiver now; it is not shown again):\n\(secret)\n")
            }
        }
        return ExitCode.success
    }

    static func change(_ verb: String, _ rawArguments: [String]) async throws -> Int32 {
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.adminOptionNames.union(["app"]), flags: ["json"])
        let app = try appOption(arguments, "forwarders \(verb)")
        let id = try forwarderID(arguments, "forwarders \(verb)")
        let client = try AdminClient(arguments: arguments).client
        let path = ["v1", "admin", "apps", app, "forwarders", id]
        if verb == "remove" {
            _ = try await client.send("DELETE", path, accept: "application/json")
            Console.write("Removed forwarder \(id).\n")
            return ExitCode.success
        }
        let answer = try await client.json("POST", path + [verb])
        try Console.writeAnswer(answer, json: arguments.flag("json")) { describe($0) }
        return ExitCode.success
    }

    static func deadLetters(_ rawArguments: [String]) async throws -> Int32 {
        guard let action = rawArguments.first, ["list", "replay", "purge"].contains(action) else {
            throw CommandLineError.usage("forwarders dead-letters: give list, replay or purge")
        }
        let arguments = try ArgumentList(
            Array(rawArguments.dropFirst()), options: ServerConnection.adminOptionNames.union(["app", "ids"]),
            flags: ["json"])
        let app = try appOption(arguments, "forwarders dead-letters")
        let id = try forwarderID(arguments, "forwarders dead-letters")
        let client = try AdminClient(arguments: arguments).client
        let path = ["v1", "admin", "apps", app, "forwarders", id, "dead-letters"]
        let ids = arguments.option("ids").map { $0.split(separator: ",").map { JSONValue.string(String($0)) } }
        let answer: JSONValue
        switch action {
        case "list":
            answer = try await client.json("GET", path)
        case "replay":
            answer = try await client.json("POST", path + ["replay"], body: ids.map { ["ids": .array($0)] } ?? [:])
        default:
            answer = try await client.json("DELETE", path, query: [("ids", arguments.option("ids"))])
        }
        try Console.writeAnswer(answer, json: arguments.flag("json")) { answer in
            if let count = answer["replaying"] {
                return "\(DisplayText.value(count)) dead letters queued for replay.\n"
            }
            if let count = answer["purged"] { return "\(DisplayText.value(count)) dead letters purged.\n" }
            let letters = answer["dead_letters"]?.arrayValue ?? []
            guard !letters.isEmpty else { return "No dead letters.\n" }
            return letters.map { letter in
                "\(DisplayText.value(letter["dead_letter_id"]))  \(DisplayText.value(letter["state"]))  "
                    + "\(DisplayText.value(letter["event_count"])) events (seq \(DisplayText.value(letter["first_sequence"]))"
                    + "-\(DisplayText.value(letter["last_sequence"])))  HTTP \(DisplayText.value(letter["status"]))  "
                    + "\(DisplayText.value(letter["error"]))\n"
            }.joined()
        }
        return ExitCode.success
    }

    static func backfill(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.adminOptionNames.union(["app", "since", "until"]), flags: ["json"])
        let app = try appOption(arguments, "forwarders backfill")
        let id = try forwarderID(arguments, "forwarders backfill")
        guard let since = arguments.option("since"), let until = arguments.option("until") else {
            throw CommandLineError.usage("forwarders backfill: --since TIME and --until TIME are required")
        }
        func time(_ text: String) -> JSONValue { Int64(text).map(JSONValue.integer) ?? .string(text) }
        let answer = try await AdminClient(arguments: arguments).client.json(
            "POST", ["v1", "admin", "apps", app, "forwarders", id, "backfill"],
            body: ["since": time(since), "until": time(until)])
        try Console.writeAnswer(answer, json: arguments.flag("json")) { "Backfill started: " + describe($0) }
        return ExitCode.success
    }

    /// Checks a `Tidings-Signature` header against a body and the secret, as a receiver would.
    static func verifySignature(_ rawArguments: [String]) throws -> Int32 {
        let arguments = try ArgumentList(
            rawArguments, options: ["header", "body-file", "secret-file", "tolerance", "now"], flags: [])
        guard let header = arguments.option("header"), let bodyFile = arguments.option("body-file") else {
            throw CommandLineError.usage("forwarders verify-signature: --header VALUE and --body-file F are required")
        }
        let secret: String
        if let file = arguments.option("secret-file") {
            secret = try Self.secret(file: file)
        } else if let value = ProcessInfo.processInfo.environment["TIDINGS_WEBHOOK_SECRET"], !value.isEmpty {
            secret = value
        } else {
            throw CommandLineError.usage(
                "forwarders verify-signature: give --secret-file F or set TIDINGS_WEBHOOK_SECRET")
        }
        guard let body = FileManager.default.contents(atPath: bodyFile) else {
            throw CommandLineError.failure("cannot read \(bodyFile)")
        }
        let tolerance =
            try arguments.option("tolerance").map { text in
                guard let value = Int64(text), value >= 0 else {
                    throw CommandLineError.usage("forwarders verify-signature: --tolerance takes seconds (0 or more)")
                }
                return value
            } ?? WebhookSignature.defaultTolerance
        let now = arguments.option("now").flatMap { Int64($0) } ?? Int64(Date().timeIntervalSince1970)
        do {
            try WebhookSignature.verify(
                header: header, secret: secret, body: Array(body), now: now, tolerance: tolerance)
        } catch {
            throw CommandLineError.failure("the signature is not valid: \(error.message)")
        }
        Console.write("The signature is valid.\n")
        return ExitCode.success
    }

    // MARK: Helpers

    private static func describe(_ forwarder: JSONValue) -> String {
        let settings = forwarder["settings"]
        let target =
            switch forwarder["kind"]?.stringValue {
            case "webhook"?: DisplayText.value(settings?["url"])
            case "treasure_data"?:
                "\(DisplayText.value(settings?["region"] ?? settings?["endpoint"])) "
                    + "\(DisplayText.value(settings?["database"])).\(DisplayText.value(settings?["table"]))"
            default: DisplayText.value(settings?["directory"])
            }
        var line =
            "\(DisplayText.value(forwarder["forwarder_id"]))  \(DisplayText.value(forwarder["kind"]))  \(target)  "
            + "\(DisplayText.value(forwarder["state"]))  lag \(DisplayText.value(forwarder["lag"]?["events"])) events"
        if let error = forwarder["last_error"]?.stringValue {
            line += "  failing since \(DisplayText.time(forwarder["failing_since"])): \(error)"
        }
        return line + "\n"
    }

    private static func secret(file: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CommandLineError.failure("cannot read \(file)")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func appOption(_ arguments: ArgumentList, _ command: String) throws -> String {
        guard let app = arguments.option("app"), !app.isEmpty else {
            throw CommandLineError.usage("\(command): --app APP is required (an app id or name)")
        }
        return app
    }

    private static func forwarderID(_ arguments: ArgumentList, _ command: String) throws -> String {
        guard arguments.positionals.count == 1 else {
            throw CommandLineError.usage("\(command): give one FORWARDER_ID")
        }
        return arguments.positionals[0]
    }
}
