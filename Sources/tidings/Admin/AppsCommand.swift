import Foundation
import TidingsModel

/// `tidings apps ...`: apps, their settings and their APNs, FCM and identity keys, over the administration API,
/// so that nobody needs a shell on the host that keeps tidingsd's store.
enum AppsCommand {
    static let usage = """
        usage: tidings apps list [--json]
               tidings apps show APP [--json]
               tidings apps create NAME --bundle-id ID [--json]
               tidings apps set-identity APP --mode off|optional|required [--json]
               tidings apps set-rate APP N | APP --default [--json]
               tidings apps send-settings APP [--rate N|default] [--frequency-cap N/SECONDS|none]
                                              [--default-ttl SECONDS|default] [--json]
               tidings apps set-apns APP --key-file FILE --key-id K --team-id T [--json]
               tidings apps remove-apns APP [--json]
               tidings apps set-fcm APP --service-account FILE [--json]
               tidings apps remove-fcm APP [--json]
               tidings apps identity-keys APP [--json]
               tidings apps add-identity-key APP --key-id K --public-key FILE [--json]
               tidings apps remove-identity-key APP KEY_ID [--json]

        APP is an app id or name. set-rate limits each of the app's keys to N requests a second; --default
        goes back to the server's limit. send-settings shows or changes how the app's messages go out: a
        ceiling on its pushes a second, a frequency cap on marketing pushes per installation (3/86400: 3 a day),
        and the time to live of messages that give none. set-apns sends the .p8 key file and set-fcm the service-account JSON
        to the server, which stores them and never sends them back: only the key id, team id, project and
        client email are shown.

        \(ServerConnection.adminUsage)
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let subcommand = arguments.first else {
            throw CommandLineError.usage(
                "apps: missing subcommand (list, show, create, ...); run 'tidings apps --help'")
        }
        let rest = Array(arguments.dropFirst())
        if ["help", "--help", "-h"].contains(subcommand) || ArgumentList.asksForHelp(rest) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        switch subcommand {
        case "list":
            let arguments = try parse(rest, "apps list", positionals: [])
            let answer = try await AdminClient(arguments: arguments).apps()
            return try write(answer, arguments) { AdminText.apps($0["apps"]?.arrayValue ?? []) }
        case "show":
            let arguments = try parse(rest, "apps show", positionals: ["APP"])
            return try await writeApp(AdminClient(arguments: arguments).app(arguments.positionals[0]), arguments)
        case "create": return try await create(rest)
        case "set-identity": return try await setIdentity(rest)
        case "set-rate": return try await setRate(rest)
        case "send-settings": return try await SendSettingsCommand.run(rest)
        case "set-apns": return try await setAPNs(rest)
        case "remove-apns", "remove-fcm":
            let arguments = try parse(rest, "apps \(subcommand)", positionals: ["APP"])
            let provider = subcommand == "remove-apns" ? "apns" : "fcm"
            let app = try await AdminClient(arguments: arguments).removeCredentials(
                arguments.positionals[0], provider: provider)
            return try writeApp(app, arguments)
        case "set-fcm": return try await setFCM(rest)
        case "identity-keys":
            let arguments = try parse(rest, "apps identity-keys", positionals: ["APP"])
            let answer = try await AdminClient(arguments: arguments).identityKeys(arguments.positionals[0])
            return try write(answer, arguments) { AdminText.identityKeys($0["identity_keys"]?.arrayValue ?? []) }
        case "add-identity-key": return try await addIdentityKey(rest)
        case "remove-identity-key":
            let arguments = try parse(rest, "apps remove-identity-key", positionals: ["APP", "KEY_ID"])
            let (app, keyID) = (arguments.positionals[0], arguments.positionals[1])
            try await AdminClient(arguments: arguments).removeIdentityKey(app, keyID: keyID)
            // The server answers 204 with nothing to print; say what was done in the command's own terms.
            let answer: JSONValue = ["app": .string(app), "key_id": .string(keyID), "removed": true]
            return try write(answer, arguments) { _ in "Identity key \(keyID) removed from app \(app).\n" }
        default:
            throw CommandLineError.usage("apps: unknown subcommand '\(subcommand)'; run 'tidings apps --help'")
        }
    }

    static func create(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try parse(rawArguments, "apps create", positionals: ["NAME"], options: ["bundle-id"])
        let bundleID = try required(arguments, "bundle-id", "apps create")
        let app = try await AdminClient(arguments: arguments).createApp(
            name: arguments.positionals[0], bundleID: bundleID)
        return try writeApp(app, arguments)
    }

    static func setIdentity(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try parse(rawArguments, "apps set-identity", positionals: ["APP"], options: ["mode"])
        let mode = try required(arguments, "mode", "apps set-identity")
        guard ["off", "optional", "required"].contains(mode) else {
            throw CommandLineError.usage("apps set-identity: --mode must be off, optional or required; got '\(mode)'")
        }
        let app = try await AdminClient(arguments: arguments).updateApp(
            arguments.positionals[0], ["identity_verification": .string(mode)])
        return try writeApp(app, arguments)
    }

    static func setRate(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.adminOptionNames, flags: ["json", "default"])
        let rate: JSONValue
        switch (arguments.positionals.count, arguments.flag("default")) {
        case (1, true):
            rate = .null
        case (2, false):
            let text = arguments.positionals[1]
            guard let value = Int64(text), value >= 1 else {
                throw CommandLineError.usage("apps set-rate: N must be a whole number, 1 or more; got '\(text)'")
            }
            rate = .integer(value)
        default:
            throw CommandLineError.usage("apps set-rate: give APP and N, or APP and --default")
        }
        let app = try await AdminClient(arguments: arguments).updateApp(
            arguments.positionals[0], ["requests_per_second": rate])
        return try writeApp(app, arguments)
    }

    static func setAPNs(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try parse(
            rawArguments, "apps set-apns", positionals: ["APP"], options: ["key-file", "key-id", "team-id"])
        let keyFile = try required(arguments, "key-file", "apps set-apns")
        let keyID = try required(arguments, "key-id", "apps set-apns")
        let teamID = try required(arguments, "team-id", "apps set-apns")
        let key = try readText(keyFile, what: "APNs key file", command: "apps set-apns")
        let app = try await AdminClient(arguments: arguments).setAPNs(
            arguments.positionals[0], keyPEM: key, keyID: keyID, teamID: teamID)
        return try writeApp(app, arguments)
    }

    static func setFCM(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try parse(rawArguments, "apps set-fcm", positionals: ["APP"], options: ["service-account"])
        let file = try required(arguments, "service-account", "apps set-fcm")
        let text = try readText(file, what: "service-account file", command: "apps set-fcm")
        // Checked here so that a wrong file is a usage error naming the file; the parser's message is left out
        // because it may quote the file, and the file holds a private key.
        guard let account = try? JSONValue.parse(Data(text.utf8)), account.objectValue != nil else {
            throw CommandLineError.usage(
                "apps set-fcm: the service-account file \(file) is not a JSON object (download it from the "
                    + "Firebase console: Project settings, Service accounts)")
        }
        let app = try await AdminClient(arguments: arguments).setFCM(arguments.positionals[0], serviceAccount: account)
        return try writeApp(app, arguments)
    }

    static func addIdentityKey(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try parse(
            rawArguments, "apps add-identity-key", positionals: ["APP"], options: ["key-id", "public-key"])
        let keyID = try required(arguments, "key-id", "apps add-identity-key")
        let file = try required(arguments, "public-key", "apps add-identity-key")
        let pem = try readText(file, what: "public key file", command: "apps add-identity-key")
        let key = try await AdminClient(arguments: arguments).addIdentityKey(
            arguments.positionals[0], keyID: keyID, publicKeyPEM: pem)
        return try write(key, arguments) { key in
            "Identity key \(DisplayText.value(key["key_id"])) (\(DisplayText.value(key["algorithm"]))) added to "
                + "app \(arguments.positionals[0]).\n"
        }
    }

    // MARK: Helpers

    /// Parses a subcommand's arguments: exactly the `positionals` named (for the message), the connection
    /// options, `options`, and `--json`.
    private static func parse(
        _ rawArguments: [String], _ command: String, positionals: [String], options: Set<String> = []
    ) throws -> ArgumentList {
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.adminOptionNames.union(options), flags: ["json"])
        guard arguments.positionals.count == positionals.count else {
            if positionals.isEmpty {
                throw CommandLineError.usage("\(command): unexpected argument '\(arguments.positionals[0])'")
            }
            throw CommandLineError.usage("\(command): give \(positionals.joined(separator: " and "))")
        }
        return arguments
    }

    private static func required(_ arguments: ArgumentList, _ option: String, _ command: String) throws -> String {
        guard let value = arguments.option(option), !value.isEmpty else {
            throw CommandLineError.usage("\(command): --\(option) is required")
        }
        return value
    }

    /// The contents of a file the user named, as text; an unreadable file is a usage error.
    private static func readText(_ path: String, what: String, command: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandLineError.usage("\(command): cannot read the \(what) \(path)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func writeApp(_ app: JSONValue, _ arguments: ArgumentList) throws -> Int32 {
        try write(app, arguments, human: AdminText.app)
    }

    private static func write(_ answer: JSONValue, _ arguments: ArgumentList, human: (JSONValue) -> String) throws
        -> Int32
    {
        try Console.writeAnswer(answer, json: arguments.flag("json"), human: human)
        return ExitCode.success
    }
}
