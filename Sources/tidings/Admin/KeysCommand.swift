import Foundation
import TidingsModel

/// `tidings keys list|create|revoke`: an app's app and server keys, over the administration API. Admin keys
/// are made and revoked only with `tidingsd` on the store's host, so that a leaked admin key cannot mint more.
enum KeysCommand {
    static let usage = """
        usage: tidings keys list --app APP [--json]
               tidings keys create --app APP --kind app|server [--json]
               tidings keys revoke KEY_ID [--json]

        APP is an app id or name. create prints the new key's secret once: store it then, the server keeps
        only its digest. list shows each key's hint (its first characters), never the secret. An app key
        goes into the app (TidingsAppKey); a server key reads and sends (--key, TIDINGS_SERVER_KEY).

        \(ServerConnection.adminUsage)
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let subcommand = arguments.first else {
            throw CommandLineError.usage("keys: missing subcommand (list, create, revoke); run 'tidings keys --help'")
        }
        let rest = Array(arguments.dropFirst())
        if ["help", "--help", "-h"].contains(subcommand) || ArgumentList.asksForHelp(rest) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        switch subcommand {
        case "list": return try await list(rest)
        case "create": return try await create(rest)
        case "revoke": return try await revoke(rest)
        default:
            throw CommandLineError.usage("keys: unknown subcommand '\(subcommand)'; run 'tidings keys --help'")
        }
    }

    static func list(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.adminOptionNames.union(["app"]), flags: ["json"])
        try noPositionals(arguments, "keys list")
        let app = try appOption(arguments, "keys list")
        let answer = try await AdminClient(arguments: arguments).keys(app: app)
        try Console.writeAnswer(answer, json: arguments.flag("json")) { AdminText.keys($0["keys"]?.arrayValue ?? []) }
        return ExitCode.success
    }

    static func create(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.adminOptionNames.union(["app", "kind"]), flags: ["json"])
        try noPositionals(arguments, "keys create")
        let app = try appOption(arguments, "keys create")
        guard let kind = arguments.option("kind"), ["app", "server"].contains(kind) else {
            throw CommandLineError.usage(
                "keys create: --kind must be app or server (admin keys are made with 'tidingsd keys create "
                    + "--kind admin' on the store's host)")
        }
        let answer = try await AdminClient(arguments: arguments).createKey(app: app, kind: kind)
        guard let secret = answer["secret"]?.stringValue, let key = answer["key"] else {
            throw CommandLineError.failure("the server created a key but did not answer its secret")
        }
        let warning = "Store this key now: it is not shown again (the server keeps only its digest)."
        if arguments.flag("json") {
            try Console.writeJSON(answer)
            // Standard output stays one JSON document; the warning is for the person running the command.
            Console.progress(line: warning)
        } else {
            Console.write(
                "\(kind == "app" ? "App" : "Server") key \(DisplayText.value(key["key_id"])) for app "
                    + "\(DisplayText.value(key["app_id"])):\n\(secret)\n\(warning)\n")
        }
        return ExitCode.success
    }

    static func revoke(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try ArgumentList(rawArguments, options: ServerConnection.adminOptionNames, flags: ["json"])
        guard arguments.positionals.count == 1 else { throw CommandLineError.usage("keys revoke: give one KEY_ID") }
        let key = try await AdminClient(arguments: arguments).revokeKey(arguments.positionals[0])
        try Console.writeAnswer(key, json: arguments.flag("json")) { key in
            "Revoked \(DisplayText.value(key["kind"])) key \(DisplayText.value(key["key_id"])) "
                + "(\(DisplayText.value(key["hint"]))) at \(DisplayText.time(key["revoked_at"])).\n"
        }
        return ExitCode.success
    }

    private static func noPositionals(_ arguments: ArgumentList, _ command: String) throws {
        if let extra = arguments.positionals.first {
            throw CommandLineError.usage("\(command): unexpected argument '\(extra)'")
        }
    }

    private static func appOption(_ arguments: ArgumentList, _ command: String) throws -> String {
        guard let app = arguments.option("app"), !app.isEmpty else {
            throw CommandLineError.usage("\(command): --app APP is required (an app id or name)")
        }
        return app
    }
}
